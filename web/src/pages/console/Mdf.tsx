import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Button, Card, Group, Modal, NativeSelect, SegmentedControl, Select, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { downloadFile } from '../../ui/files';
import { decimalToMinor, formatRatio, minorToDecimal } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { PORTAL_CURRENCIES, today } from '../../ui/portal';
import { RejectDialog, ReviewButtons } from '../../ui/Review';
import { StatusBadge } from '../../ui/StatusBadge';

type Fund = Schemas['MDFFund'];
type FundRequest = Schemas['MDFRequest'];
type Claim = Schemas['MDFClaim'];

const plural = (n: number, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

/** Market development funds: allocations, the queue of fund requests, and finance's review of claims. */
export default function Mdf() {
  const canManage = useCan('mdf:manage');
  const canReview = useCan('withdrawals:approve');
  return (
    <Stack>
      <PageHeader title="Market development funds" description="Funds allocated to partners or levels, partners' requests for part of them, and their claims with proof. Approved claims are reimbursed into each partner's MDF balance, apart from commissions." />
      <Funds canManage={canManage} />
      <Requests canManage={canManage} />
      {canReview && <FourEyes />}
      <Claims canReview={canReview} />
    </Stack>
  );
}

interface FundValues { name: string; target: 'partner' | 'level'; partnerId: string; level: string; currency: string; amount: string; periodStart: string; periodEnd: string; expiresOn: string }

function Funds({ canManage }: { canManage: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap="xs" component="section" aria-labelledby="funds-title">
      <Group justify="space-between">
        <Title order={2} size="h4" id="funds-title">Funds</Title>
        {canManage && <Button onClick={() => { setOpen(true); }}>Allocate a fund</Button>}
      </Group>
      <PagedTable<Fund>
        label="Every fund"
        queryKey={['mdf', 'funds']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/mdf/funds', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(f) => f.id}
        empty="No funds yet."
        columns={[
          { header: 'Fund', render: (f) => f.name },
          { header: 'For', render: (f) => (f.partnerId ? <PartnerName id={f.partnerId} /> : `Level ${f.level ?? ''}`) },
          { header: 'Allocated', numeric: true, render: (f) => <Money minor={f.allocated} currency={f.currency} /> },
          { header: 'Committed', numeric: true, render: (f) => <Money minor={f.committed} currency={f.currency} /> },
          { header: 'Spent', numeric: true, render: (f) => <Money minor={f.spent} currency={f.currency} /> },
          { header: 'Influenced revenue', numeric: true, render: (f) => <Money minor={f.influencedRevenue} currency={f.currency} /> },
          { header: 'ROI', numeric: true, render: (f) => formatRatio(f.roiBps) },
          { header: 'Period', render: (f) => (
            <Stack gap={0}>
              <Text size="sm" style={{ whiteSpace: 'nowrap' }}>{f.periodStart}</Text>
              <Text size="sm" style={{ whiteSpace: 'nowrap' }}>to {f.periodEnd}</Text>
              <Text size="xs" c="dimmed">Expires <DateTime value={f.expiresAt} /></Text>
            </Stack>
          ) },
          { header: 'Status', render: (f) => (
            <Stack gap={0} miw={90} align="flex-start">
              <StatusBadge status={f.status} />
              {f.status === 'expired' && <Text size="xs" c="dimmed">Released <Money minor={f.released} currency={f.currency} /></Text>}
            </Stack>
          ) },
        ]}
      />
      <Modal opened={open} onClose={() => { setOpen(false); }} title="Allocate a fund" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {open && <FundForm onDone={() => { setOpen(false); }} />}
      </Modal>
    </Stack>
  );
}

function FundForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<FundValues>({
    initialValues: { name: '', target: 'partner', partnerId: '', level: '', currency: 'EUR', amount: '', periodStart: today(), periodEnd: today(90), expiresOn: today(120) },
    validate: {
      partnerId: (v, x) => (x.target === 'partner' && !v ? 'Choose the partner' : null),
      level: (v, x) => (x.target === 'level' && !v.trim() ? 'Name the level' : null),
      amount: (v, x) => { const m = decimalToMinor(v, x.currency); return m === null || m <= 0 ? 'Enter an amount above zero, like 25000.00' : null; },
      expiresOn: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? null : 'Enter a date'),
    },
  });
  const create = useMutation({
    mutationFn: async (v: FundValues) => unwrap(await api.POST('/api/mdf/funds', { body: {
      name: v.name.trim() || undefined, partnerId: v.target === 'partner' ? v.partnerId : undefined, level: v.target === 'level' ? v.level.trim() : undefined,
      currency: v.currency, amount: decimalToMinor(v.amount, v.currency) ?? 0, periodStart: v.periodStart, periodEnd: v.periodEnd,
      expiresAt: new Date(`${v.expiresOn}T23:59:59`).toISOString(),
    } })),
    onSuccess: async () => { notify('Fund allocated'); await queryClient.invalidateQueries({ queryKey: ['mdf'] }); onDone(); },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
      <Stack>
        <ErrorAlert error={create.error} shownFields={['name', 'partnerId', 'level', 'currency', 'amount', 'periodStart', 'periodEnd', 'expiresAt']} />
        <TextInput label="Name" placeholder="Q1 co-marketing" maxLength={200} {...form.getInputProps('name')} />
        <SegmentedControl aria-label="The fund is for" data={[{ value: 'partner', label: 'One partner' }, { value: 'level', label: 'A level' }]} {...form.getInputProps('target')} />
        {form.values.target === 'partner'
          ? <PartnerSelect label="Partner" withAsterisk value={form.values.partnerId || null} error={form.errors.partnerId}
            onChange={(v) => { form.setFieldValue('partnerId', v); }} />
          : <TextInput label="Level" withAsterisk description="Every partner at this level draws on the fund" {...form.getInputProps('level')} />}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NativeSelect label="Currency" data={PORTAL_CURRENCIES} {...form.getInputProps('currency')} />
          <TextInput label="Amount" withAsterisk inputMode="decimal" {...form.getInputProps('amount')} />
          <TextInput label="Period start" type="date" {...form.getInputProps('periodStart')} />
          <TextInput label="Period end" type="date" {...form.getInputProps('periodEnd')} />
          <TextInput label="Expires on" type="date" description="What no approved request committed is released then" {...form.getInputProps('expiresOn')} />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Allocate</Button>
        </Group>
      </Stack>
    </form>
  );
}

type Decision = { kind: 'approve' | 'changes' | 'reject'; request: FundRequest };

function Requests({ canManage }: { canManage: boolean }) {
  const [status, setStatus] = useState<string | null>('submitted');
  const [deciding, setDeciding] = useState<Decision | null>(null);
  const query = { status: (status ?? undefined) as FundRequest['status'] | undefined };
  return (
    <Stack gap="xs" component="section" aria-labelledby="requests-title">
      <Title order={2} size="h4" id="requests-title">Fund requests</Title>
      <Select label="Status" clearable w={220} value={status} onChange={setStatus}
        data={[{ value: 'submitted', label: 'Submitted' }, { value: 'changes_requested', label: 'Changes requested' }, { value: 'approved', label: 'Approved' },
          { value: 'rejected', label: 'Rejected' }, { value: 'expired', label: 'Expired' }]} />
      <PagedTable<FundRequest>
        label="Fund request queue"
        queryKey={['mdf', 'requests', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/mdf/requests', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(r) => r.id}
        empty="No fund requests match."
        columns={[
          { header: 'Partner', render: (r) => <PartnerName id={r.partnerId} /> },
          { header: 'Activity', render: (r) => <Stack gap={0}><Text size="sm">{r.activity}</Text><Text size="xs" c="dimmed">{r.plannedStart} – {r.plannedEnd}</Text></Stack> },
          { header: 'Budget', numeric: true, render: (r) => <Money minor={r.budget} currency={r.currency} /> },
          { header: 'Approved', numeric: true, render: (r) => <Money minor={r.approved} currency={r.currency} /> },
          { header: 'Expected pipeline', numeric: true, render: (r) => <Money minor={r.expectedPipeline} currency={r.currency} /> },
          { header: 'Status', render: (r) => <Stack gap={0} miw={120} align="flex-start"><StatusBadge status={r.status} />{r.reason && <Text size="xs" c="dimmed">{r.reason}</Text>}</Stack> },
          ...(canManage ? [{ header: 'Decide', render: (r: FundRequest) => (r.status === 'submitted' ? (
            <Group gap="xs" wrap="nowrap">
              <Button size="xs" aria-label={`Approve the request ${r.activity}`} onClick={() => { setDeciding({ kind: 'approve', request: r }); }}>Approve</Button>
              <Button size="xs" variant="default" aria-label={`Ask for changes to ${r.activity}`} onClick={() => { setDeciding({ kind: 'changes', request: r }); }}>Ask for changes</Button>
              <Button size="xs" color="red" variant="light" aria-label={`Reject the request ${r.activity}`} onClick={() => { setDeciding({ kind: 'reject', request: r }); }}>Reject</Button>
            </Group>
          ) : '—') }] : []),
        ]}
      />
      <Modal opened={deciding !== null} onClose={() => { setDeciding(null); }} closeButtonProps={{ 'aria-label': 'Close' }}
        title={deciding?.kind === 'approve' ? 'Approve the fund request' : deciding?.kind === 'changes' ? 'Ask for changes' : 'Reject the fund request'}>
        {deciding && <DecideRequest decision={deciding} onDone={() => { setDeciding(null); }} />}
      </Modal>
    </Stack>
  );
}

function DecideRequest({ decision, onDone }: { decision: Decision; onDone: () => void }) {
  const queryClient = useQueryClient();
  const r = decision.request;
  const [amount, setAmount] = useState(minorToDecimal(r.budget, r.currency));
  const [reason, setReason] = useState('');
  const decide = useMutation({
    mutationFn: async () => {
      const path = { params: { path: { id: r.id } } };
      if (decision.kind === 'approve') return unwrap(await api.POST('/api/mdf/requests/{id}/approve', { ...path, body: { amount: decimalToMinor(amount, r.currency) ?? 0 } }));
      if (decision.kind === 'changes') return unwrap(await api.POST('/api/mdf/requests/{id}/request-changes', { ...path, body: { reason: reason.trim() } }));
      return unwrap(await api.POST('/api/mdf/requests/{id}/reject', { ...path, body: { reason: reason.trim() } }));
    },
    onSuccess: async () => {
      notify(decision.kind === 'approve' ? 'Request approved' : decision.kind === 'changes' ? 'Changes asked for' : 'Request rejected');
      await queryClient.invalidateQueries({ queryKey: ['mdf'] });
      onDone();
    },
  });
  const ready = decision.kind === 'approve' ? (decimalToMinor(amount, r.currency) ?? 0) > 0 : !!reason.trim();
  return (
    <form noValidate onSubmit={(e) => { e.preventDefault(); if (ready) decide.mutate(); }}>
      <Stack>
        <Text size="sm">{r.activity}: budget <Money minor={r.budget} currency={r.currency} />.</Text>
        {decide.error && <ErrorAlert error={decide.error} />}
        {decision.kind === 'approve'
          ? <TextInput label="Amount to commit" description="The whole budget or less" inputMode="decimal" value={amount} onChange={(e) => { setAmount(e.currentTarget.value); }} />
          : <Textarea label={decision.kind === 'changes' ? 'What to change' : 'Reason'} required maxLength={1000} autosize minRows={3} value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" color={decision.kind === 'reject' ? 'red' : undefined} loading={decide.isPending} disabled={!ready}>
            {decision.kind === 'approve' ? 'Approve' : decision.kind === 'changes' ? 'Send back' : 'Reject'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Finance's rule: claims above an amount need two different approvers. */
function FourEyes() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['mdf', 'settings'], queryFn: async () => unwrap(await api.GET('/api/mdf/settings')) });
  const [typed, setTyped] = useState<string | null>(null);
  const stored = settings.data?.fourEyesAbove;
  const value = typed ?? (stored === undefined ? '' : String(stored));
  const valid = value.trim() === '' || /^\d{1,16}$/.test(value.trim());
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/mdf/settings', { body: value.trim() === '' ? {} : { fourEyesAbove: Number(value.trim()) } })),
    onSuccess: async () => { notify('Four-eyes rule saved'); setTyped(null); await queryClient.invalidateQueries({ queryKey: ['mdf', 'settings'] }); },
  });
  return (
    <Card withBorder component="section" aria-labelledby="four-eyes-title" maw={560}>
      <form noValidate onSubmit={(e) => { e.preventDefault(); if (valid) save.mutate(); }}>
        <Stack gap="xs">
          <Title order={2} size="h4" id="four-eyes-title">Four eyes on claims</Title>
          <Text size="sm" c="dimmed">Claims above this amount need two different approvers; nobody approves a claim they filed. Leave it empty for one approver.</Text>
          {settings.isError && <ErrorAlert error={settings.error} />}
          {save.error && <ErrorAlert error={save.error} />}
          <TextInput label="Above (minor units)" description="In the claim's currency, e.g. 1000000 is 10,000.00 EUR" inputMode="numeric" w={320}
            value={value} error={valid ? undefined : 'Enter a whole number of minor units'} onChange={(e) => { setTyped(e.currentTarget.value); }} />
          <Group><Button type="submit" variant="default" disabled={!valid || typed === null}>Save the rule</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}

function Claims({ canReview }: { canReview: boolean }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState<Claim | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const query = { status: (status ?? undefined) as Claim['status'] | undefined };
  const approve = useMutation({
    mutationFn: async (c: Claim) => unwrap(await api.POST('/api/mdf/claims/{id}/approve', { params: { path: { id: c.id } } })),
    onSuccess: async (c) => {
      notify(c.status === 'approved' ? 'Claim approved and reimbursed' : 'First approval given: a second approver is needed');
      await queryClient.invalidateQueries({ queryKey: ['mdf'] });
    },
  });
  return (
    <Stack gap="xs" component="section" aria-labelledby="claims-title">
      <Title order={2} size="h4" id="claims-title">Claims</Title>
      <Select label="Claim status" clearable w={240} value={status} onChange={setStatus}
        data={[{ value: 'submitted', label: 'Submitted' }, { value: 'awaiting_second_approval', label: 'Awaiting a second approval' },
          { value: 'approved', label: 'Approved' }, { value: 'rejected', label: 'Rejected' }]} />
      {approve.error && <ErrorAlert error={approve.error} />}
      {failed !== null && <ErrorAlert error={failed} />}
      <PagedTable<Claim>
        label="Claims to review"
        queryKey={['mdf', 'claims', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/mdf/claims', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty="No claims match."
        columns={[
          { header: 'Partner', render: (c) => <PartnerName id={c.partnerId} /> },
          { header: 'Amount', numeric: true, render: (c) => <Money minor={c.amount} currency={c.currency} /> },
          { header: 'Results', render: (c) => `${plural(c.leads, 'lead')}, ${plural(c.dealIds.length, 'deal')}` },
          { header: 'Proof', render: (c) => (
            <Stack gap={2}>
              {c.links.map((l) => <Text key={l} size="xs" component="a" href={l} target="_blank" rel="noreferrer noopener">{l}</Text>)}
              {c.proofs.map((p) => (
                <Button key={p.id} size="compact-xs" variant="default" aria-label={`Download ${p.fileName}`} onClick={() => {
                  setFailed(null);
                  downloadFile(`/api/mdf/claims/${c.id}/proofs/${p.id}`, p.fileName).catch(setFailed);
                }}>{p.fileName}</Button>
              ))}
              {c.links.length === 0 && c.proofs.length === 0 && <Text size="xs" c="dimmed">None yet</Text>}
            </Stack>
          ) },
          { header: 'Status', render: (c) => <Stack gap={0} miw={120} align="flex-start"><StatusBadge status={c.status} />{c.reason && <Text size="xs" c="dimmed">{c.reason}</Text>}</Stack> },
          { header: 'Filed', render: (c) => <DateTime value={c.createdAt} /> },
          ...(canReview ? [{ header: 'Review', render: (c: Claim) => (c.status === 'submitted' || c.status === 'awaiting_second_approval' ? (
            <ReviewButtons subject={`the claim of ${minorToDecimal(c.amount, c.currency)} ${c.currency}`} approving={approve.isPending && approve.variables.id === c.id}
              onApprove={() => { approve.mutate(c); }} onReject={() => { setRejecting(c); }} />
          ) : '—') }] : []),
        ]}
      />
      <RejectDialog item={rejecting} title="Reject the claim" onClose={() => { setRejecting(null); }}
        reject={async (c, reason) => unwrap(await api.POST('/api/mdf/claims/{id}/reject', { params: { path: { id: c.id } }, body: { reason } }))}
        rejected="Claim rejected" queryKey={['mdf']} />
    </Stack>
  );
}
