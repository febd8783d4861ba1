import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Button, Group, Modal, MultiSelect, NativeSelect, NumberInput, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { uploadFile } from '../../ui/files';
import { decimalToMinor, formatMoney, minorToDecimal } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PagedTable, type Column, type Page } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { today, usePortalBalances } from '../../ui/portal';
import { StatusBadge } from '../../ui/StatusBadge';

type Fund = Schemas['MDFFund'];

const plural = (n: number, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;
type FundRequest = Schemas['MDFRequest'];
type Claim = Schemas['MDFClaim'];

/** The partner's market development funds: its funds and its level's, its requests and its claims with proof. */
export default function Mdf() {
  const canWrite = useCan('mdf:write');
  const funds = useQuery({
    queryKey: ['mdf', 'funds', 'mine'],
    queryFn: async () => unwrap(await api.GET('/api/mdf/funds', { params: { query: { limit: 100 } } })).data,
  });
  const [requesting, setRequesting] = useState(false);
  const open = (funds.data ?? []).filter((f) => f.status === 'open' && f.uncommitted > 0);
  return (
    <Stack>
      <PageHeader title="Marketing funds" description="Money the program sets aside for your marketing. Ask for part of a fund for an activity; once it is approved and done, claim what it cost with proof. Approved claims are added to your MDF balance, which you withdraw apart from commissions." />
      <MdfBalance />
      <Stack gap="xs" component="section" aria-labelledby="funds-title">
        <Group justify="space-between">
          <Title order={2} size="h4" id="funds-title">Your funds</Title>
          {canWrite && <Button disabled={open.length === 0} onClick={() => { setRequesting(true); }}>Request funds</Button>}
        </Group>
        {funds.isError && <ErrorAlert error={funds.error} />}
        {funds.data?.length === 0 && <Alert color="blue">No funds are allocated to you or your level yet.</Alert>}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {(funds.data ?? []).map((f) => <FundCard key={f.id} fund={f} />)}
        </SimpleGrid>
      </Stack>
      <Requests canWrite={canWrite} funds={funds.data ?? []} />
      <Claims canWrite={canWrite} />
      <Modal opened={requesting} onClose={() => { setRequesting(false); }} title="Request funds" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {requesting && <RequestForm funds={open} onDone={() => { setRequesting(false); }} />}
      </Modal>
    </Stack>
  );
}

function MdfBalance() {
  const balances = usePortalBalances();
  const rows = (balances.data?.data ?? []).filter((b) => b.mdfReimbursed > 0);
  if (rows.length === 0) return null;
  return (
    <Alert color="green" title="Your MDF balance">
      {rows.map((b) => (
        <Text key={b.currency} size="sm">
          <Money minor={b.mdfAvailable} currency={b.currency} /> available, <Money minor={b.mdfHeld} currency={b.currency} /> held for a withdrawal,{' '}
          <Money minor={b.mdfPaid} currency={b.currency} /> paid out.
        </Text>
      ))}
    </Alert>
  );
}

function FundCard({ fund: f }: { fund: Fund }) {
  return (
    <Stack gap={4} p="sm" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }} component="article" aria-label={f.name}>
      <Group justify="space-between"><Text fw={600}>{f.name}</Text><StatusBadge status={f.status} /></Group>
      <Text size="sm">{f.level ? `For every ${f.level} partner` : 'For you'} · {f.periodStart} – {f.periodEnd}</Text>
      <Text size="sm">Left to request: <Money minor={f.uncommitted} currency={f.currency} /> of <Money minor={f.allocated} currency={f.currency} /></Text>
      <Text size="sm">Committed <Money minor={f.committed} currency={f.currency} />, spent <Money minor={f.spent} currency={f.currency} /></Text>
      <Text size="xs" c="dimmed">Expires <DateTime value={f.expiresAt} /></Text>
    </Stack>
  );
}

