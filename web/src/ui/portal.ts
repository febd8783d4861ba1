// What the partner portal's pages share: the currencies offered, calendar dates as instants, and
// the partner's balances, and an Idempotency-Key that stays the same while a person retries the very same request.
import { useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, idempotencyKey, unwrap } from '../api/client';

/** Currencies a partner picks from when registering a deal; its balances' currencies come first. */
export const PORTAL_CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'JPY', 'INR', 'BRL', 'MXN', 'SGD', 'NZD', 'ZAR'];

/**
 * The start of a calendar day (YYYY-MM-DD) in the viewer's time zone as an RFC 3339 instant; with
 * `after`, the start of the next day (an exclusive end that includes the day itself).
 */
export function dayToISO(value: string, after = false): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (after ? 1 : 0));
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Today in the viewer's time zone as YYYY-MM-DD. */
export function today(offsetDays = 0): string {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${String(d.getFullYear())}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * An Idempotency-Key per request body: a retry of the same request reuses its key (the server
 * answers it once), a changed request gets a fresh one.
 */
export function useIdempotencyKey(): (body: unknown) => string {
  const last = useRef<{ body: string; key: string } | null>(null);
  return (body: unknown) => {
    const text = JSON.stringify(body);
    if (last.current?.body !== text) last.current = { body: text, key: idempotencyKey() };
    return last.current.key;
  };
}

/** The partner's balances (the API scopes them to the partner's organisation). */
export function usePortalBalances() {
  return useQuery({
    queryKey: ['ledger', 'balances'],
    queryFn: async () => unwrap(await api.GET('/api/ledger/balances')),
    // Money moves without this tab doing anything (a won deal accrues): read it afresh on every visit.
    staleTime: 0,
  });
}
