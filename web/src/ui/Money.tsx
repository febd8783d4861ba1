import { formatMoney } from './format';

/** An amount in minor units, formatted in its currency; negative amounts are red. */
export function Money({ minor, currency }: { minor: number | undefined; currency: string | undefined }) {
  return <span style={{ whiteSpace: 'nowrap', color: minor !== undefined && minor < 0 ? 'var(--mantine-color-red-text)' : undefined }}>
    {formatMoney(minor, currency)}
  </span>;
}