interface RequestValues { fundId: string; activity: string; description: string; plannedStart: string; plannedEnd: string; budget: string; expectedPipeline: string }

function RequestForm({ funds, request, onDone }: { funds: Fund[]; request?: FundRequest; onDone: () => void }) {
  const queryClient = useQueryClient();
  const currencyOf = (fundId: string) => (request?.currency ?? funds.find((f) => f.id === fundId)?.currency ?? 'EUR');
  const form = useForm<RequestValues>({
    initialValues: {
      fundId: request?.fundId ?? funds[0]?.id ?? '', activity: request?.activity ?? '', description: request?.description ?? '',
      plannedStart: request?.plannedStart ?? today(14), plannedEnd: request?.plannedEnd ?? today(21),
      budget: request ? minorToDecimal(request.budget, request.currency) : '', expectedPipeline: request ? minorToDecimal(request.expectedPipeline, request.currency) : '',
    },
    validate: {
      activity: (v) => (v.trim() ? null : 'Describe the activity'),
      budget: (v, x) => { const m = decimalToMinor(v, currencyOf(x.fundId)); return m === null || m <= 0 ? 'Enter a budget above zero' : null; },
      expectedPipeline: (v, x) => (v.trim() === '' || (decimalToMinor(v, currencyOf(x.fundId)) ?? -1) >= 0 ? null : 'Enter an amount'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: RequestValues) => {
      const cur = currencyOf(v.fundId);
      const body = { fundId: v.fundId, activity: v.activity.trim(), description: v.description.trim() || undefined, plannedStart: v.plannedStart, plannedEnd: v.plannedEnd,
        budget: decimalToMinor(v.budget, cur) ?? 0, expectedPipeline: v.expectedPipeline.trim() ? (decimalToMinor(v.expectedPipeline, cur) ?? 0) : undefined };
      if (request) return unwrap(await api.PUT('/api/mdf/requests/{id}', { params: { path: { id: request.id } }, body }));
      return unwrap(await api.POST('/api/mdf/requests', { body }));
    },
    onSuccess: async () => { notify(request ? 'Request submitted again' : 'Request submitted'); await queryClient.invalidateQueries({ queryKey: ['mdf'] }); onDone(); },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <ErrorAlert error={save.error} shownFields={['fundId', 'activity', 'description', 'plannedStart', 'plannedEnd', 'budget', 'expectedPipeline']} />
        {request?.reason && <Alert color="orange" title="Changes asked for">{request.reason}</Alert>}
        {!request && <NativeSelect label="Fund" data={funds.map((f) => ({ value: f.id, label: `${f.name} (${formatMoney(f.uncommitted, f.currency)} left)` }))} {...form.getInputProps('fundId')} />}
        <TextInput label="Activity" withAsterisk maxLength={200} {...form.getInputProps('activity')} />
        <Textarea label="Description" maxLength={4000} autosize minRows={2} {...form.getInputProps('description')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Planned start" type="date" {...form.getInputProps('plannedStart')} />
          <TextInput label="Planned end" type="date" {...form.getInputProps('plannedEnd')} />
          <TextInput label={`Budget (${currencyOf(form.values.fundId)})`} withAsterisk inputMode="decimal" {...form.getInputProps('budget')} />
          <TextInput label={`Expected pipeline (${currencyOf(form.values.fundId)})`} inputMode="decimal" {...form.getInputProps('expectedPipeline')} />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>{request ? 'Submit again' : 'Submit the request'}</Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A section of the page listing the partner's own requests or claims, a page at a time. */
function OwnList<T extends { id: string }>({ what, title, label, empty, fetchPage, columns, children }: {
  what: 'requests' | 'claims'; title: string; label: string; empty: string;
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>; columns: Column<T>[]; children: ReactNode;
}) {
  return (
    <Stack gap="xs" component="section" aria-labelledby={`${what}-title`}>
      <Title order={2} size="h4" id={`${what}-title`}>{title}</Title>
      <PagedTable<T> label={label} queryKey={['mdf', what, 'mine']} fetchPage={fetchPage} rowKey={(r) => r.id} empty={empty} columns={columns} />
      {children}
    </Stack>
  );
}

/** The status of a request or claim, with the reason given for it. */
function statusColumn<T extends { status: string; reason?: string }>(): Column<T> {
  return { header: 'Status', render: (r) => <Stack gap={0} miw={120} align="flex-start"><StatusBadge status={r.status} />{r.reason && <Text size="xs" c="dimmed">{r.reason}</Text>}</Stack> };
}

function Requests({ canWrite, funds }: { canWrite: boolean; funds: Fund[] }) {
  const [changing, setChanging] = useState<FundRequest | null>(null);
  const [claiming, setClaiming] = useState<FundRequest | null>(null);
  return (
    <OwnList<FundRequest> what="requests" title="Your requests" label="Requests you made" empty="You have not requested funds yet."
      fetchPage={async (cursor) => unwrap(await api.GET('/api/mdf/requests', { params: { query: { cursor, limit: 25 } } }))}
      columns={[
        { header: 'Activity', render: (r) => <Stack gap={0}><Text size="sm">{r.activity}</Text><Text size="xs" c="dimmed">{r.plannedStart} – {r.plannedEnd}</Text></Stack> },
        { header: 'Budget', numeric: true, render: (r) => <Money minor={r.budget} currency={r.currency} /> },
        { header: 'Approved', numeric: true, render: (r) => <Money minor={r.approved} currency={r.currency} /> },
        { header: 'Claimed', numeric: true, render: (r) => <Money minor={r.spent} currency={r.currency} /> },
        statusColumn(),
        ...(canWrite ? [{ header: 'Next', render: (r: FundRequest) => (
          r.status === 'changes_requested' ? <Button size="xs" aria-label={`Change ${r.activity}`} onClick={() => { setChanging(r); }}>Change and submit again</Button>
            : r.status === 'approved' && r.spent < r.approved ? <Button size="xs" aria-label={`Claim for ${r.activity}`} onClick={() => { setClaiming(r); }}>File a claim</Button>
              : '—') }] : []),
      ]}>
      <Modal opened={changing !== null} onClose={() => { setChanging(null); }} title="Change the request" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {changing && <RequestForm funds={funds} request={changing} onDone={() => { setChanging(null); }} />}
      </Modal>
      <Modal opened={claiming !== null} onClose={() => { setClaiming(null); }} title="File a claim" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {claiming && <ClaimForm request={claiming} onDone={() => { setClaiming(null); }} />}
      </Modal>
    </OwnList>
  );
}

interface ClaimValues { amount: string; description: string; leads: number | string; dealIds: string[]; links: string }

function ClaimForm({ request, onDone }: { request: FundRequest; onDone: () => void }) {
  const queryClient = useQueryClient();
  const deals = useQuery({
    queryKey: ['deals', 'mine', 'for-claims'],
    enabled: useCan('deals:read'),
    queryFn: async () => unwrap(await api.GET('/api/deals', { params: { query: { limit: 100 } } })).data,
  });
  const form = useForm<ClaimValues>({
    initialValues: { amount: '', description: '', leads: 0, dealIds: [], links: '' },
    validate: {
      amount: (v) => { const m = decimalToMinor(v, request.currency); return m === null || m <= 0 ? 'Enter what the activity cost' : null; },
    },
  });
  const file = useMutation({
    mutationFn: async (v: ClaimValues) => unwrap(await api.POST('/api/mdf/claims', { body: {
      requestId: request.id, amount: decimalToMinor(v.amount, request.currency) ?? 0, description: v.description.trim() || undefined,
      leads: Number(v.leads) || 0, dealIds: v.dealIds, links: v.links.split('\n').map((l) => l.trim()).filter(Boolean),
    } })),
    onSuccess: async () => { notify('Claim filed: upload your proof below'); await queryClient.invalidateQueries({ queryKey: ['mdf'] }); onDone(); },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { file.mutate(v); })}>
      <Stack>
        <Text size="sm">{request.activity}: <Money minor={request.approved - request.spent} currency={request.currency} /> left to claim.</Text>
        <ErrorAlert error={file.error} shownFields={['amount', 'description', 'leads', 'dealIds', 'links']} />
        <TextInput label={`Amount (${request.currency})`} withAsterisk inputMode="decimal" {...form.getInputProps('amount')} />
        <Textarea label="What it paid for" maxLength={4000} autosize minRows={2} {...form.getInputProps('description')} />
        <NumberInput label="Leads" min={0} max={10000000} {...form.getInputProps('leads')} />
        <MultiSelect label="Deals influenced" description="Your own deal registrations" searchable maxValues={50}
          data={(deals.data ?? []).map((d) => ({ value: d.id, label: d.customerCompany }))} {...form.getInputProps('dealIds')} />
        <Textarea label="Proof links" description="One web address per line (https://…); upload files after filing" autosize minRows={2} {...form.getInputProps('links')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={file.isPending}>File the claim</Button>
        </Group>
      </Stack>
    </form>
  );
}

function Claims({ canWrite }: { canWrite: boolean }) {
  const [uploading, setUploading] = useState<Claim | null>(null);
  return (
    <OwnList<Claim> what="claims" title="Your claims" label="Claims you filed" empty="No claims yet."
      fetchPage={async (cursor) => unwrap(await api.GET('/api/mdf/claims', { params: { query: { cursor, limit: 25 } } }))}
      columns={[
        { header: 'Amount', numeric: true, render: (c) => <Money minor={c.amount} currency={c.currency} /> },
        { header: 'Results', render: (c) => `${plural(c.leads, 'lead')}, ${plural(c.dealIds.length, 'deal')}` },
        { header: 'Proof', render: (c) => `${plural(c.proofs.length, 'file')}, ${plural(c.links.length, 'link')}` },
        statusColumn(),
        { header: 'Filed', render: (c) => <DateTime value={c.createdAt} /> },
        ...(canWrite ? [{ header: 'Proof files', render: (c: Claim) => (c.status === 'submitted' || c.status === 'awaiting_second_approval'
          ? <Button size="xs" variant="default" aria-label={`Upload proof for the claim of ${minorToDecimal(c.amount, c.currency)} ${c.currency}`} onClick={() => { setUploading(c); }}>Upload proof</Button>
          : '—') }] : []),
      ]}>
      <Modal opened={uploading !== null} onClose={() => { setUploading(null); }} title="Upload proof" closeButtonProps={{ 'aria-label': 'Close' }}>
        {uploading && <ProofUpload claim={uploading} onDone={() => { setUploading(null); }} />}
      </Modal>
    </OwnList>
  );
}

function ProofUpload({ claim, onDone }: { claim: Claim; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const up = useMutation({
    mutationFn: async (f: File) => uploadFile<Claim>(`/api/mdf/claims/${claim.id}/proofs?name=${encodeURIComponent(f.name)}`, f, 'PUT'),
    onSuccess: async () => { notify('Proof uploaded'); setFile(null); await queryClient.invalidateQueries({ queryKey: ['mdf'] }); onDone(); },
  });
  return (
    <Stack>
      <Text size="sm">Invoices, photos or reports: a PDF, PNG or JPEG of at most 10 MB.</Text>
      {up.error && <ErrorAlert error={up.error} />}
      <FilePicker label="Proof file" file={file} onChange={(f) => { up.reset(); setFile(f); }} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>Cancel</Button>
        <Button disabled={!file} loading={up.isPending} onClick={() => { if (file) up.mutate(file); }}>Upload</Button>
      </Group>
    </Stack>
  );
}
