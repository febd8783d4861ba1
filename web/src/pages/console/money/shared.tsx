// Components the money pages share: partner names and pickers, currency pickers, who did something.
import { Badge, Select, type SelectProps } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { can, useMe } from '../../../auth/me';
import { PartnerSelect as SearchPartnerSelect } from '../../../ui/DataPartnerSelect';
import { commonCurrencies, usePartners } from './util';

/** A partner's name, or its id while the names load or when the caller may not read partners. */
export function PartnerName({ id }: { id: string | undefined }) {
  const partners = usePartners();
  if (!id) return <span>—</span>;
  const p = partners.data?.find((x) => x.id === id);
  return <span title={id}>{p?.name ?? id}</span>;
}

/** A partner picker searching on the server; its value is the partner's id, null for none. */
export function PartnerSelect({ value, onChange, ...rest }: Omit<SelectProps, 'data' | 'value' | 'onChange'> & {
  value: string | null; onChange: (id: string | null) => void;
}) {
  return <SearchPartnerSelect placeholder="Any partner" nothingFoundMessage="No partner of that name" {...rest}
    value={value} onChange={(id) => { onChange(id || null); }} />;
}

/** A currency picker (ISO 4217 codes). */
export function CurrencySelect(props: Omit<SelectProps, 'data'>) {
  return <Select searchable data={commonCurrencies} {...props} />;
}

/**
 * Who did something, by user id: "you" for the signed-in person, else the operator's or the
 * partner user's name when the caller may read them.
 */
export function PersonName({ id }: { id: string | undefined }) {
  const me = useMe();
  const q = useQuery({
    queryKey: ['people', id],
    enabled: !!id && id !== me.data?.userId && !id.startsWith('key:'),
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: async () => {
      if (!id) return null;
      if (can(me.data, 'users:read')) {
        const r = await api.GET('/api/users/{id}', { params: { path: { id } } });
        if (r.data) return r.data;
      }
      if (can(me.data, 'partner_users:read')) {
        const r = await api.GET('/api/partner-users/{id}', { params: { path: { id } } });
        if (r.data) return r.data;
      }
      return null;
    },
  });
  if (!id) return <span>—</span>;
  if (id === me.data?.userId) return <span title={id}>you</span>;
  if (id.startsWith('key:')) return <span title={id}>machine key {id.slice(4)}</span>;
  const u = q.data;
  return <span title={id}>{u ? `${u.name || u.email}${u.partnerId ? ' (partner user)' : ''}` : id}</span>;
}


const statusColors: Record<string, string> = {
  active: 'green', approved: 'green', paid: 'green', available: 'green',
  requested: 'blue', pending: 'blue',
  rejected: 'red', failed: 'red', reversed: 'red',
  cancelled: 'gray', archived: 'gray',
};

/**
 * A withdrawal's, payout's, accrual's or plan's status: a coloured dot beside text in the body
 * colour, which keeps WCAG AA contrast in both colour schemes.
 */
export function MoneyStatus({ status }: { status: string | undefined }) {
  if (!status) return null;
  return <Badge variant="dot" color={statusColors[status] ?? 'gray'}>{status.replaceAll('_', ' ')}</Badge>;
}
