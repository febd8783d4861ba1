import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../../api/client';
import type { paths } from '../../../api/schema';
import { useCan } from '../../../auth/useCan';
import { PartnerSelect } from '../../../ui/DataPartnerSelect';
import { DateTime } from '../../../ui/DateTime';
import { decimalToMinor } from '../../../ui/format';
import { Money } from '../../../ui/Money';
import { PagedTable, type Column } from '../../../ui/PagedTable';
import { filterKeys, findStage, hasListFilter, useOperatorUsers, usePipelines, type Deal } from './data';
import { ConflictMarker, DealStatus, PartnerName } from './shared';

type Query = NonNullable<paths['/api/deals']['get']['parameters']['query']>;
type Status = NonNullable<Query['status']>;

async function listDeals(query: Query) {
  return unwrap(await api.GET('/api/deals', { params: { query } }));
}

const statuses: Status[] = ['submitted', 'approved', 'rejected', 'won', 'lost', 'expired'];


/** The start of a local calendar day as an instant. */
function dayStart(date: string, plusDays = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
}

/** Deals as a filtered, paged table; the review view lists the registrations waiting for a decision. */
export function DealsList({ review = false }: { review?: boolean }) {
  const [params, setParams] = useSearchParams();
  const get = (k: (typeof filterKeys)[number]) => params.get(k) ?? '';
  const set = (k: (typeof filterKeys)[number], v: string | null) => {
    setParams((p) => {
      const n = new URLSearchParams(p);
      if (v) n.set(k, v); else n.delete(k);
      return n;
    }, { replace: true });
  };
  const pipelines = usePipelines(useCan('pipelines:read'));
  const canPartners = useCan('partners:read');
  const levels = useQuery({
    queryKey: ['levels', 'options'],
    queryFn: async () => unwrap(await api.GET('/api/levels', { params: { query: { limit: 100 } } })).data,
    enabled: canPartners,
    staleTime: 60_000,
  });
  const users = useOperatorUsers();

  const currency = get('currency').toUpperCase();
  const currencyOk = currency === '' || /^[A-Z]{3}$/.test(currency);
  const amount = (k: 'min' | 'max') => {
    const text = get(k);
    if (!text) return { value: undefined, error: undefined };
    if (!currency || !currencyOk) return { value: undefined, error: 'Choose a currency first' };
    const minor = decimalToMinor(text, currency);
    return minor === null || minor < 0 ? { value: undefined, error: `Not an amount in ${currency}` } : { value: minor, error: undefined };
  };
  const min = amount('min');
  const max = amount('max');
  const status = get('status');

  const query: Query = {
    status: review ? 'submitted' : statuses.includes(status as Status) ? status as Status : undefined,
    partnerId: get('partnerId') || undefined,
    level: get('level') || undefined,
    stageId: get('stageId') || undefined,
    ownerUserId: get('ownerUserId') || undefined,
    currency: currency && currencyOk ? currency : undefined,
    from: dayStart(get('from')),
    to: dayStart(get('to'), 1),
    minAmount: min.value,
    maxAmount: max.value,
  };

  const stageOptions = (pipelines.data ?? []).map((p) => ({
    group: p.name,
    items: [...p.stages].sort((a, b) => a.position - b.position).map((s) => ({ value: s.id, label: s.name })),
  }));
  const userName = (id: string | undefined) => users.data?.find((u) => u.id === id)?.name;

  const columns: Column<Deal>[] = [
    {
      header: 'Customer',
      render: (d) => (
        <Stack gap={0}>
          <Anchor component={Link} to={`/deals/${d.id}`} fw={500}>{d.customerCompany}</Anchor>
          {d.customerDomain && <Text size="xs" c="dimmed">{d.customerDomain}</Text>}
        </Stack>
      ),
    },
    { header: 'Partner', render: (d) => <PartnerName id={d.partnerId} /> },
    { header: 'Amount', numeric: true, render: (d) => <Money minor={d.amountMinor} currency={d.currency} /> },
    ...(review ? [] : [{ header: 'Stage', render: (d: Deal) => findStage(pipelines.data, d.stageId)?.name ?? '—' }]),
    { header: 'Status', render: (d) => <Group gap={4}><DealStatus status={d.status} /><ConflictMarker deal={d} /></Group> },
    ...(review ? [] : [
      { header: 'Owner', render: (d: Deal) => d.ownerUserId ? (userName(d.ownerUserId) ?? 'Operator') : '—' },
      { header: 'Protected until', render: (d: Deal) => <DateTime value={d.protectedUntil} /> },
    ]),
    { header: 'Registered', render: (d) => <DateTime value={d.createdAt} /> },
    ...(review ? [{
      header: <Text component="span" size="sm" fw={700}>Decision</Text>,
      render: (d: Deal) => <Button component={Link} to={`/deals/${d.id}`} size="compact-sm" variant="light">Review {d.customerCompany}</Button>,
    }] : []),
  ];

  return (
    <Stack>
      {review ? (
        <Text size="sm" c="dimmed">Registrations partners submitted, oldest first. Those marked “Conflict” overlap another partner's work: resolve the conflict before approving.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4, lg: 5 }} spacing="xs" verticalSpacing="xs">
          <Select label="Status" placeholder="Any" clearable data={statuses} value={status || null} onChange={(v) => { set('status', v); }} />
          {canPartners && (
            <PartnerSelect label="Partner" placeholder="Any" value={get('partnerId') || null} onChange={(v) => { set('partnerId', v || null); }} />
          )}
          {canPartners && (
            <Select label="Partner level" placeholder="Any" clearable
              data={[...new Set((levels.data ?? []).map((l) => l.name))]}
              value={get('level') || null} onChange={(v) => { set('level', v); }} />
          )}
          {stageOptions.length > 0 && (
            <Select label="Stage" placeholder="Any" clearable data={stageOptions}
              value={get('stageId') || null} onChange={(v) => { set('stageId', v); }} />
          )}
          {users.data && (
            <Select label="Owner" placeholder="Anyone" clearable searchable
              data={users.data.map((u) => ({ value: u.id, label: u.name || u.email }))}
              value={get('ownerUserId') || null} onChange={(v) => { set('ownerUserId', v); }} />
          )}
          <TextInput label="Currency" placeholder="EUR" maxLength={3} value={get('currency')}
            error={currencyOk ? undefined : 'Three letters, e.g. EUR'}
            onChange={(e) => { set('currency', e.currentTarget.value.toUpperCase()); }} />
          <TextInput label="Amount at least" inputMode="decimal" value={get('min')} error={min.error}
            onChange={(e) => { set('min', e.currentTarget.value); }} />
          <TextInput label="Amount at most" inputMode="decimal" value={get('max')} error={max.error}
            onChange={(e) => { set('max', e.currentTarget.value); }} />
          <TextInput label="Registered from" type="date" value={get('from')} onChange={(e) => { set('from', e.currentTarget.value); }} />
          <TextInput label="Registered until" type="date" value={get('to')} onChange={(e) => { set('to', e.currentTarget.value); }} />
        </SimpleGrid>
      )}
      {!review && hasListFilter(params) && (
        <Group justify="flex-end">
          <Button variant="subtle" size="xs" onClick={() => {
            setParams((p) => {
              const n = new URLSearchParams(p);
              for (const k of filterKeys) n.delete(k);
              return n;
            }, { replace: true });
          }}>Clear filters</Button>
        </Group>
      )}
      <PagedTable<Deal>
        label={review ? 'Registrations to review' : 'Deals'}
        queryKey={['deals', 'list', query]}
        fetchPage={(cursor) => listDeals({ ...query, cursor, limit: 25 })}
        columns={columns}
        rowKey={(d) => d.id}
        empty={review ? 'No registration waits for review.' : 'No deal matches these filters.'} />
    </Stack>
  );
}
