import type { PageDef } from '../../app/page';

/** The operator console's pages, in menu order. Each page module adds its line here. */
export const consolePages: PageDef[] = [
  { path: '/', title: 'Dashboard', face: 'console', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/tasks', title: 'Tasks', face: 'console', permission: 'tasks:read', group: 'Sales', load: () => import('./Tasks') },
  { path: '/playbooks', title: 'Playbooks', face: 'console', permission: 'playbooks:read', group: 'Automation', load: () => import('./Playbooks') },
  { path: '/playbooks/:id', title: 'Playbook', face: 'console', permission: 'playbooks:read', load: () => import('./PlaybookDetail') },
  { path: '/playbook-runs', title: 'Playbook runs', face: 'console', permission: 'playbooks:read', group: 'Automation', load: () => import('./PlaybookRuns') },
  { path: '/playbook-runs/:id', title: 'Playbook run', face: 'console', permission: 'playbooks:read', load: () => import('./PlaybookRun') },
  { path: '/users', title: 'Users', face: 'console', permission: 'users:read', group: 'Administration', load: () => import('./Users') },
  { path: '/users/:id', title: 'User', face: 'console', permission: 'users:read', load: () => import('./UserDetail') },
  { path: '/roles', title: 'Roles', face: 'console', permission: 'roles:read', group: 'Administration', load: () => import('./Roles') },
  { path: '/audit', title: 'Audit log', face: 'console', permission: 'audit:read', group: 'Administration', load: () => import('./Audit') },
  { path: '/mail', title: 'Mail outbox', face: 'console', permission: 'mail:read', group: 'Administration', load: () => import('./Mail') },
  { path: '/mail/:id', title: 'Mail message', face: 'console', permission: 'mail:read', load: () => import('./MailMessage') },
  { path: '/settings', title: 'Settings', face: 'console', permission: 'tenant:read', group: 'Administration', load: () => import('./Settings') },
  { path: '/commissions', title: 'Commissions', face: 'console', permission: 'commissions:read', group: 'Money', load: () => import('./Commissions') },
  { path: '/commissions/:id', title: 'Commission plan', face: 'console', permission: 'commissions:read', load: () => import('./CommissionPlanDetail') },
  { path: '/ledger', title: 'Ledger', face: 'console', permission: 'ledger:read', group: 'Money', load: () => import('./Ledger') },
  { path: '/withdrawals', title: 'Withdrawals', face: 'console', permission: 'withdrawals:read', group: 'Money', load: () => import('./Withdrawals') },
  { path: '/withdrawals/:id', title: 'Withdrawal', face: 'console', permission: 'withdrawals:read', load: () => import('./WithdrawalDetail') },
  { path: '/payout-settings', title: 'Payout settings', face: 'console', permission: 'withdrawals:approve', group: 'Money', load: () => import('./PayoutSettings') },
  { path: '/partners', title: 'Partners', face: 'console', permission: 'partners:read', group: 'Partners', load: () => import('./Partners') },
  { path: '/partners/:id', title: 'Partner', face: 'console', permission: 'partners:read', load: () => import('./PartnerDetail') },
  { path: '/applications', title: 'Applications', face: 'console', permission: 'applications:read', group: 'Partners', load: () => import('./Applications') },
  { path: '/applications/:id', title: 'Application', face: 'console', permission: 'applications:read', load: () => import('./ApplicationDetail') },
  { path: '/levels', title: 'Levels', face: 'console', permission: 'partners:read', group: 'Partners', load: () => import('./Levels') },
];
