// Formatting for people: money from integer minor units, instants in the viewer's time zone, an event's payload
// and a customer on one line.

const digitsCache = new Map<string, number>();

/** Minor-unit digits of an ISO 4217 currency (2 for EUR, 0 for JPY, 3 for KWD). */
export function currencyDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digitsCache.set(currency, d);
  }
  return d;
}

/** The decimal string of an amount in minor units, exact (no floating point): 123456, EUR → "1234.56". */
export function minorToDecimal(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const neg = minor < 0;
  const s = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0');
  const int = digits ? s.slice(0, -digits) : s;
  const frac = digits ? s.slice(-digits) : '';
  return `${neg ? '-' : ''}${int}${frac ? '.' + frac : ''}`;
}

/** An amount in minor units formatted in its currency for the viewer's locale. */
/**
 * A ratio in basis points (10000 = 1×) as a multiple with two decimals, "2.35×", rounded half
 * away from zero in integers: 23450 bps reads 2.35×.
 */
export function formatRatio(bps: number | null | undefined): string {
  if (bps === null || bps === undefined) return '—';
  const hundredths = Math.sign(bps) * Math.round(Math.abs(bps) / 100);
  return `${ratioFormat.format(hundredths / 100)}×`;
}

const ratioFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatMoney(minor: number | undefined, currency: string | undefined): string {
  if (minor === undefined || !currency) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency })
      .format(minorToDecimal(minor, currency) as Intl.StringNumericLiteral);
  } catch {
    return `${minorToDecimal(minor, currency)} ${currency}`;
  }
}

/**
 * Minor units of a decimal a person typed ("1,234.5" or "1234.50" in EUR → 123450), or null when
 * it is not an amount with at most the currency's digits. Exact: parses the digits, no floats.
 */
export function decimalToMinor(text: string, currency: string): number | null {
  const t = text.trim().replace(/[\s,_']/g, '');
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(t);
  if (!m) return null;
  const digits = currencyDigits(currency);
  const frac = m[3] ?? '';
  if (frac.length > digits) return null;
  const n = Number((m[2] ?? '0') + frac.padEnd(digits, '0'));
  if (!Number.isSafeInteger(n)) return null;
  return m[1] ? -n : n;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** An instant in the viewer's time zone. */
export function formatDateTime(iso: string | undefined | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** A calendar date (YYYY-MM-DD, no time zone) as the viewer writes dates. */
export function formatDate(isoDate: string | undefined | null): string {
  if (!isoDate) return '—';
  const [y, m, d] = isoDate.slice(0, 10).split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  return dateOnly.format(new Date(y, m - 1, d));
}

/** The viewer's local datetime-local input value as an RFC 3339 instant, or undefined when empty. */
export function localInputToISO(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Basis points as a percentage, exact: 1050 → "10.5 %". */
export function formatBps(bps: number | undefined): string {
  if (bps === undefined) return '—';
  const neg = bps < 0;
  const s = String(Math.abs(Math.trunc(bps))).padStart(3, '0');
  const frac = s.slice(-2).replace(/0+$/, '');
  return `${neg ? '-' : ''}${s.slice(0, -2)}${frac ? '.' + frac : ''} %`;
}

/** The start of an event's payload on one line. */
export function payloadPreview(payload: Record<string, unknown>): string {
  const s = JSON.stringify(payload);
  return s.length > 60 ? s.slice(0, 59) + '…' : s;
}

/** How a customer is named: name and email, else its reference or id. */
export function customerLabel(c: { id: string; name?: string; email?: string; externalId?: string }): string {
  return [c.name, c.email].filter(Boolean).join(' · ') || c.externalId || c.id;
}
