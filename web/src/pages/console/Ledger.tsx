import { useState } from 'react';
import { useSearchParams } from 'react-router';
import {
  Button, Card, Group, Modal, Select, SimpleGrid, Stack, Table, Tabs, Text, TextInput, Textarea, Title, VisuallyHidden,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, idempotencyKey, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { decimalToMinor, formatMoney, localInputToISO } from '../../ui/format';
import { dayToISO, today } from '../../ui/portal';
import { CurrencySelect, MoneyStatus, PartnerName, PartnerSelect, PersonName } from './money/shared';
import { accountLabels, formatBps, kindLabels } from './money/util';

type Balance = Schemas['Balance'];
type Accrual = Schemas['Accrual'];
type Entry = Schemas['LedgerEntry'];
type Statement = Schemas['Statement'];

const accounts = ['earned', 'pending', 'available', 'held', 'paid'] as const;
const kinds = ['accrual', 'release', 'clawback', 'adjustment', 'withdrawal_hold', 'withdrawal_release', 'payout'] as const;
const sourceTypes = ['event', 'accrual', 'withdrawal', 'payout', 'adjustment'] as const;

/** The tenant's commission plans (up to 100), for the accruals filter. */
function usePlans() {
  return useQuery({
    queryKey: ['commission-plans', 'picker'],
    enabled: useCan('commissions:read'),
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/api/commission-plans', { params: { query: { limit: 100 } } })).data,
  });
}

function PlanName({ id }: { id: string }) {
  const plans = usePlans();
  return <span title={id}>{plans.data?.find((p) => p.id === id)?.name ?? id}</span>;
}

/** Every partner's balance per currency, on the four accounts money moves through. */
function BalancesTab() {
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [currency, setCurrency] = useState<string | null>(null);
  return (
    <Stack>
      <Group align="flex-end">
        <PartnerSelect label="Partner" value={partnerId} onChange={setPartnerId} />
        <CurrencySelect label="Currency" clearable placeholder="Any currency" value={currency} onChange={setCurrency} />
      </Group>
      <PagedTable<Balance>
        label="Balances"
        queryKey={['ledger', 'balances', { partnerId, currency }]}
        fetchPage={async () => ({
          ...unwrap(await api.GET('/api/ledger/balances', { params: { query: { partnerId: partnerId ?? undefined, currency: currency ?? undefined } } })),
          nextCursor: '',
        })}
        rowKey={(b) => `${b.partnerId}:${b.currency}`}
        empty="No balances: nothing has been booked for these partners yet."
        columns={[
          { header: 'Partner', render: (b) => <PartnerName id={b.partnerId} /> },
          { header: 'Currency', render: (b) => b.currency },
          { header: 'Pending', numeric: true, render: (b) => <Money minor={b.pending} currency={b.currency} /> },
          { header: 'Available', numeric: true, render: (b) => <Money minor={b.available} currency={b.currency} /> },
          { header: 'Held', numeric: true, render: (b) => <Money minor={b.held} currency={b.currency} /> },
          { header: 'Paid', numeric: true, render: (b) => <Money minor={b.paid} currency={b.currency} /> },
          { header: 'Total earned', numeric: true, render: (b) => <Money minor={b.totalEarned} currency={b.currency} /> },
        ]}
      />
      <Text size="xs" c="dimmed">Pending + available + held + paid = total earned, for every partner and currency.</Text>
    </Stack>
  );
}

/** Commissions booked by the plans; finance may reverse one with a reason. */
function AccrualsTab() {
  const queryClient = useQueryClient();
  const canWrite = useCan('ledger:write');
  const plans = usePlans();
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [planId, setPlanId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [currency, setCurrency] = useState<string | null>(null);
  const [reversing, setReversing] = useState<Accrual | null>(null);
  const [reason, setReason] = useState('');
  const reverse = useMutation({
    mutationFn: async (a: Accrual) => unwrap(await api.POST('/api/ledger/accruals/{id}/reverse', { params: { path: { id: a.id } }, body: { reason: reason.trim() } })),
    onSuccess: async (a) => {
      setReversing(null);
      notifications.show({ color: 'green', message: `Reversed the accrual of ${formatMoney(a.amount, a.currency)}` });
      await queryClient.invalidateQueries({ queryKey: ['ledger'] });
    },
  });
  return (
    <Stack>
      <Group align="flex-end">
        <PartnerSelect label="Partner" value={partnerId} onChange={setPartnerId} />
        <Select label="Plan" clearable searchable placeholder="Any plan" value={planId} onChange={setPlanId}
          data={(plans.data ?? []).map((p) => ({ value: p.id, label: p.name }))} />
        <Select label="Status" clearable placeholder="Any status" value={status} onChange={setStatus}
          data={[{ value: 'pending', label: 'Pending' }, { value: 'available', label: 'Available' }, { value: 'reversed', label: 'Reversed' }]} />
        <CurrencySelect label="Currency" clearable placeholder="Any currency" value={currency} onChange={setCurrency} />
      </Group>
      <PagedTable<Accrual>
        label="Accruals"
        queryKey={['ledger', 'accruals', { partnerId, planId, status, currency }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/ledger/accruals', { params: { query: {
          cursor, limit: 25, partnerId: partnerId ?? undefined, planId: planId ?? undefined,
          status: (status ?? undefined) as Accrual['status'] | undefined, currency: currency ?? undefined,
        } } }))}
        rowKey={(a) => a.id}
        empty="No accruals match."
        columns={[
          { header: 'Booked', render: (a) => <DateTime value={a.createdAt} /> },
          { header: 'Partner', render: (a) => <PartnerName id={a.partnerId} /> },
          { header: 'Plan', render: (a) => <><PlanName id={a.planId} /> v{a.planVersion}</> },
          { header: 'Source', numeric: true, render: (a) => <Money minor={a.sourceAmount} currency={a.currency} /> },
          { header: 'Rate', numeric: true, render: (a) => (a.rateBps ? formatBps(a.rateBps) : 'flat') },
          { header: 'Commission', numeric: true, render: (a) => <Money minor={a.amount} currency={a.currency} /> },
          { header: 'Status', render: (a) => <Stack gap={0}><MoneyStatus status={a.status} />{a.reversalReason && <Text size="xs" c="dimmed">{a.reversalReason}</Text>}</Stack> },
          { header: 'Available', render: (a) => <DateTime value={a.releasedAt ?? a.availableAt} /> },
          ...(canWrite ? [{ header: <VisuallyHidden>Actions</VisuallyHidden>, render: (a: Accrual) => a.status !== 'reversed' && (
            <Button size="xs" variant="light" color="red" onClick={() => { setReason(''); reverse.reset(); setReversing(a); }}>Reverse</Button>
          ) }] : []),
        ]}
      />
      <Modal lockScroll={false} opened={reversing !== null} onClose={() => { setReversing(null); }} title="Reverse this accrual?">
        {reversing && (
          <form onSubmit={(e) => { e.preventDefault(); if (reason.trim()) reverse.mutate(reversing); }}>
            <Stack>
              <Text size="sm">
                Claws back <Money minor={reversing.amount} currency={reversing.currency} /> from <PartnerName id={reversing.partnerId} />:
                from pending while it is held back, otherwise from available, which may go negative if it was paid out already.
              </Text>
              <Textarea label="Reason" required autosize minRows={2} value={reason} onChange={(e) => { setReason(e.currentTarget.value); }}
                error={fieldErrors(reverse.error).reason} data-autofocus />
              <ErrorAlert error={reverse.error} shownFields={['reason']} />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => { setReversing(null); }}>Cancel</Button>
                <Button type="submit" color="red" disabled={!reason.trim()} loading={reverse.isPending}>Reverse accrual</Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>
    </Stack>
  );
}

