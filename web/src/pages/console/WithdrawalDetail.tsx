import { useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  Alert, Anchor, Button, Card, Group, Loader, Modal, SimpleGrid, Stack, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { formatMoney } from '../../ui/format';
import { MoneyStatus, PartnerName, PersonName } from './money/shared';
import { Field } from '../../ui/Field';

type Withdrawal = Schemas['Withdrawal'];

function PayoutMethod({ id }: { id: string }) {
  const m = useQuery({
    queryKey: ['payout-methods', id],
    queryFn: async () => unwrap(await api.GET('/api/payout-methods/{id}', { params: { path: { id } } })),
    retry: false,
  });
  if (m.isPending) return <span>…</span>;
  if (m.isError) return <span title={id}>{m.error.message}</span>;
  return <span>{m.data.label ? `${m.data.label} · ` : ''}{m.data.kind} {m.data.masked}</span>;
}

interface ReasonProps {
  opened: boolean; title: string; label: string; action: string; color?: string; text: React.ReactNode;
  onClose: () => void; onSubmit: (value: string) => void; pending: boolean; error: unknown;
}

/** A reason or reference asked for before an action that needs one (rejecting, settling a payout). */
function ReasonModal(props: ReasonProps) {
  return (
    <Modal lockScroll={false} opened={props.opened} onClose={props.onClose} title={props.title}>
      {props.opened && <ReasonForm {...props} />}
    </Modal>
  );
}

function ReasonForm({ label, action, color, text, onClose, onSubmit, pending, error }: ReasonProps) {
  const [value, setValue] = useState('');
  const field = label === 'Reference' ? 'reference' : 'reason';
  return (
    <form onSubmit={(e) => { e.preventDefault(); if (value.trim()) onSubmit(value.trim()); }}>
      <Stack>
        <Text size="sm">{text}</Text>
        {field === 'reference'
          ? <TextInput label={label} required value={value} onChange={(e) => { setValue(e.currentTarget.value); }} error={fieldErrors(error)[field]} data-autofocus />
          : <Textarea label={label} required autosize minRows={2} value={value} onChange={(e) => { setValue(e.currentTarget.value); }} error={fieldErrors(error)[field]} data-autofocus />}
        <ErrorAlert error={error} shownFields={[field]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Cancel</Button>
          <Button type="submit" color={color} disabled={!value.trim()} loading={pending}>{action}</Button>
        </Group>
      </Stack>
    </form>
  );
}

/** One withdrawal: who asked, who reviewed, its payout; approval under the four-eyes rule. */
export default function WithdrawalDetail() {
  const { id = '' } = useParams();
  const me = useMe();
  const queryClient = useQueryClient();
  const canApprove = useCan('withdrawals:approve');
  const [dialog, setDialog] = useState<'approve' | 'reject' | 'confirm' | 'fail' | null>(null);

  const w = useQuery({
    queryKey: ['withdrawals', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/withdrawals/{id}', { params: { path: { id } } })),
    // A payout settles in the background: watch it until it does.
    refetchInterval: (q) => (q.state.data?.status === 'approved' ? 2000 : false),
  });
  const canBalances = useCan('ledger:read');
  const balance = useQuery({
    queryKey: ['ledger', 'balances', { partnerId: w.data?.partnerId, currency: w.data?.currency }],
    enabled: canBalances && !!w.data && w.data.status === 'requested',
    queryFn: async () => unwrap(await api.GET('/api/ledger/balances', { params: { query: { partnerId: w.data?.partnerId, currency: w.data?.currency } } })).data[0] ?? null,
  });

  const done = async (message: string) => {
    setDialog(null);
    notifications.show({ color: 'green', message });
    await queryClient.invalidateQueries({ queryKey: ['withdrawals'] });
    await queryClient.invalidateQueries({ queryKey: ['ledger'] });
  };
  const approve = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/withdrawals/{id}/approve', { params: { path: { id } } })),
    onSuccess: () => done('Approved: the payout has started'),
    onError: () => { setDialog(null); },
  });
  const reject = useMutation({
    mutationFn: async (reason: string) => unwrap(await api.POST('/api/withdrawals/{id}/reject', { params: { path: { id } }, body: { reason } })),
    onSuccess: () => done('Rejected: the held funds are available to the partner again'),
  });
  const confirm = useMutation({
    mutationFn: async (reference: string) => unwrap(await api.POST('/api/withdrawals/{id}/confirm-payout', { params: { path: { id } }, body: { reference } })),
    onSuccess: () => done('Payout confirmed: the withdrawal is marked paid shortly'),
  });
  const fail = useMutation({
    mutationFn: async (reason: string) => unwrap(await api.POST('/api/withdrawals/{id}/fail-payout', { params: { path: { id } }, body: { reason } })),
    onSuccess: () => done('Payout failed: the funds return to the partner’s available balance shortly'),
  });

  if (w.isPending) return <Loader role="status" aria-label="Loading withdrawal" />;
  if (w.isError) return <Stack><PageHeader title="Withdrawal" /><ErrorAlert error={w.error} /></Stack>;
  const d: Withdrawal = w.data;
  const amount = formatMoney(d.amount, d.currency);
  const ownRequest = !!me.data?.userId && d.requestedBy === me.data.userId;
  const requested = d.status === 'requested';
  const negative = balance.data && balance.data.available < 0;
  const p = d.payout;
  const awaitingDecision = d.status === 'approved' && p?.provider === 'manual' && p.status === 'pending';

  return (
    <Stack>
      <Anchor component={Link} to="/withdrawals" size="sm">← Withdrawals</Anchor>
      <PageHeader title={`Withdrawal of ${amount}`} description={<><PartnerName id={d.partnerId} /> · requested <DateTime value={d.createdAt} /></>}
        actions={canApprove && requested && <>
          <Button color="green" disabled={ownRequest} aria-describedby={ownRequest ? 'four-eyes' : undefined}
            onClick={() => { approve.reset(); setDialog('approve'); }}>Approve</Button>
          <Button color="red" variant="light" onClick={() => { reject.reset(); setDialog('reject'); }}>Reject</Button>
        </>} />
      <Group><MoneyStatus status={d.status} /></Group>
      {canApprove && requested && ownRequest && (
        <Alert color="yellow" title="Four-eyes rule" id="four-eyes" data-testid="four-eyes">
          You requested this withdrawal, so you cannot approve it: someone else with approval rights must.
        </Alert>
      )}
      {canApprove && requested && negative && (
        <Alert color="red" title="Balance negative">
          The partner’s available {d.currency} balance is <Money minor={balance.data?.available} currency={d.currency} /> after a clawback: approval is refused until an accrual or an adjustment recovers it.
        </Alert>
      )}
      <ErrorAlert error={approve.error} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
          <Field label="Amount"><Money minor={d.amount} currency={d.currency} /></Field>
          <Field label="Partner"><PartnerName id={d.partnerId} /></Field>
          <Field label="Payout method"><PayoutMethod id={d.payoutMethodId} /></Field>
          <Field label="Requested by"><PersonName id={d.requestedBy} /></Field>
          <Field label="Requested at"><DateTime value={d.createdAt} /></Field>
          {requested && balance.data && <Field label={`Available ${d.currency} balance`}><Money minor={balance.data.available} currency={d.currency} /> (held: <Money minor={balance.data.held} currency={d.currency} />)</Field>}
          <Field label="Reviewed by">{d.reviewedBy ? <PersonName id={d.reviewedBy} /> : 'Not yet'}</Field>
          <Field label="Reviewed at"><DateTime value={d.reviewedAt} /></Field>
          {d.reason && <Field label={d.status === 'failed' ? 'Why it failed' : d.status === 'cancelled' ? 'Why it was cancelled' : 'Why it was rejected'}>{d.reason}</Field>}
          {d.paidAt && <Field label="Paid at"><DateTime value={d.paidAt} /></Field>}
          {d.failedAt && <Field label="Failed at"><DateTime value={d.failedAt} /></Field>}
          {d.reference && <Field label="Payment reference">{d.reference}</Field>}
        </SimpleGrid>
      </Card>

      <Card withBorder>
        <Title order={2} size="h4" mb="sm">Payout</Title>
        {!p ? (
          <Text size="sm" c="dimmed">{requested ? 'A payout starts when the withdrawal is approved.' : 'No payout.'}</Text>
        ) : (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} data-testid="payout">
              <Field label="Provider">{p.provider === 'manual' ? 'Manual (finance confirms)' : 'HTTP provider'}</Field>
              <Field label="Payout status"><MoneyStatus status={p.status} /></Field>
              <Field label="Reference">{p.reference ?? '—'}</Field>
              <Field label="Attempts">{p.attempts}</Field>
              {p.failure && <Field label="Failure">{p.failure}</Field>}
            </SimpleGrid>
            {awaitingDecision && canApprove && (
              <Group>
                <Text size="sm">Paid it by bank transfer? Confirm with the bank’s reference, or report that it failed.</Text>
                <Button onClick={() => { confirm.reset(); setDialog('confirm'); }}>Confirm payout</Button>
                <Button color="red" variant="light" onClick={() => { fail.reset(); setDialog('fail'); }}>Fail payout</Button>
              </Group>
            )}
          </Stack>
        )}
      </Card>

      <Modal lockScroll={false} opened={dialog === 'approve'} onClose={() => { setDialog(null); }} title="Approve this withdrawal?">
        <Stack>
          <Text size="sm">Pays {amount} to <PartnerName id={d.partnerId} /> through the tenant’s payout provider. This cannot be undone.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setDialog(null); }}>Cancel</Button>
            <Button color="green" loading={approve.isPending} onClick={() => { approve.mutate(); }}>Approve and pay out</Button>
          </Group>
        </Stack>
      </Modal>
      <ReasonModal opened={dialog === 'reject'} title="Reject this withdrawal?" label="Reason" action="Reject withdrawal" color="red"
        text={`The ${amount} held for it return to the partner’s available balance. The partner sees the reason.`}
        onClose={() => { setDialog(null); }} onSubmit={(r) => { reject.mutate(r); }} pending={reject.isPending} error={reject.error} />
      <ReasonModal opened={dialog === 'confirm'} title="Confirm the payout" label="Reference" action="Confirm payout"
        text={`Record that ${amount} was paid, with the bank’s payment reference.`}
        onClose={() => { setDialog(null); }} onSubmit={(r) => { confirm.mutate(r); }} pending={confirm.isPending} error={confirm.error} />
      <ReasonModal opened={dialog === 'fail'} title="Fail the payout?" label="Reason" action="Fail payout" color="red"
        text="The withdrawal fails and its funds return to the partner’s available balance."
        onClose={() => { setDialog(null); }} onSubmit={(r) => { fail.mutate(r); }} pending={fail.isPending} error={fail.error} />
    </Stack>
  );
}
