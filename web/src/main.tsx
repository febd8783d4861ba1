import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider, mergeThemeOverrides } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { cssVariablesResolver, theme } from './theme';
import { requireSession } from './app/guard';
import { pages } from './app/pages';
import { setNonce } from 'get-nonce';
import { ApiError, onSessionExpired } from './api/client';
import { applyBrand, BrandContext, brandTheme, brandVariables, loadBrand } from './brand';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Others change the data too (a partner registers, finance approves): a page shown again
      // after a few seconds reads it afresh.
      staleTime: 5_000,
      // A refusal or a missing row does not change on retry; a dropped connection may.
      retry: (count, err) => count < 1 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
    },
  },
});

// Nothing is server-rendered: no markup to show while a lazy route or a loader runs first.
const HydrateFallback = () => null;

// Every page is a lazy route: the entry chunk holds the shell, the router and the theme only.
const router = createBrowserRouter([
  { path: '/login', HydrateFallback, lazy: async () => ({ Component: (await import('./app/Login')).default }) },
  { path: '/signup', HydrateFallback, lazy: async () => ({ Component: (await import('./app/Signup')).default }) },
  { path: '/accept-invitation', HydrateFallback, lazy: async () => ({ Component: (await import('./app/SetPassword')).default }) },
  { path: '/apply/:slug', HydrateFallback, lazy: async () => ({ Component: (await import('./app/Apply')).default }) },
  { path: '/survey', HydrateFallback, lazy: async () => ({ Component: (await import('./app/Survey')).default }) },
  { path: '/reset-password', HydrateFallback, lazy: async () => ({ Component: (await import('./app/SetPassword')).default }) },
  {
    path: '/',
    loader: requireSession,
    HydrateFallback,
    lazy: async () => ({ Component: (await import('./app/Layout')).default }),
    children: [
      ...pages.map((page) => ({
        path: page.path,
        lazy: async () => {
          const [{ Gate }, { default: Page }] = await Promise.all([import('./app/Gate'), page.load()]);
          return { Component: () => <Gate page={page} Component={Page} /> };
        },
      })),
      { path: '*', lazy: async () => ({ Component: (await import('./app/NotFound')).default }) },
    ],
  },
]);

onSessionExpired(() => {
  queryClient.clear();
  const here = window.location.pathname;
  void router.navigate(`/login?expired=1${here !== '/' ? `&next=${encodeURIComponent(here)}` : ''}`, { replace: true });
});

// Mantine writes <style> elements (theme variables, AppShell, Grid, responsive props). The
// server puts a fresh nonce into this meta tag and into the CSP's style-src for every
// index.html it serves; scripts stay 'self' only.
const nonceMeta = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
const styleNonce = nonceMeta && nonceMeta !== '__CSP_NONCE__' ? nonceMeta : undefined;
// Dialogs lock scrolling with a <style> element of react-remove-scroll, which takes its nonce from here.
if (styleNonce) setNonce(styleNonce);

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

// On a tenant's custom domain the portal is shown in the tenant's brand from its first paint.
void loadBrand().then((brand) => {
  if (brand) applyBrand(brand);
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={brand ? mergeThemeOverrides(theme, brandTheme(brand)) : theme}
        cssVariablesResolver={brand ? brandVariables(brand, cssVariablesResolver) : cssVariablesResolver} defaultColorScheme="auto"
        getStyleNonce={styleNonce ? () => styleNonce : undefined}>
        <BrandContext.Provider value={brand}>
          <Notifications position="top-center" limit={3} />
          <QueryClientProvider client={queryClient}>
            <RouterProvider router={router} />
          </QueryClientProvider>
        </BrandContext.Provider>
      </MantineProvider>
    </StrictMode>,
  );
});
