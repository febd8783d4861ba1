import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  Alert, Anchor, Button, Grid, Group, Modal, NativeSelect, Skeleton, Stack, Table, Text, Textarea, TextInput, Title, VisuallyHidden,
} from '@mantine/core';
import { api, ApiError, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { currencyDigits, decimalToMinor, formatBps, formatMoney } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { dayToISO, today, useIdempotencyKey, usePortalBalances } from '../../ui/portal';
import { PortalBalances } from '../../ui/PortalBalances';
import { PortalConfirm } from '../../ui/PortalConfirm';
import { StatusBadge } from '../../ui/StatusBadge';

type Withdrawal = Schemas['Withdrawal'];
type Accrual = Schemas['Accrual'];
type AccrualStatus = Accrual['status'];
const accrualStatuses: { value: AccrualStatus; label: string }[] = [
  { value: 'pending', label: 'Pending (held back)' }, { value: 'available', label: 'Available' }, { value: 'reversed', label: 'Reversed' },
];
type WithdrawalStatus = Withdrawal['status'];
const withdrawalStatuses: WithdrawalStatus[] = ['requested', 'approved', 'paid', 'rejected', 'cancelled', 'failed'];

const statementColumns = ['earned', 'available', 'pending', 'held', 'paid'];

const entryKinds: Record<string, string> = {
  accrual: 'Commission earned', release: 'Released from holding', clawback: 'Clawback', adjustment: 'Adjustment',
  withdrawal_hold: 'Held for a withdrawal', withdrawal_release: 'Withdrawal hold released', payout: 'Paid out',
};

/** The partner's payout methods, all of them (a partner has a handful). */
function usePayoutMethods(enabled: boolean) {
  return useQuery({
    queryKey: ['payout-methods', 'mine', 'all'],
    queryFn: async () => unwrap(await api.GET('/api/payout-methods', { params: { query: { limit: 100 } } })).data,
    enabled,
  });
}

interface RequestValues { currency: string; amount: string; payoutMethodId: string; account: 'commission' | 'mdf' }

function RequestForm({ balances, methods, onDone }: {
  balances: Schemas['Balance'][]; methods: Schemas['PayoutMethod'][]; onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const keyFor = useIdempotencyKey();
  const hasMdf = balances.some((b) => b.mdfAvailable > 0);
  const balanceOf = (currency: string, account: RequestValues['account']) => {
    const b = balances.find((x) => x.currency === currency);
    return (account === 'mdf' ? b?.mdfAvailable : b?.available) ?? 0;
  };
  const form = useForm<RequestValues>({
    initialValues: { currency: balances[0]?.currency ?? '', amount: '', payoutMethodId: methods[0]?.id ?? '', account: 'commission' },
    validate: {
      payoutMethodId: (v) => (v ? null : 'Choose where to be paid'),
      amount: (v, values) => {
        const minor = decimalToMinor(v, values.currency);
        const d = currencyDigits(values.currency);
        if (minor === null) return `Enter an amount like ${d ? `100.${'0'.repeat(d)}` : '100'} (at most ${String(d)} decimal${d === 1 ? '' : 's'})`;
        if (minor <= 0) return 'Enter an amount above zero';
        const max = balanceOf(values.currency, values.account);
        if (minor > max) return `More than your available balance of ${formatMoney(max, values.currency)}`;
        return null;
      },
    },
  });
  const request = useMutation({
    mutationFn: async (v: RequestValues) => {
      const body = { currency: v.currency, amount: decimalToMinor(v.amount, v.currency) ?? 0, payoutMethodId: v.payoutMethodId,
        ...(v.account === 'mdf' ? { account: v.account } : {}) };
      return unwrap(await api.POST('/api/withdrawals', { params: { header: { 'Idempotency-Key': keyFor(body) } }, body }));
    },
    onSuccess: async (w) => {
      notifications.show({ color: 'green', title: 'Withdrawal requested', message: `${formatMoney(w.amount, w.currency)} is held for you until the program pays it out.` });
      onDone();
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['withdrawals'] }),
        queryClient.invalidateQueries({ queryKey: ['ledger'] }),
      ]);
    },
    onError: (err) => {
      const errs = fieldErrors(err);
      // The balance and the program's minimum concern the amount: say so beside it.
      if (err instanceof ApiError && ['INSUFFICIENT_BALANCE', 'BALANCE_NEGATIVE', 'BELOW_MINIMUM_WITHDRAWAL'].includes(err.problem.code)) {
        if (!('amount' in errs)) errs.amount = err.message;
      }
      form.setErrors(errs);
    },
  });
  const amountByCode = request.error instanceof ApiError && !('amount' in fieldErrors(request.error)) && !!form.errors.amount;
  const currency = form.values.currency;
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { request.mutate(v); })}>
      <Stack>
        {!amountByCode && <ErrorAlert error={request.error} shownFields={['amount', 'currency', 'payoutMethodId']} />}
        <Grid>
          {hasMdf && (
            <Grid.Col span={12}>
              <NativeSelect label="Draw on" description="Commissions and marketing funds are withdrawn separately"
                data={[{ value: 'commission', label: 'Commissions' }, { value: 'mdf', label: 'Marketing funds (MDF balance)' }]} {...form.getInputProps('account')} />
            </Grid.Col>
          )}
          <Grid.Col span={{ base: 12, sm: 4 }}>
            <NativeSelect label="Currency" data={balances.map((b) => b.currency)} {...form.getInputProps('currency')} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 8 }}>
            <TextInput label="Amount" withAsterisk inputMode="decimal" data-autofocus
              description={<>Available: <Money minor={balanceOf(currency, form.values.account)} currency={currency} /></>}
              {...form.getInputProps('amount')} />
          </Grid.Col>
          <Grid.Col span={12}>
            <NativeSelect label="Pay to" {...form.getInputProps('payoutMethodId')}
              data={methods.map((m) => ({ value: m.id, label: `${m.label ? `${m.label} · ` : ''}${m.masked}` }))} />
          </Grid.Col>
        </Grid>
        <Text size="xs" c="dimmed">The amount is held from your available balance until the program approves and pays it; you can cancel while it is requested.</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={request.isPending}>Request withdrawal</Button>
        </Group>
      </Stack>
    </form>
  );
}

