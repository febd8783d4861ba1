import type { PageDef } from '../../app/page';

/** The operator console's pages, in menu order. Each page module adds its line here. */
export const consolePages: PageDef[] = [
  { path: '/', title: 'Dashboard', face: 'console', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/partners', title: 'Partners', face: 'console', permission: 'partners:read', group: 'Partners', load: () => import('./Partners') },
  { path: '/partners/:id', title: 'Partner', face: 'console', permission: 'partners:read', load: () => import('./PartnerDetail') },
  { path: '/applications', title: 'Applications', face: 'console', permission: 'applications:read', group: 'Partners', load: () => import('./Applications') },
  { path: '/applications/:id', title: 'Application', face: 'console', permission: 'applications:read', load: () => import('./ApplicationDetail') },
  { path: '/levels', title: 'Levels', face: 'console', permission: 'partners:read', group: 'Partners', load: () => import('./Levels') },
];
