import type { PageDef } from '../../app/page';

/** The partner portal's pages, in menu order. Each page module adds its line here. */
export const portalPages: PageDef[] = [
  { path: '/portal', title: 'Dashboard', face: 'portal', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/portal/deals', title: 'Deals', face: 'portal', permission: 'deals:read', group: 'Sell', load: () => import('./Deals') },
  { path: '/portal/deals/new', title: 'Register a deal', face: 'portal', permission: 'deals:write', load: () => import('./DealNew') },
  { path: '/portal/deals/:id', title: 'Deal', face: 'portal', permission: 'deals:read', load: () => import('./Deal') },
  { path: '/portal/customers', title: 'Customers', face: 'portal', permission: 'customers:read', group: 'Sell', load: () => import('./Customers') },
  { path: '/portal/customers/:id', title: 'Customer', face: 'portal', permission: 'customers:read', load: () => import('./Customer') },
  { path: '/portal/money', title: 'Money', face: 'portal', permission: 'ledger:read', group: 'Earnings', load: () => import('./Money') },
  { path: '/portal/payout-methods', title: 'Payout methods', face: 'portal', permission: 'withdrawals:read', group: 'Earnings', load: () => import('./PayoutMethods') },
  { path: '/portal/mdf', title: 'Marketing funds', face: 'portal', permission: 'mdf:read', group: 'Earnings', load: () => import('./Mdf') },
  { path: '/portal/tax', title: 'Tax details', face: 'portal', permission: 'tax:read', group: 'Earnings', load: () => import('./TaxDetails') },
  { path: '/portal/tasks', title: 'Onboarding and tasks', face: 'portal', permission: 'tasks:read', group: 'Program', load: () => import('./Tasks') },
  { path: '/portal/documents', title: 'Documents', face: 'portal', permission: 'tasks:read', group: 'Program', load: () => import('./Documents') },
  { path: '/portal/documents/:id', title: 'Document', face: 'portal', permission: 'tasks:read', load: () => import('./Document') },
  { path: '/portal/tickets', title: 'Support tickets', face: 'portal', permission: 'tickets:read', group: 'Program', load: () => import('./Tickets') },
  { path: '/portal/tickets/:id', title: 'Ticket', face: 'portal', permission: 'tickets:read', load: () => import('./Ticket') },
  { path: '/portal/survey-scores', title: 'Survey scores', face: 'portal', permission: 'surveys:read', group: 'Program', load: () => import('./SurveyScores') },
  { path: '/portal/resources', title: 'Resources', face: 'portal', permission: 'content:read', group: 'Program', load: () => import('./Resources') },
  { path: '/portal/learning', title: 'Learning', face: 'portal', permission: 'certifications:read', group: 'Program', load: () => import('./Learning') },
  { path: '/portal/learning/:id', title: 'Course', face: 'portal', permission: 'certifications:read', load: () => import('./Course') },
  { path: '/portal/agreements', title: 'Agreements', face: 'portal', permission: 'agreements:read', group: 'Account', load: () => import('./Agreements') },
  { path: '/portal/team', title: 'Team', face: 'portal', permission: 'partner_users:read', group: 'Account', load: () => import('./Team') },
  { path: '/portal/profile', title: 'Profile', face: 'portal', permission: 'profile:read', group: 'Account', load: () => import('./Profile') },
];
