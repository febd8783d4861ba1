/** The periods a partner reads its metrics over, in days before now. */
export const metricPeriods = [
  { value: '7', label: 'Last 7 days' }, { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' }, { value: '365', label: 'Last 365 days' },
];

/** The period named in the address (?days=), 30 days when none or an unknown one. */
export function periodOf(days: string | null): { period: string; days: number } {
  const period = metricPeriods.some((p) => p.value === days) ? days ?? '30' : '30';
  return { period, days: Number(period) };
}
