import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Anchor, Group, Select, Stack } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { CurrencySelect, MoneyStatus, PartnerName, PartnerSelect, PersonName } from './money/shared';

type Withdrawal = Schemas['Withdrawal'];
const statuses = ['requested', 'approved', 'rejected', 'cancelled', 'paid', 'failed'] as const;

/** Finance's queue of partners' withdrawal requests and their payouts. */
export default function Withdrawals() {
  const [params, setParams] = useSearchParams();
  const status = params.has('status') ? params.get('status') || null : 'requested';
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [currency, setCurrency] = useState<string | null>(null);
  return (
    <Stack>
      <PageHeader title="Withdrawals" description="Partners ask to be paid out of their available balance; someone other than the requester approves, then the payout runs." />
      <Group align="flex-end">
        <Select label="Status" clearable placeholder="Any status" value={status}
          onChange={(v) => { setParams({ status: v ?? '' }, { replace: true }); }}
          data={statuses.map((s) => ({ value: s, label: s.charAt(0).toUpperCase() + s.slice(1) }))} />
        <PartnerSelect label="Partner" value={partnerId} onChange={setPartnerId} />
        <CurrencySelect label="Currency" clearable placeholder="Any currency" value={currency} onChange={setCurrency} />
      </Group>
      <PagedTable<Withdrawal>
        label="Withdrawals"
        queryKey={['withdrawals', 'list', { status, partnerId, currency }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/withdrawals', { params: { query: {
          cursor, limit: 25, status: (status ?? undefined) as Withdrawal['status'] | undefined,
          partnerId: partnerId ?? undefined, currency: currency ?? undefined,
        } } }))}
        rowKey={(w) => w.id}
        empty={status === 'requested' ? 'Nothing waits for approval.' : 'No withdrawals match.'}
        columns={[
          { header: 'Requested', render: (w) => <Anchor component={Link} to={`/withdrawals/${w.id}`}><DateTime value={w.createdAt} /></Anchor> },
          { header: 'Partner', render: (w) => <PartnerName id={w.partnerId} /> },
          { header: 'Amount', numeric: true, render: (w) => <Money minor={w.amount} currency={w.currency} /> },
          { header: 'Status', render: (w) => <MoneyStatus status={w.status} /> },
          { header: 'Payout', render: (w) => (w.payout ? <MoneyStatus status={w.payout.status} /> : '—') },
          { header: 'Requested by', render: (w) => <PersonName id={w.requestedBy} /> },
          { header: 'Reviewed by', render: (w) => (w.reviewedBy ? <PersonName id={w.reviewedBy} /> : '—') },
        ]}
      />
    </Stack>
  );
}
