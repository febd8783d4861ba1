import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { theme } from './theme';
import { requireSession } from './routes/guard';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 30_000, retry: 1 } },
});

// Every page is a lazy route: the entry chunk holds the shell, the router and the theme only.
const router = createBrowserRouter([
  { path: '/login', lazy: async () => ({ Component: (await import('./routes/Login')).default }) },
  {
    path: '/',
    loader: requireSession,
    lazy: async () => ({ Component: (await import('./routes/Layout')).default }),
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./routes/Dashboard')).default }) },
    ],
  },
  { path: '*', lazy: async () => ({ Component: (await import('./routes/NotFound')).default }) },
]);

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
