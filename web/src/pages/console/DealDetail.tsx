import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert, Anchor, Badge, Button, Card, Grid, Group, Menu, Modal, NumberInput, Select, SimpleGrid, Skeleton, Stack, Table, Text,
  Textarea, Title,
} from '@mantine/core';
import { api, ApiError, fieldErrors, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { EditDealButton } from '../../ui/DealEdit';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { findStage, movable, notify, useOperatorUsers, usePipelines, useUsers, type Deal } from './deals/data';
import { ConflictMarker, DealStatus, PartnerName } from './deals/shared';
import { useMoveDeal } from './deals/useMoveDeal';

type TimelineEntry = NonNullable<Awaited<ReturnType<typeof timelinePage>>>['data'][number];

async function timelinePage(id: string, cursor: string | undefined) {
  return unwrap(await api.GET('/api/deals/{id}/timeline', { params: { path: { id }, query: { cursor, limit: 20 } } }));
}

/** One labelled value of the deal. */
function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">{label}</Text>
      <Text size="sm" component="div">{children || '—'}</Text>
    </div>
  );
}

/** A deal: its details, review (approve, reject, conflicts), protection, owner, stage and timeline. */
export default function DealDetail() {
  const { id = '' } = useParams();
  const deal = useQuery({
    queryKey: ['deals', 'detail', id],
    queryFn: async () => unwrap(await api.GET('/api/deals/{id}', { params: { path: { id } } })),
  });
  const pipelines = usePipelines(useCan('pipelines:read'));
  const canApprove = useCan('deals:approve');
  const canWrite = useCan('deals:write');
  const move = useMoveDeal();

  if (deal.isPending) return <Stack><Skeleton height={36} width="40%" /><Skeleton height={240} /></Stack>;
  if (deal.isError) {
    return (
      <Stack>
        <PageHeader title="Deal" />
        <ErrorAlert error={deal.error} />
        <Anchor component={Link} to="/deals">Back to deals</Anchor>
      </Stack>
    );
  }
  const d = deal.data;
  const pipeline = pipelines.data?.find((p) => p.id === d.pipelineId);
  const stages = [...(pipeline?.stages ?? [])].sort((a, b) => a.position - b.position);
  const stage = findStage(pipelines.data, d.stageId);
  const won = stages.find((s) => s.outcome === 'won');
  const lost = stages.find((s) => s.outcome === 'lost');
  const canMove = canWrite && movable(d);

  return (
    <Stack>
      <Anchor component={Link} to="/deals" size="sm">← Deals</Anchor>
      <PageHeader
        title={d.customerCompany}
        description={<>Registered by <PartnerName id={d.partnerId} /> on <DateTime value={d.createdAt} /></>}
        actions={<>
          {canApprove && d.status === 'submitted' && <ReviewActions deal={d} />}
          {canWrite && <EditDealButton deal={d} />}
          {canMove && stages.length > 0 && (
            <Menu position="bottom-end">
              <Menu.Target><Button variant="default" loading={!!move.moving}>Move to…</Button></Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>Move to stage</Menu.Label>
                {stages.map((s) => (
                  <Menu.Item key={s.id} disabled={s.id === d.stageId} onClick={() => { move.request(d, s); }}>
                    {s.name}{s.outcome !== 'open' ? ` (${s.outcome})` : ''}
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
          )}
          {canMove && won && <Button onClick={() => { move.request(d, won); }}>Mark won</Button>}
          {canMove && lost && <Button color="red" variant="light" onClick={() => { move.request(d, lost); }}>Mark lost</Button>}
        </>} />
      {move.dialog}

      <Grid>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            <Card withBorder>
              <Group justify="space-between" mb="sm">
                <Title order={2} size="h4">Details</Title>
                <Group gap={4}><DealStatus status={d.status} /><ConflictMarker deal={d} /></Group>
              </Group>
              <SimpleGrid cols={{ base: 1, xs: 2, sm: 3 }}>
                <Field label="Amount"><Money minor={d.amountMinor} currency={d.currency} /></Field>
                <Field label="Stage">{stage ? `${stage.name} (${String(stage.probability)}%)` : '—'}{pipeline ? ` · ${pipeline.name}` : ''}</Field>
                <Field label="Expected close">{d.expectedCloseDate ? formatDate(d.expectedCloseDate) : ''}</Field>
                <Field label="Customer domain">{d.customerDomain}</Field>
                <Field label="Contact">{d.contactName}{d.contactName && d.contactEmail ? ' · ' : ''}{d.contactEmail}</Field>
                <Field label="Partner"><PartnerName id={d.partnerId} /></Field>
                <Field label="Registered"><DateTime value={d.createdAt} /></Field>
                <Field label="Last change"><DateTime value={d.updatedAt} /></Field>
                {d.closedAt && <Field label="Closed"><DateTime value={d.closedAt} /></Field>}
                {d.customerId && <Field label="Customer">{d.customerId}</Field>}
              </SimpleGrid>
              {d.reason && (
                <Alert mt="md" color={d.status === 'won' ? 'green' : 'red'} title={d.status === 'rejected' ? 'Why it was rejected' : 'Why it was lost'}>
                  {d.reason}
                </Alert>
              )}
              {d.notes && <Stack mt="md"><Field label="Partner's notes"><Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>{d.notes}</Text></Field></Stack>}
            </Card>
            {canApprove && (d.conflictStatus !== 'none' || d.reviewRequired) && <Conflicts deal={d} />}
            <Timeline deal={d} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <Protection deal={d} />
            <Owner deal={d} />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

/** Approve (optionally naming the owner) or reject with a reason. */
function ReviewActions({ deal }: { deal: Deal }) {
  const qc = useQueryClient();
  const [dialog, setDialog] = useState<'approve' | 'reject' | null>(null);
  const [owner, setOwner] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const users = useOperatorUsers();
  const approve = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/approve', { params: { path: { id: deal.id } }, body: owner ? { ownerUserId: owner } : {} })),
    onSuccess: async (d) => {
      setDialog(null);
      notify('green', `${d.customerCompany} approved; protected until ${d.protectedUntil ? new Date(d.protectedUntil).toLocaleDateString() : '—'}.`);
      await qc.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  const reject = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/reject', { params: { path: { id: deal.id } }, body: { reason } })),
    onSuccess: async (d) => {
      setDialog(null);
      notify('green', `${d.customerCompany} rejected.`);
      await qc.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  const blocked = deal.conflictStatus === 'review';
  return (
    <>
      <Button disabled={blocked} title={blocked ? 'Resolve the conflicts first' : undefined}
        onClick={() => { approve.reset(); setDialog('approve'); }}>Approve</Button>
      <Button color="red" variant="light" onClick={() => { reject.reset(); setDialog('reject'); }}>Reject</Button>
      <Modal lockScroll={false} closeButtonProps={{ 'aria-label': 'Close' }} opened={dialog === 'approve'} onClose={() => { setDialog(null); }} title="Approve the registration">
        <form onSubmit={(e) => { e.preventDefault(); approve.mutate(); }}>
          <Stack>
            <Text size="sm">{deal.customerCompany} becomes protected for the partner for the program's protection period.</Text>
            {users.data && (
              <Select label="Owner" description="The operator responsible for the deal (optional)" clearable searchable
                data={users.data.map((u) => ({ value: u.id, label: u.name || u.email }))} value={owner} onChange={setOwner}
                error={fieldErrors(approve.error).ownerUserId} />
            )}
            <ErrorAlert error={approve.error} shownFields={['ownerUserId']} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => { setDialog(null); }}>Cancel</Button>
              <Button type="submit" loading={approve.isPending}>Approve</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <Modal lockScroll={false} closeButtonProps={{ 'aria-label': 'Close' }} opened={dialog === 'reject'} onClose={() => { setDialog(null); }} title="Reject the registration">
        <form onSubmit={(e) => { e.preventDefault(); reject.mutate(); }}>
          <Stack>
            <Text size="sm">The partner sees the reason. A rejected registration cannot be reopened.</Text>
            <Textarea label="Reason" required autosize minRows={2} maxLength={1000} data-autofocus value={reason}
              onChange={(e) => { setReason(e.currentTarget.value); }} error={fieldErrors(reject.error).reason} />
            <ErrorAlert error={reject.error} shownFields={['reason']} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => { setDialog(null); }}>Cancel</Button>
              <Button type="submit" color="red.9" loading={reject.isPending}>Reject</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

const conflictKinds: Record<string, string> = { domain: 'Same customer domain', contact_email: 'Same contact', customer: 'Customer of another partner' };

/** What the registration overlaps, why, and the operator's resolution. */
function Conflicts({ deal }: { deal: Deal }) {
  const qc = useQueryClient();
  const [resolution, setResolution] = useState('');
  const conflicts = useQuery({
    queryKey: ['deals', deal.id, 'conflicts'],
    queryFn: async () => unwrap(await api.GET('/api/deals/{id}/conflicts', { params: { path: { id: deal.id } } })).data,
  });
  const resolve = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/conflicts/resolve', { params: { path: { id: deal.id } }, body: { resolution } })),
    onSuccess: async () => {
      setResolution('');
      notify('green', 'Conflicts resolved; the registration can be approved or rejected.');
      await qc.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">Conflicts</Title>
        {deal.conflictStatus === 'review' ? <Badge color="orange" c="black">Awaiting review</Badge> : <Badge color="gray" variant="light">{deal.conflictStatus}</Badge>}
      </Group>
      {conflicts.isError && <ErrorAlert error={conflicts.error} />}
      <Table aria-label="Conflicts" aria-busy={conflicts.isFetching}>
        <Table.Thead><Table.Tr><Table.Th>Overlap</Table.Th><Table.Th>Why</Table.Th><Table.Th>Found</Table.Th></Table.Tr></Table.Thead>
        <Table.Tbody>
          {conflicts.isPending && <Table.Tr><Table.Td colSpan={3}><Skeleton height={14} /></Table.Td></Table.Tr>}
          {conflicts.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td><Text size="sm" fw={600}>{conflictKinds[c.kind] ?? c.kind}</Text></Table.Td>
              <Table.Td>
                <Text size="sm">{c.explanation}</Text>
                {c.otherDealId && <Anchor component={Link} to={`/deals/${c.otherDealId}`} size="sm">Open the other deal</Anchor>}
              </Table.Td>
              <Table.Td><DateTime value={c.createdAt} /></Table.Td>
            </Table.Tr>
          ))}
          {conflicts.data?.length === 0 && <Table.Tr><Table.Td colSpan={3}><Text c="dimmed" size="sm">No conflicts recorded.</Text></Table.Td></Table.Tr>}
        </Table.Tbody>
      </Table>
      {deal.conflictStatus === 'review' && (
        <form onSubmit={(e) => { e.preventDefault(); resolve.mutate(); }}>
          <Stack mt="md" gap="xs">
            <Textarea label="Resolution" description="What was decided and why; it goes on the deal's timeline" required autosize minRows={2}
              maxLength={1000} value={resolution} onChange={(e) => { setResolution(e.currentTarget.value); }}
              error={fieldErrors(resolve.error).resolution} />
            <ErrorAlert error={resolve.error} shownFields={['resolution']} />
            <Group justify="flex-end"><Button type="submit" loading={resolve.isPending}>Resolve conflicts</Button></Group>
          </Stack>
        </form>
      )}
    </Card>
  );
}

/** How long the partner's claim is protected, a pending extension request, and extending it. */
function Protection({ deal }: { deal: Deal }) {
  const qc = useQueryClient();
  const canApprove = useCan('deals:approve');
  const [days, setDays] = useState<number | string>(30);
  const extend = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/extend', { params: { path: { id: deal.id } }, body: { days: Number(days) } })),
    onSuccess: async (d) => {
      notify('green', `Protection extended to ${d.protectedUntil ? new Date(d.protectedUntil).toLocaleString() : '—'}.`);
      await qc.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  const [openedAt] = useState(() => Date.now());
  const expired = deal.protectedUntil && new Date(deal.protectedUntil).getTime() < openedAt;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">Protection</Title>
      <Stack gap="sm">
        <Field label="Protected until">
          {deal.protectedUntil ? <DateTime value={deal.protectedUntil} /> : deal.status === 'submitted' ? 'Starts when approved' : ''}
          {expired && deal.status === 'approved' ? ' (ended)' : ''}
        </Field>
        {deal.extensionRequestedAt && (
          <Alert color="blue" title="The partner asks for more time">
            <Text size="sm">{deal.extensionReason}</Text>
            <Text size="xs" c="dimmed" mt={4}>Asked <DateTime value={deal.extensionRequestedAt} /></Text>
          </Alert>
        )}
        {canApprove && deal.status === 'approved' && (
          <form onSubmit={(e) => { e.preventDefault(); extend.mutate(); }}>
            <Group align="flex-end" gap="xs">
              <NumberInput label="Extend by days" min={1} max={365} allowDecimal={false} clampBehavior="strict" required w={140}
                value={days} onChange={setDays} error={fieldErrors(extend.error).days} />
              <Button type="submit" variant="light" loading={extend.isPending}>Extend</Button>
            </Group>
            <ErrorAlert error={extend.error} shownFields={['days']} />
          </form>
        )}
      </Stack>
    </Card>
  );
}

/** The operator responsible for the deal. */
function Owner({ deal }: { deal: Deal }) {
  const qc = useQueryClient();
  const canApprove = useCan('deals:approve');
  const users = useOperatorUsers();
  const [choice, setChoice] = useState<string | null>(null);
  const assign = useMutation({
    mutationFn: async (userId: string) => unwrap(await api.POST('/api/deals/{id}/owner', { params: { path: { id: deal.id } }, body: { userId } })),
    onSuccess: async (_, userId) => {
      setChoice(null);
      notify('green', `${users.data?.find((u) => u.id === userId)?.name ?? 'The operator'} now owns the deal.`);
      await qc.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  const current = users.data?.find((u) => u.id === deal.ownerUserId);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">Owner</Title>
      <Stack gap="sm">
        <Text size="sm">{deal.ownerUserId ? (current ? `${current.name} (${current.email})` : 'An operator') : 'Nobody yet'}</Text>
        {canApprove && users.data && (
          <form onSubmit={(e) => { e.preventDefault(); if (choice) assign.mutate(choice); }}>
            <Group align="flex-end" gap="xs">
              <Select label="Assign to" placeholder="Choose an operator" searchable style={{ flex: 1 }}
                data={users.data.filter((u) => u.id !== deal.ownerUserId).map((u) => ({ value: u.id, label: u.name || u.email }))}
                value={choice} onChange={setChoice} error={fieldErrors(assign.error).userId} />
              <Button type="submit" variant="light" disabled={!choice} loading={assign.isPending}>Assign</Button>
            </Group>
            <ErrorAlert error={assign.error} shownFields={['userId']} />
          </form>
        )}
      </Stack>
    </Card>
  );
}

const eventWords: Record<string, string> = {
  'deal.registered': 'Registered',
  'deal.approved': 'Approved',
  'deal.rejected': 'Rejected',
  'deal.stage_changed': 'Moved',
  'deal.won': 'Won',
  'deal.lost': 'Lost',
  'deal.expired': 'Protection ended; expired',
  'deal.extended': 'Protection extended',
  'deal.extension_requested': 'Extension requested',
};

/** One timeline entry in words. */
function entryText(e: TimelineEntry): ReactNode {
  if (e.kind === 'note') return <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>{e.body}</Text>;
  const p = (e.payload ?? {}) as { stageName?: string; reason?: string; protectedUntil?: string; conflictReview?: boolean };
  const what = eventWords[e.type ?? ''] ?? (e.type ?? 'Event').replace(/^deal\./, '').replaceAll('_', ' ');
  return (
    <Text size="sm">
      {what}
      {p.stageName && ['deal.stage_changed', 'deal.won', 'deal.lost'].includes(e.type ?? '') ? ` to ${p.stageName}` : ''}
      {p.reason ? ` · “${p.reason}”` : ''}
      {p.conflictReview && e.type === 'deal.registered' ? ' · overlaps other work' : ''}
      {p.protectedUntil && (e.type === 'deal.approved' || e.type === 'deal.extended') ? <> · protected until <DateTime value={p.protectedUntil} /></> : null}
    </Text>
  );
}

/** The deal's events and notes as they happened, and a note to add. */
function Timeline({ deal }: { deal: Deal }) {
  const qc = useQueryClient();
  const canWrite = useCan('deals:write');
  const users = useUsers();
  const [body, setBody] = useState('');
  const add = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/notes', { params: { path: { id: deal.id } }, body: { body } })),
    onSuccess: async () => {
      setBody('');
      notify('green', 'Note added.');
      await qc.invalidateQueries({ queryKey: ['deals', deal.id, 'timeline'] });
    },
  });
  const who = (id: string | undefined) => {
    if (!id) return 'System';
    const u = users.data?.find((x) => x.id === id);
    return u ? `${u.name}${u.partnerId ? ' (partner)' : ''}` : 'A user or key';
  };
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">Timeline</Title>
      <PagedTable<TimelineEntry>
        label="Timeline"
        queryKey={['deals', deal.id, 'timeline']}
        fetchPage={(cursor) => timelinePage(deal.id, cursor)}
        rowKey={(e) => e.id}
        empty="Nothing happened yet."
        columns={[
          { header: 'When', render: (e) => <DateTime value={e.at} /> },
          { header: 'What', render: (e) => <Group gap={6} wrap="nowrap" align="flex-start">{e.kind === 'note' && <Badge size="xs" variant="light">note</Badge>}{entryText(e)}</Group> },
          { header: 'Who', render: (e) => who(e.authorId) },
        ]} />
      {canWrite && (
        <form onSubmit={(e) => { e.preventDefault(); add.mutate(); }}>
          <Stack gap="xs" mt="md">
            <Textarea label="Add a note" required autosize minRows={2} maxLength={5000} value={body}
              onChange={(e) => { setBody(e.currentTarget.value); }} error={fieldErrors(add.error).body} />
            {add.error && !(add.error instanceof ApiError && fieldErrors(add.error).body) && <ErrorAlert error={add.error} shownFields={['body']} />}
            <Group justify="flex-end"><Button type="submit" variant="light" loading={add.isPending}>Add note</Button></Group>
          </Stack>
        </form>
      )}
    </Card>
  );
}
