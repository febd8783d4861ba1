import type { PageDef } from '../../app/page';

/** The operator console's pages, in menu order. Each page module adds its line here. */
export const consolePages: PageDef[] = [
  { path: '/', title: 'Dashboard', face: 'console', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/deals', title: 'Deals', face: 'console', permission: 'deals:read', group: 'Sales', load: () => import('./Deals') },
  { path: '/deals/:id', title: 'Deal', face: 'console', permission: 'deals:read', load: () => import('./DealDetail') },
];