function RequestWithdrawal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const balances = usePortalBalances();
  const methods = usePayoutMethods(opened);
  const withBalance = balances.data?.data ?? [];
  return (
    <Modal lockScroll={false} opened={opened} onClose={onClose} title="Request a withdrawal" size="lg">
      {balances.isError && <ErrorAlert error={balances.error} />}
      {methods.isError && <ErrorAlert error={methods.error} />}
      {(balances.isPending || methods.isPending) ? <Skeleton height={120} />
        : withBalance.length === 0 ? <Alert color="blue">You have no balance to withdraw yet.</Alert>
        : (methods.data ?? []).length === 0 ? (
          <Alert color="blue" title="Add a payout method first">
            Tell us where to pay you: <Anchor component={Link} to="/portal/payout-methods">add a payout method</Anchor>.
          </Alert>
        ) : <RequestForm balances={withBalance} methods={methods.data ?? []} onDone={onClose} />}
    </Modal>
  );
}

function CancelWithdrawal({ w, onClose }: { w: Withdrawal | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const cancel = useMutation({
    mutationFn: async (x: Withdrawal) => unwrap(await api.POST('/api/withdrawals/{id}/cancel', { params: { path: { id: x.id } }, body: { reason: reason.trim() || undefined } })),
    onSuccess: async (x) => {
      setReason('');
      onClose();
      notifications.show({ color: 'green', message: `Withdrawal of ${formatMoney(x.amount, x.currency)} cancelled; the amount is available again.` });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['withdrawals'] }),
        queryClient.invalidateQueries({ queryKey: ['ledger'] }),
      ]);
    },
  });
  return (
    <PortalConfirm opened={w !== null} title="Cancel this withdrawal?" confirmLabel="Cancel withdrawal"
      loading={cancel.isPending} error={cancel.error}
      onClose={() => { cancel.reset(); onClose(); }} onConfirm={() => { if (w) cancel.mutate(w); }}>
      <Stack gap="xs">
        <Text size="sm">{w ? formatMoney(w.amount, w.currency) : ''} returns to your available balance.</Text>
        <Textarea label="Reason (optional)" autosize minRows={2} value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} />
      </Stack>
    </PortalConfirm>
  );
}

