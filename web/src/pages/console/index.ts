import type { PageDef } from '../../app/page';

/** The operator console's pages, in menu order. Each page module adds its line here. */
export const consolePages: PageDef[] = [
  { path: '/', title: 'Dashboard', face: 'console', permission: 'profile:read', group: 'Overview', load: () => import('./Dashboard') },
  { path: '/commissions', title: 'Commissions', face: 'console', permission: 'commissions:read', group: 'Money', load: () => import('./Commissions') },
  { path: '/commissions/:id', title: 'Commission plan', face: 'console', permission: 'commissions:read', load: () => import('./CommissionPlanDetail') },
  { path: '/ledger', title: 'Ledger', face: 'console', permission: 'ledger:read', group: 'Money', load: () => import('./Ledger') },
  { path: '/withdrawals', title: 'Withdrawals', face: 'console', permission: 'withdrawals:read', group: 'Money', load: () => import('./Withdrawals') },
  { path: '/withdrawals/:id', title: 'Withdrawal', face: 'console', permission: 'withdrawals:read', load: () => import('./WithdrawalDetail') },
  { path: '/payout-settings', title: 'Payout settings', face: 'console', permission: 'withdrawals:approve', group: 'Money', load: () => import('./PayoutSettings') },
];
