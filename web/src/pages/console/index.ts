import type { PageDef } from '../../app/page';

/** The operator console's pages, in menu order. Each page module adds its line here. */
export const consolePages: PageDef[] = [
  { path: '/', title: 'Dashboard', face: 'console', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/customers', title: 'Customers', face: 'console', permission: 'customers:read', group: 'Sales', load: () => import('./Customers') },
  { path: '/customers/:id', title: 'Customer', face: 'console', permission: 'customers:read', load: () => import('./CustomerDetail') },
  { path: '/events', title: 'Events', face: 'console', permission: 'events:read', group: 'Sales', load: () => import('./Events') },
  { path: '/events/:id', title: 'Event', face: 'console', permission: 'events:read', load: () => import('./EventDetail') },
  { path: '/metrics', title: 'Metrics', face: 'console', permission: 'metrics:read', group: 'Integrations', load: () => import('./Metrics') },
  { path: '/metrics/:id', title: 'Metric', face: 'console', permission: 'metrics:read', load: () => import('./MetricDetail') },
  { path: '/webhooks', title: 'Webhooks', face: 'console', permission: 'webhooks:read', group: 'Integrations', load: () => import('./Webhooks') },
  { path: '/webhooks/:id', title: 'Webhook', face: 'console', permission: 'webhooks:read', load: () => import('./WebhookDetail') },
  { path: '/api-keys', title: 'Machine keys', face: 'console', permission: 'apikeys:read', group: 'Integrations', load: () => import('./ApiKeys') },
];
