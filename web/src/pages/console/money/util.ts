// What the money pages share besides components: the partner list, rates in basis points,
// payloads built from dotted paths, and words for ledger accounts and movements.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../../api/client';
import { can, useMe } from '../../../auth/me';
import { formatBps } from '../../../ui/format';

export type Partner = Schemas['Partner'];

/** The tenant's partners (up to 1,000), for pickers and for naming partners in tables. */
export function usePartners() {
  const me = useMe();
  return useQuery({
    queryKey: ['partners', 'all'],
    enabled: can(me.data, 'partners:read'),
    staleTime: 60_000,
    queryFn: async () => {
      const all: Partner[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = unwrap(await api.GET('/api/partners', { params: { query: { limit: 100, cursor } } }));
        all.push(...page.data);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return all;
    },
  });
}

/** Currencies offered first in pickers (ISO 4217 codes). */
export const commonCurrencies = ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CAD', 'AUD', 'JPY'];

export { formatBps };

/** Basis points of a percentage a person typed ("10.5" → 1050), or null; exact, no floats. */
export function percentToBps(text: string): number | null {
  const m = /^(\d{1,3})(?:[.,](\d{0,2}))?\s*%?$/.exec(text.trim());
  if (!m) return null;
  return Number((m[1] ?? '0') + (m[2] ?? '').padEnd(2, '0'));
}

/** Basis points as the text of a percentage input: 1050 → "10.5". */
export function bpsToPercentInput(bps: number | undefined): string {
  if (!bps) return '';
  return formatBps(bps).replace(' %', '');
}

/** An object holding value at a dotted path: ("invoice.total", 5) → {invoice: {total: 5}}. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  let o = target;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) {
      o[k] = value;
    } else {
      const next = o[k];
      o[k] = next && typeof next === 'object' ? next : {};
      o = o[k] as Record<string, unknown>;
    }
  });
  return target;
}

/** Human words for ledger accounts and movement kinds. */
export const accountLabels: Record<string, string> = {
  earned: 'Earned', pending: 'Pending', available: 'Available', held: 'Held', paid: 'Paid',
};
export const kindLabels: Record<string, string> = {
  accrual: 'Accrual', release: 'Release', clawback: 'Clawback', adjustment: 'Adjustment',
  withdrawal_hold: 'Withdrawal hold', withdrawal_release: 'Withdrawal release', payout: 'Payout',
};
