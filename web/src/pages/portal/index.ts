import type { PageDef } from '../../app/page';

/** The partner portal's pages, in menu order. Each page module adds its line here. */
export const portalPages: PageDef[] = [
  { path: '/portal', title: 'Dashboard', face: 'portal', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
];
