import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { cssVariablesResolver, theme } from './theme';
import { requireSession } from './routes/guard';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 30_000, retry: 1 } },
});

// Nothing is server-rendered: no markup to show while a lazy route or a loader runs first.
const HydrateFallback = () => null;

// Every page is a lazy route: the entry chunk holds the shell, the router and the theme only.
const router = createBrowserRouter([
  { path: '/login', HydrateFallback, lazy: async () => ({ Component: (await import('./routes/Login')).default }) },
  {
    path: '/',
    loader: requireSession,
    HydrateFallback,
    lazy: async () => ({ Component: (await import('./routes/Layout')).default }),
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./routes/Dashboard')).default }) },
    ],
  },
  { path: '*', HydrateFallback, lazy: async () => ({ Component: (await import('./routes/NotFound')).default }) },
]);

// Mantine writes <style> elements (theme variables, AppShell, Grid, responsive props). The
// server puts a fresh nonce into this meta tag and into the CSP's style-src for every
// index.html it serves; scripts stay 'self' only.
const nonceMeta = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
const styleNonce = nonceMeta && nonceMeta !== '__CSP_NONCE__' ? nonceMeta : undefined;

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto"
      getStyleNonce={styleNonce ? () => styleNonce : undefined}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
