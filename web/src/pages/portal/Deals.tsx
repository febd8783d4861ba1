import { Link, useSearchParams } from 'react-router';
import { Anchor, Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { formatDate } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { dayToISO } from '../../ui/portal';
import { StatusBadge } from '../../ui/StatusBadge';

type Deal = Schemas['Deal'];
type DealStatus = Deal['status'];
const statuses: DealStatus[] = ['submitted', 'approved', 'rejected', 'won', 'lost', 'expired'];

/** The partner's deal registrations, filtered by status and registration date. */
export default function Deals() {
  const canWrite = useCan('deals:write');
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const set = (key: string, value: string) => {
    setParams((p) => {
      if (value) p.set(key, value); else p.delete(key);
      return p;
    }, { replace: true });
  };
  const query = {
    status: statuses.includes(status as DealStatus) ? status as DealStatus : undefined,
    from: dayToISO(from),
    to: dayToISO(to, true),
  };

  return (
    <Stack>
      <PageHeader title="Deals" description="The opportunities you registered: protected for you once approved."
        actions={canWrite && <Button component={Link} to="/portal/deals/new">Register a deal</Button>} />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NativeSelect label="Status" value={status} onChange={(e) => { set('status', e.currentTarget.value); }}
          data={[{ value: '', label: 'All' }, ...statuses.map((s) => ({ value: s, label: s.charAt(0).toUpperCase() + s.slice(1) }))]} />
        <TextInput type="date" label="Registered from" value={from} onChange={(e) => { set('from', e.currentTarget.value); }} />
        <TextInput type="date" label="Registered until" value={to} onChange={(e) => { set('to', e.currentTarget.value); }} />
        {(status || from || to) && <Button variant="subtle" onClick={() => { setParams({}, { replace: true }); }}>Clear filters</Button>}
      </Group>
      <PagedTable<Deal>
        label="Deals"
        queryKey={['deals', 'mine', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/deals', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(d) => d.id}
        empty={status || from || to ? 'No deals match these filters.' : 'No deals yet. Register one to protect it.'}
        columns={[
          { header: 'Customer', render: (d) => (
            <Stack gap={0}>
              <Anchor component={Link} to={`/portal/deals/${d.id}`}>{d.customerCompany}</Anchor>
              {d.customerDomain && <Text size="xs" c="dimmed">{d.customerDomain}</Text>}
            </Stack>
          ) },
          { header: 'Status', render: (d) => (
            <Group gap={4} miw="max-content">
              <StatusBadge status={d.status} />
              {d.reviewRequired && <StatusBadge status="review" />}
            </Group>
          ) },
          { header: 'Amount', numeric: true, render: (d) => <Money minor={d.amountMinor} currency={d.currency} /> },
          { header: 'Protected until', render: (d) => <DateTime value={d.protectedUntil} /> },
          { header: 'Expected close', render: (d) => formatDate(d.expectedCloseDate) },
          { header: 'Registered', render: (d) => <DateTime value={d.createdAt} /> },
        ]}
      />
    </Stack>
  );
}