function Withdrawals() {
  const canWrite = useCan('withdrawals:write');
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const [requesting, setRequesting] = useState(false);
  const [cancelling, setCancelling] = useState<Withdrawal | null>(null);
  const methods = usePayoutMethods(true);
  const methodName = (id: string) => {
    const m = methods.data?.find((x) => x.id === id);
    return m ? `${m.label ? `${m.label} · ` : ''}${m.masked}` : 'Removed method';
  };
  const query = { status: withdrawalStatuses.includes(status as WithdrawalStatus) ? status as WithdrawalStatus : undefined };
  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={2} size="h4">Withdrawals</Title>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <NativeSelect label="Status" size="xs" value={status}
            onChange={(e) => { const v = e.currentTarget.value; setParams((p) => { if (v) p.set('status', v); else p.delete('status'); return p; }, { replace: true }); }}
            data={[{ value: '', label: 'All' }, ...withdrawalStatuses.map((s) => ({ value: s, label: s.charAt(0).toUpperCase() + s.slice(1) }))]} />
          {canWrite && <Button onClick={() => { setRequesting(true); }}>Request a withdrawal</Button>}
        </Group>
      </Group>
      <PagedTable<Withdrawal>
        label="Withdrawals"
        queryKey={['withdrawals', 'mine', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/withdrawals', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(w) => w.id}
        empty={status ? 'No withdrawals with this status.' : 'No withdrawals yet.'}
        columns={[
          { header: 'Requested', render: (w) => <DateTime value={w.createdAt} /> },
          { header: 'Amount', numeric: true, render: (w) => <Money minor={w.amount} currency={w.currency} /> },
          { header: 'Pay to', render: (w) => <Text size="sm">{methodName(w.payoutMethodId)}</Text> },
          { header: 'Status', render: (w) => (
            <Stack gap={0} miw="max-content">
              <StatusBadge status={w.status} />
              {w.reason && <Text size="xs" c="dimmed">{w.reason}</Text>}
            </Stack>
          ) },
          { header: 'Payout', render: (w) => w.payout ? (
            <Stack gap={0} miw="max-content">
              <StatusBadge status={w.payout.status} />
              {w.payout.reference && <Text size="xs">Ref. {w.payout.reference}</Text>}
              {w.payout.failure && <Text size="xs" c="red">{w.payout.failure}</Text>}
              {w.paidAt && <Text size="xs" c="dimmed"><DateTime value={w.paidAt} /></Text>}
            </Stack>
          ) : <Text size="sm" c="dimmed">{w.status === 'requested' ? 'Awaiting approval' : '—'}</Text> },
          ...(canWrite ? [{ header: <VisuallyHidden>Action</VisuallyHidden>, render: (w: Withdrawal) => w.status === 'requested' && (
            <Button size="xs" variant="subtle" color="red" aria-label={`Cancel withdrawal of ${formatMoney(w.amount, w.currency)}`}
              onClick={() => { setCancelling(w); }}>Cancel</Button>
          ) }] : []),
        ]}
      />
      {canWrite && <RequestWithdrawal opened={requesting} onClose={() => { setRequesting(false); }} />}
      {canWrite && <CancelWithdrawal w={cancelling} onClose={() => { setCancelling(null); }} />}
    </Stack>
  );
}

/**
 * The deal a commission was earned on: its customer, linked to the deal's page, when the
 * commission's reference names one of the partner's deals; else the reference as it is.
 */
function DealRef({ reference }: { reference: string | undefined }) {
  const canDeals = useCan('deals:read');
  const looksLikeId = !!reference && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(reference);
  const deal = useQuery({
    queryKey: ['deals', reference],
    queryFn: async () => unwrap(await api.GET('/api/deals/{id}', { params: { path: { id: reference ?? '' } } })),
    enabled: canDeals && looksLikeId,
    retry: false,
    staleTime: 60_000,
  });
  if (!reference) return <Text size="sm" c="dimmed">—</Text>;
  if (deal.data) return <Anchor component={Link} to={`/portal/deals/${deal.data.id}`} size="sm">{deal.data.customerCompany}</Anchor>;
  return <Text size="sm" ff="monospace" title={reference}>{reference.length > 14 ? `…${reference.slice(-12)}` : reference}</Text>;
}

/** Commissions per deal: each accrual the plans booked for the partner, newest first. */
function Commissions() {
  const [status, setStatus] = useState('');
  const query = { status: accrualStatuses.some((s) => s.value === status) ? status as AccrualStatus : undefined };
  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={2} size="h4">Commissions per deal</Title>
        <NativeSelect label="Commission status" size="xs" value={status} onChange={(e) => { setStatus(e.currentTarget.value); }}
          data={[{ value: '', label: 'All' }, ...accrualStatuses]} />
      </Group>
      <PagedTable<Accrual>
        label="Commissions"
        queryKey={['ledger', 'accruals', 'mine', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/ledger/accruals', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(a) => a.id}
        empty={status ? 'No commissions with this status.' : 'No commissions yet: they are booked here when your deals are won.'}
        columns={[
          { header: 'Earned', render: (a) => <DateTime value={a.createdAt} /> },
          { header: 'Deal', render: (a) => <DealRef reference={a.reference} /> },
          { header: 'Deal value', numeric: true, render: (a) => <Money minor={a.sourceAmount} currency={a.currency} /> },
          { header: 'Rate', numeric: true, render: (a) => (a.rateBps ? formatBps(a.rateBps) : 'Flat') },
          { header: 'Commission', numeric: true, render: (a) => <Text size="sm" fw={600} span><Money minor={a.amount} currency={a.currency} /></Text> },
          { header: 'Status', render: (a) => (
            <Stack gap={0} miw="max-content">
              <StatusBadge status={a.status} />
              {a.reversalReason && <Text size="xs" c="dimmed">{a.reversalReason}</Text>}
            </Stack>
          ) },
          { header: 'Available', render: (a) => a.status === 'reversed'
            ? <Text size="sm" c="dimmed">—</Text>
            : <Stack gap={0} miw="max-content">
              <DateTime value={a.releasedAt ?? a.availableAt} />
              {a.status === 'pending' && <Text size="xs" c="dimmed">held back until then</Text>}
            </Stack> },
        ]}
      />
    </Stack>
  );
}

/** A statement for a period in one currency: opening and closing balances and every entry. */
function Statement() {
  const balances = usePortalBalances();
  const currencies = (balances.data?.data ?? []).map((b) => b.currency);
  const [currency, setCurrency] = useState('');
  const [from, setFrom] = useState(() => today().slice(0, 8) + '01');
  const [to, setTo] = useState(() => today());
  const cur = currency || currencies[0] || '';
  const query = { currency: cur, from: dayToISO(from), to: dayToISO(to, true) };
  const statement = useQuery({
    queryKey: ['ledger', 'statement', query],
    // JSON unless format=csv is asked for.
    queryFn: async () => unwrap(await api.GET('/api/ledger/statement', { params: { query } })) as Schemas['Statement'],
    enabled: !!cur,
  });
  const csv = useMutation({
    mutationFn: async () => {
      const { data, error, response } = await api.GET('/api/ledger/statement', { params: { query: { ...query, format: 'csv' } }, parseAs: 'blob' });
      unwrap({ data, error, response });
      return data as Blob;
    },
    onSuccess: (blob) => {
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `statement-${cur}-${from}-${to}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
    },
  });
  const s = statement.data;
  const balanceRow = (label: string, b: Schemas['Balance'] | undefined) => (
    <Table.Tr fw={600}>
      <Table.Td colSpan={2}>{label}</Table.Td>
      {[b?.totalEarned, b?.available, b?.pending, b?.held, b?.paid].map((v, i) => <Table.Td key={i} ta="right"><Money minor={v} currency={cur} /></Table.Td>)}
    </Table.Tr>
  );
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">Statement</Title>
      {currencies.length === 0 && balances.isSuccess ? <Text c="dimmed" size="sm">No statement yet: nothing has been booked for you.</Text> : (
        <>
          <Group gap="sm" align="flex-end" wrap="wrap">
            <NativeSelect label="Currency" data={currencies} value={cur} onChange={(e) => { setCurrency(e.currentTarget.value); }} />
            <TextInput type="date" label="From" value={from} max={to} onChange={(e) => { setFrom(e.currentTarget.value); }} />
            <TextInput type="date" label="To (inclusive)" value={to} min={from} onChange={(e) => { setTo(e.currentTarget.value); }} />
            <Button variant="default" onClick={() => { csv.mutate(); }} loading={csv.isPending} disabled={!cur}>Download CSV</Button>
          </Group>
          <ErrorAlert error={csv.error ?? statement.error} />
          <Table.ScrollContainer minWidth={720}
            scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Statement, scrolls sideways' } }}>
            <Table aria-label="Statement" aria-busy={statement.isFetching} striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th><Table.Th>Entry</Table.Th>
                  <Table.Th ta="right">Earned</Table.Th><Table.Th ta="right">Available</Table.Th><Table.Th ta="right">Pending</Table.Th>
                  <Table.Th ta="right">Held</Table.Th><Table.Th ta="right">Paid out</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {statement.isPending && cur && <Table.Tr><Table.Td colSpan={7}><Skeleton height={14} /></Table.Td></Table.Tr>}
                {s && balanceRow('Opening balance', s.opening)}
                {s?.entries.map((e) => {
                  const col = statementColumns.indexOf(e.account);
                  // The earned account books a credit to the partner as a negative amount.
                  const amount = e.account === 'earned' ? -e.amount : e.amount;
                  return (
                    <Table.Tr key={e.id}>
                      <Table.Td><DateTime value={e.createdAt} /></Table.Td>
                      <Table.Td>{entryKinds[e.kind] ?? e.kind}</Table.Td>
                      {statementColumns.map((c, i) => <Table.Td key={c} ta="right">{i === col ? <Money minor={amount} currency={e.currency} /> : ''}</Table.Td>)}
                    </Table.Tr>
                  );
                })}
                {s?.entries.length === 0 && <Table.Tr><Table.Td colSpan={7}><Text c="dimmed" ta="center" size="sm">No entries in this period.</Text></Table.Td></Table.Tr>}
                {s && balanceRow('Closing balance', s.closing)}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}

/** The partner's money: balances, commissions per deal, withdrawals and statements. */
export default function MoneyPage() {
  const canWithdrawals = useCan('withdrawals:read');
  return (
    <Stack gap="lg">
      <PageHeader title="Money" description="What you earned, what you can withdraw, and where it went." />
      <Stack gap="xs">
        <Title order={2} size="h4">Balances</Title>
        <PortalBalances />
      </Stack>
      <Commissions />
      {canWithdrawals && <Withdrawals />}
      <Statement />
    </Stack>
  );
}