/** Every ledger entry, with all the filters the ledger offers. */
function EntriesTab() {
  const [f, setF] = useState<{ partnerId: string | null; currency: string | null; account: string | null; kind: string | null; sourceType: string | null; sourceId: string; from: string; to: string }>(
    { partnerId: null, currency: null, account: null, kind: null, sourceType: null, sourceId: '', from: '', to: '' });
  const set = (k: keyof typeof f) => (v: string | null) => { setF((o) => ({ ...o, [k]: v })); };
  const query = {
    partnerId: f.partnerId ?? undefined, currency: f.currency ?? undefined,
    account: (f.account ?? undefined) as Entry['account'] | undefined, kind: (f.kind ?? undefined) as Entry['kind'] | undefined,
    sourceType: (f.sourceType ?? undefined) as Entry['sourceType'] | undefined, sourceId: f.sourceId.trim() || undefined,
    from: localInputToISO(f.from), to: localInputToISO(f.to),
  };
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <PartnerSelect label="Partner" value={f.partnerId} onChange={set('partnerId')} />
        <CurrencySelect label="Currency" clearable placeholder="Any currency" value={f.currency} onChange={set('currency')} />
        <Select label="Account" clearable placeholder="Any account" value={f.account} onChange={set('account')}
          data={accounts.map((a) => ({ value: a, label: accountLabels[a] ?? a }))} />
        <Select label="Movement" clearable placeholder="Any movement" value={f.kind} onChange={set('kind')}
          data={kinds.map((k) => ({ value: k, label: kindLabels[k] ?? k }))} />
        <Select label="Source type" clearable placeholder="Any source" value={f.sourceType} onChange={set('sourceType')}
          data={sourceTypes.map((s) => ({ value: s, label: s }))} />
        <TextInput label="Source id" value={f.sourceId} onChange={(e) => { set('sourceId')(e.currentTarget.value); }} />
        <TextInput type="datetime-local" label="Booked from" value={f.from} onChange={(e) => { set('from')(e.currentTarget.value); }} />
        <TextInput type="datetime-local" label="Booked before" value={f.to} onChange={(e) => { set('to')(e.currentTarget.value); }} />
      </SimpleGrid>
      <PagedTable<Entry>
        label="Ledger entries"
        queryKey={['ledger', 'entries', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/ledger/entries', { params: { query: { ...query, cursor, limit: 50 } } }))}
        rowKey={(e) => e.id}
        empty="No entries match."
        columns={entryColumns(true)}
      />
    </Stack>
  );
}

function entryColumns(withPartner: boolean) {
  return [
    { header: 'Booked', render: (e: Entry) => <DateTime value={e.createdAt} /> },
    ...(withPartner ? [{ header: 'Partner', render: (e: Entry) => <PartnerName id={e.partnerId} /> }] : []),
    { header: 'Movement', render: (e: Entry) => kindLabels[e.kind] ?? e.kind },
    { header: 'Account', render: (e: Entry) => accountLabels[e.account] ?? e.account },
    { header: 'Amount', numeric: true, render: (e: Entry) => <Money minor={e.amount} currency={e.currency} /> },
    { header: 'Source', render: (e: Entry) => <Text size="xs" ff="monospace" title={e.sourceId}>{e.sourceType} …{e.sourceId.slice(-8)}</Text> },
    { header: 'By', render: (e: Entry) => (e.createdBy ? <PersonName id={e.createdBy} /> : 'system') },
  ];
}

function BalanceRow({ label, b }: { label: string; b: Balance }) {
  return (
    <Table.Tr>
      <Table.Th scope="row">{label}</Table.Th>
      {(['pending', 'available', 'held', 'paid', 'totalEarned'] as const).map((k) => (
        <Table.Td key={k} ta="right"><Money minor={b[k]} currency={b.currency} /></Table.Td>
      ))}
    </Table.Tr>
  );
}

/** A partner's statement for a period: opening and closing balances and every entry between. */
function StatementTab() {
  // Days in the viewer's time zone: the period runs from the first day's start to the last day's end.
  const monthStart = `${today().slice(0, 8)}01`;
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [currency, setCurrency] = useState<string | null>('EUR');
  const [from, setFrom] = useState(monthStart);
  const [to, setTo] = useState(today());
  const [asked, setAsked] = useState<{ partnerId: string; currency: string; from?: string; to?: string } | null>(null);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const [downloading, setDownloading] = useState(false);

  const statement = useQuery({
    queryKey: ['ledger', 'statement', asked],
    enabled: asked !== null,
    queryFn: async () => {
      if (!asked) throw new Error('no statement asked');
      return unwrap(await api.GET('/api/ledger/statement', { params: { query: { ...asked, format: 'json' } } })) as Statement;
    },
  });

  const show = (e: React.SyntheticEvent) => {
    e.preventDefault();
    if (!partnerId || !currency) return;
    setAsked({ partnerId, currency, from: dayToISO(from), to: dayToISO(to, true) });
  };

  const download = async () => {
    if (!asked) return;
    setDownloading(true);
    setDownloadError(null);
    try {
      const blob: Blob = unwrap(await api.GET('/api/ledger/statement', { params: { query: { ...asked, format: 'csv' } }, parseAs: 'blob' }));
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `statement-${asked.currency}-${from}-${to}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
    } catch (err) {
      setDownloadError(err);
    } finally {
      setDownloading(false);
    }
  };

  const s = statement.data;
  return (
    <Stack>
      <form onSubmit={show}>
        <Group align="flex-end">
          <PartnerSelect label="Partner" required clearable={false} placeholder="Pick a partner" value={partnerId} onChange={setPartnerId} />
          <CurrencySelect label="Currency" required allowDeselect={false} value={currency} onChange={setCurrency} />
          <TextInput type="date" label="From (UTC)" value={from} onChange={(e) => { setFrom(e.currentTarget.value); }} />
          <TextInput type="date" label="To, inclusive (UTC)" value={to} onChange={(e) => { setTo(e.currentTarget.value); }} />
          <Button type="submit" disabled={!partnerId || !currency}>Show statement</Button>
        </Group>
      </form>
      {!asked && <Text c="dimmed" size="sm">Pick a partner, a currency and a period.</Text>}
      <ErrorAlert error={statement.error} />
      {statement.isFetching && !s && <Text size="sm" c="dimmed">Loading the statement…</Text>}
      {s && (
        <Card withBorder>
          <Group justify="space-between" mb="sm">
            <Title order={2} size="h4"><PartnerName id={s.partnerId} /> · {s.currency} · <DateTime value={s.from} /> to <DateTime value={s.to} /></Title>
            <Button variant="light" loading={downloading} onClick={() => { void download(); }}>Download CSV</Button>
          </Group>
          <ErrorAlert error={downloadError} />
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Opening and closing balances">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Balance</Table.Th>
                  <Table.Th ta="right">Pending</Table.Th><Table.Th ta="right">Available</Table.Th><Table.Th ta="right">Held</Table.Th>
                  <Table.Th ta="right">Paid</Table.Th><Table.Th ta="right">Total earned</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                <BalanceRow label="Opening" b={s.opening} />
                <BalanceRow label="Closing" b={s.closing} />
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Title order={3} size="h5" mt="md" mb="xs">Entries ({s.entries.length})</Title>
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label="Statement entries">
              <Table.Thead>
                <Table.Tr>{entryColumns(false).map((c, i) => <Table.Th key={i} ta={c.numeric ? 'right' : undefined}>{c.header}</Table.Th>)}</Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {s.entries.length === 0 && <Table.Tr><Table.Td colSpan={6}><Text c="dimmed" ta="center">No entries in this period.</Text></Table.Td></Table.Tr>}
                {s.entries.map((e) => (
                  <Table.Tr key={e.id}>{entryColumns(false).map((c, i) => <Table.Td key={i} ta={c.numeric ? 'right' : undefined}>{c.render(e)}</Table.Td>)}</Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
    </Stack>
  );
}

interface AdjustValues { partnerId: string | null; currency: string | null; amount: string; reason: string }

/** Finance's manual correction of a partner's available balance. */
function AdjustTab() {
  const queryClient = useQueryClient();
  const [key, setKey] = useState(idempotencyKey);
  const form = useForm<AdjustValues>({
    initialValues: { partnerId: null, currency: 'EUR', amount: '', reason: '' },
    validate: {
      partnerId: (v) => (v ? null : 'Pick a partner'),
      currency: (v) => (v ? null : 'Pick a currency'),
      amount: (v, all) => {
        const m = decimalToMinor(v, all.currency ?? 'EUR');
        return m === null ? `Enter an amount in ${all.currency ?? 'EUR'}, negative to debit` : m === 0 ? 'Not zero' : null;
      },
      reason: (v) => (v.trim() ? null : 'Say why: it is recorded in the ledger and the audit log'),
    },
  });
  const adjust = useMutation({
    mutationFn: async (v: AdjustValues) => unwrap(await api.POST('/api/ledger/adjustments', {
      params: { header: { 'Idempotency-Key': key } },
      body: { partnerId: v.partnerId ?? '', currency: v.currency ?? '', amount: decimalToMinor(v.amount, v.currency ?? 'EUR') ?? 0, reason: v.reason.trim() },
    })),
    onSuccess: async (m) => {
      const credit = m.entries.find((e) => e.account === 'available');
      notifications.show({ color: 'green', title: 'Adjustment booked', message: credit ? `Available balance ${credit.amount > 0 ? 'credited' : 'debited'}` : 'Booked' });
      form.reset();
      setKey(idempotencyKey());
      await queryClient.invalidateQueries({ queryKey: ['ledger'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Card withBorder maw={640}>
      <form onSubmit={form.onSubmit((v) => { adjust.mutate(v); })} noValidate>
        <Stack>
          <Text size="sm" c="dimmed">A positive amount credits the partner’s available balance (from earned), a negative one debits it; it may go negative. Adjustments cannot be edited: correct one with another.</Text>
          <PartnerSelect label="Partner" required clearable={false} placeholder="Pick a partner" {...form.getInputProps('partnerId')}
            value={form.values.partnerId || null} onChange={(id) => { form.setFieldValue('partnerId', id ?? ''); }} />
          <CurrencySelect label="Currency" required allowDeselect={false} {...form.getInputProps('currency')} />
          <TextInput label="Amount" required inputMode="decimal" description="e.g. 250.00 to credit, -40 to debit" {...form.getInputProps('amount')} />
          <Textarea label="Reason" required autosize minRows={2} {...form.getInputProps('reason')} />
          <ErrorAlert error={adjust.error} shownFields={['partnerId', 'currency', 'amount', 'reason']} />
          <Group justify="flex-end"><Button type="submit" loading={adjust.isPending}>Book adjustment</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}

/** The ledger: balances, accruals, entries, statements and manual adjustments. */
export default function Ledger() {
  const canWrite = useCan('ledger:write');
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') ?? 'balances';
  return (
    <Stack>
      <PageHeader title="Ledger" description="Double-entry and append-only: corrections are new movements, never edits." />
      <Tabs value={tab} onChange={(t) => { setParams(t && t !== 'balances' ? { tab: t } : {}, { replace: true }); }} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="balances">Balances</Tabs.Tab>
          <Tabs.Tab value="accruals">Accruals</Tabs.Tab>
          <Tabs.Tab value="entries">Entries</Tabs.Tab>
          <Tabs.Tab value="statement">Statements</Tabs.Tab>
          {canWrite && <Tabs.Tab value="adjust">Adjustment</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="balances"><BalancesTab /></Tabs.Panel>
        <Tabs.Panel value="accruals"><AccrualsTab /></Tabs.Panel>
        <Tabs.Panel value="entries"><EntriesTab /></Tabs.Panel>
        <Tabs.Panel value="statement"><StatementTab /></Tabs.Panel>
        {canWrite && <Tabs.Panel value="adjust"><AdjustTab /></Tabs.Panel>}
      </Tabs>
    </Stack>
  );
}
