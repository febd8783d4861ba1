import { formatDateTime } from './format';

/** An instant in the viewer's time zone, with the exact instant on hover. */
export function DateTime({ value }: { value: string | undefined | null }) {
  if (!value) return <span>—</span>;
  return <time dateTime={value} title={value}>{formatDateTime(value)}</time>;
}
