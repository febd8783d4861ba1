// The service desk's pages, shared by the console (the desk's operators) and the portal (partner
// users): the ticket list, opening a ticket, and one ticket with its thread and files. The API
// hides internal notes and their files from partners; the portal never asks for them either.
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import {
  Anchor, Badge, Button, Card, Group, Loader, Modal, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { api, ApiError, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useMe, type Face } from '../auth/me';
import { useCan } from '../auth/useCan';
import { PersonName } from '../pages/console/money/shared';
import { AdminUserSelect } from './AdminPickers';
import { useOperatorUsers } from './AdminData';
import { useAdminFilters, oneOf, orUndefined } from './AdminFilters';
import { ConfirmButton } from './DataConfirm';
import { notify } from './DataNotify';
import { PartnerName, PartnerSelect } from './DataPartnerSelect';
import { DateTime } from './DateTime';
import { formatDateTime } from './format';
import { ErrorAlert } from './ErrorAlert';
import { downloadFile, formatBytes, qs, uploadFile } from './files';
import { FilePicker } from './FilePicker';
import { PageHeader } from './PageHeader';
import { PagedTable } from './PagedTable';
import { SEARCH_MATCHES, SearchSelect } from './SearchSelect';
import { Field } from './Field';

type Ticket = Schemas['Ticket'];
type TicketStatus = Ticket['status'];
type Priority = Ticket['priority'];
type Message = Schemas['TicketMessage'];
type Attachment = Schemas['TicketAttachment'];

const ticketStatuses: TicketStatus[] = ['open', 'pending_partner', 'pending_operator', 'resolved', 'closed'];
const priorities: Priority[] = ['low', 'normal', 'high', 'urgent'];

const statusText: Record<TicketStatus, string> = {
  open: 'Open', pending_partner: 'Pending on partner', pending_operator: 'Pending on the desk', resolved: 'Resolved', closed: 'Closed',
};
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// Who may move a ticket where (models/ticket.go): the desk among open and pending ones and to
// resolved; resolved reopens or closes; closed is final. Partners only resolve, and reopen or close
// a resolved ticket.
const moves: Record<TicketStatus, TicketStatus[]> = {
  open: ['pending_partner', 'pending_operator', 'resolved', 'closed'],
  pending_partner: ['open', 'pending_operator', 'resolved', 'closed'],
  pending_operator: ['open', 'pending_partner', 'resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: [],
};
const moveText: Record<TicketStatus, string> = {
  open: 'Reopen', pending_partner: 'Wait on partner', pending_operator: 'Back to the desk', resolved: 'Resolve', closed: 'Close',
};

/** The statuses a ticket may move to from `from`, for the desk or for a partner. */
function movesFrom(from: TicketStatus, face: Face): TicketStatus[] {
  const all = moves[from];
  if (face === 'console') return all;
  return all.filter((to) => to === 'resolved' || (from === 'resolved' && (to === 'open' || to === 'closed')));
}

function base(face: Face) {
  return face === 'console' ? '/tickets' : '/portal/tickets';
}

/** The tenant's ticket categories (a short, operator-kept list). */
function useCategories() {
  return useQuery({
    queryKey: ['ticket-categories', 'all'],
    queryFn: async () => unwrap(await api.GET('/api/ticket-categories', { params: { query: { limit: 100 } } })).data,
    staleTime: 60_000,
  });
}

function CategoryName({ id }: { id: string | undefined }) {
  const cats = useCategories();
  if (!id) return <span>—</span>;
  return <span>{cats.data?.find((c) => c.id === id)?.name ?? id}</span>;
}

function OperatorName({ id }: { id: string | undefined }) {
  const users = useOperatorUsers();
  const me = useMe();
  if (!id) return <span>Unassigned</span>;
  if (id === me.data?.userId) return <span>you</span>;
  const u = users.data?.find((x) => x.id === id);
  return <span title={id}>{u ? u.name || u.email : id}</span>;
}

function CustomerName({ id, face }: { id: string | undefined; face: Face }) {
  const canRead = useCan('customers:read');
  const q = useQuery({
    queryKey: ['customers', 'one', id],
    enabled: !!id && canRead,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/api/customers/{id}', { params: { path: { id: id ?? '' } } })),
  });
  if (!id) return <span>—</span>;
  const name = q.data?.name ?? id;
  return canRead ? <Anchor component={Link} to={`${face === 'console' ? '' : '/portal'}/customers/${id}`} size="sm">{name}</Anchor> : <span>{name}</span>;
}

const statusColor: Record<TicketStatus, string> = { open: 'blue', pending_partner: 'orange', pending_operator: 'blue', resolved: 'green', closed: 'gray' };

function TicketStatusBadge({ status }: { status: TicketStatus }) {
  return <Badge variant="dot" color={statusColor[status]}>{statusText[status]}</Badge>;
}

type SLA = Schemas['TicketSLA'];
const slaFilters = ['breached', 'paused'] as const;

/** The earlier of the running targets' due times. */
function nextDue(s: SLA): string | undefined {
  return [s.firstResponseDueAt, s.resolutionDueAt].filter((x): x is string => !!x).sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

/** A ticket's SLA at a glance (the desk only): breached, paused, due soon (warned) or when it is next due. */
function SLABadge({ sla }: { sla: SLA | undefined }) {
  if (!sla) return <Text span size="sm" c="dimmed">—</Text>;
  const due = nextDue(sla);
  if (sla.firstResponseBreachedAt || sla.resolutionBreachedAt) {
    return <Badge color="red" variant="filled" data-sla="breached">Breached</Badge>;
  }
  if (sla.pausedAt) return <Badge color="gray" variant="light" data-sla="paused" title={`Paused since ${formatDateTime(sla.pausedAt)}`}>Paused</Badge>;
  const warned = (sla.firstResponseWarnedAt && sla.firstResponseDueAt) || (sla.resolutionWarnedAt && sla.resolutionDueAt);
  if (!due) return <Badge color="green" variant="light" data-sla="met">Met</Badge>;
  return (
    <Group gap={4} wrap="nowrap">
      {warned && <Badge color="orange" variant="filled" autoContrast data-sla="due-soon">Due soon</Badge>}
      <Text span size="sm" data-sla={warned ? undefined : 'running'}>Due <DateTime value={due} /></Text>
    </Group>
  );
}

/** The ticket's SLA clock for the desk: each target's due time or outcome, the pause, the alerts. */
function SLACard({ t }: { t: Ticket }) {
  const s = t.sla;
  if (!s) return null;
  const first = s.firstResponseBreachedAt ? <>Breached <DateTime value={s.firstResponseBreachedAt} /></>
    : t.firstResponseAt ? <>Met <DateTime value={t.firstResponseAt} /></>
    : s.firstResponseDueAt ? <>Due <DateTime value={s.firstResponseDueAt} /></>
    : s.pausedAt ? 'Paused' : '—';
  const resolution = s.resolutionBreachedAt ? <>Breached <DateTime value={s.resolutionBreachedAt} /></>
    : s.resolutionDueAt ? <>Due <DateTime value={s.resolutionDueAt} /></>
    : t.resolvedAt ? <>Met <DateTime value={t.resolvedAt} /></>
    : s.pausedAt ? 'Paused' : '—';
  return (
    <Card withBorder component="section" aria-labelledby="sla-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5" id="sla-title">SLA</Title>
        <SLABadge sla={s} />
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Field label="First response">{first}</Field>
        <Field label="Resolution">{resolution}</Field>
        {s.pausedAt && <Field label="Paused since"><DateTime value={s.pausedAt} /></Field>}
        {s.firstResponseWarnedAt && <Field label="First response warned"><DateTime value={s.firstResponseWarnedAt} /></Field>}
        {s.firstResponseBreachedAt && <Field label="First response breached"><DateTime value={s.firstResponseBreachedAt} /></Field>}
        {s.resolutionWarnedAt && <Field label="Resolution warned"><DateTime value={s.resolutionWarnedAt} /></Field>}
        {s.resolutionBreachedAt && <Field label="Resolution breached"><DateTime value={s.resolutionBreachedAt} /></Field>}
      </SimpleGrid>
    </Card>
  );
}

/** The list of tickets, filtered and paged; the portal's holds only the partner's own. */
export function TicketList({ face }: { face: Face }) {
  const canWrite = useCan('tickets:write');
  const [f, set] = useAdminFilters(['status', 'priority', 'partnerId', 'assigneeUserId', 'categoryId', 'tag', 'sla', 'q'] as const);
  const [q, setQ] = useState(f.q);
  const [debounced] = useDebouncedValue(q, 300);
  useEffect(() => { if (debounced !== f.q) set({ q: debounced }); }, [debounced]); // eslint-disable-line react-hooks/exhaustive-deps
  const [opening, setOpening] = useState(false);
  const cats = useCategories();
  const query = {
    status: oneOf(f.status, ticketStatuses), priority: oneOf(f.priority, priorities), q: orUndefined(f.q),
    ...(face === 'console' ? { partnerId: orUndefined(f.partnerId), assigneeUserId: orUndefined(f.assigneeUserId), categoryId: orUndefined(f.categoryId), tag: orUndefined(f.tag), sla: oneOf(f.sla, slaFilters) } : {}),
  };
  const filtered = Object.values(query).some(Boolean);
  const b = base(face);
  return (
    <Stack>
      <PageHeader title={face === 'console' ? 'Tickets' : 'Support tickets'}
        description={face === 'console' ? 'Questions and problems partners bring to the service desk.' : 'Ask the program team for help, for yourself or for one of your customers.'}
        actions={canWrite && <Button onClick={() => { setOpening(true); }}>Open a ticket</Button>} />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput label="Search subjects" type="search" value={q} onChange={(e) => { setQ(e.currentTarget.value); }} />
        <NativeSelect label="Status" value={f.status} onChange={(e) => { set({ status: e.currentTarget.value }); }}
          data={[{ value: '', label: 'Any status' }, ...ticketStatuses.map((s) => ({ value: s, label: statusText[s] }))]} />
        <NativeSelect label="Priority" value={f.priority} onChange={(e) => { set({ priority: e.currentTarget.value }); }}
          data={[{ value: '', label: 'Any priority' }, ...priorities.map((p) => ({ value: p, label: cap(p) }))]} />
        {face === 'console' && <>
          <PartnerSelect label="Partner" placeholder="Any partner" value={f.partnerId} onChange={(v) => { set({ partnerId: v }); }} />
          <AdminUserSelect label="Assignee" placeholder="Anyone" value={f.assigneeUserId} onChange={(v) => { set({ assigneeUserId: v }); }} />
          <NativeSelect label="Category" value={f.categoryId} onChange={(e) => { set({ categoryId: e.currentTarget.value }); }}
            data={[{ value: '', label: 'Any category' }, ...(cats.data ?? []).map((c) => ({ value: c.id, label: c.name }))]} />
          <TextInput label="Tag" value={f.tag} onChange={(e) => { set({ tag: e.currentTarget.value.trim().toLowerCase() }); }} />
          <NativeSelect label="SLA" value={f.sla} onChange={(e) => { set({ sla: e.currentTarget.value }); }}
            data={[{ value: '', label: 'Any SLA state' }, { value: 'breached', label: 'Breached' }, { value: 'paused', label: 'Paused (on partner)' }]} />
        </>}
      </Group>
      <PagedTable<Ticket>
        label="Tickets"
        queryKey={['tickets', 'list', face, query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/tickets', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(t) => t.id}
        empty={filtered ? 'No tickets match these filters.' : 'No tickets yet.'}
        columns={[
          { header: 'Subject', render: (t) => <Anchor component={Link} to={`${b}/${t.id}`}>{t.subject}</Anchor> },
          ...(face === 'console' ? [{ header: 'Partner', render: (t: Ticket) => <PartnerName id={t.partnerId} /> }] : []),
          { header: 'Status', render: (t) => <TicketStatusBadge status={t.status} /> },
          { header: 'Priority', render: (t) => cap(t.priority) },
          ...(face === 'console' ? [{ header: 'SLA', render: (t: Ticket) => <SLABadge sla={t.sla} /> }] : []),
          ...(face === 'console' ? [{ header: 'Assignee', render: (t: Ticket) => <OperatorName id={t.assigneeUserId} /> }] : []),
          { header: 'Category', render: (t) => <CategoryName id={t.categoryId} /> },
          { header: 'Updated', render: (t) => <DateTime value={t.updatedAt} /> },
        ]}
      />
      <Modal opened={opening} onClose={() => { setOpening(false); }} title="Open a ticket" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {opening && <OpenTicketForm face={face} onCancel={() => { setOpening(false); }} />}
      </Modal>
    </Stack>
  );
}

const attachmentHelp = 'PDF, image, text or CSV, ZIP, Word or Excel; at most 10 MB.';

function uploadAttachment(ticketId: string, file: File, messageId?: string) {
  return uploadFile<Attachment>(`/api/tickets/${encodeURIComponent(ticketId)}/attachments${qs({ name: file.name, messageId })}`, file);
}

/** Opening a ticket: the partner (console) or a customer of the partner (portal), and the first message. */
function OpenTicketForm({ face, onCancel }: { face: Face; onCancel: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const cats = useCategories();
  const canCustomers = useCan('customers:read');
  const canPeople = useCan('partner_users:read') && face === 'console';
  const [v, setV] = useState({ partnerId: '', customerId: '', requesterId: '', subject: '', body: '', priority: 'normal', categoryId: '', assigneeUserId: '', tags: '' });
  const [file, setFile] = useState<File | null>(null);
  const customerPartner = face === 'console' ? v.partnerId : undefined;
  const people = useQuery({
    queryKey: ['partner-users', 'picker', v.partnerId],
    enabled: canPeople && !!v.partnerId,
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/users', { params: { path: { id: v.partnerId }, query: { limit: 100 } } })).data,
  });
  const open = useMutation({
    mutationFn: async () => {
      const t = unwrap(await api.POST('/api/tickets', { body: {
        subject: v.subject.trim(), body: v.body.trim(), priority: oneOf(v.priority, priorities),
        categoryId: orUndefined(v.categoryId), customerId: orUndefined(v.customerId),
        partnerId: face === 'console' ? v.partnerId : undefined,
        assigneeUserId: face === 'console' ? orUndefined(v.assigneeUserId) : undefined,
        requesterId: face === 'console' ? orUndefined(v.requesterId) : undefined,
        tags: v.tags.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean),
      } }));
      let uploadError: unknown = null;
      if (file) {
        try {
          const firstMessage = unwrap(await api.GET('/api/tickets/{id}/messages', { params: { path: { id: t.id }, query: { limit: 1 } } })).data[0];
          await uploadAttachment(t.id, file, firstMessage?.id);
        } catch (err) { uploadError = err; }
      }
      return { t, uploadError };
    },
    onSuccess: async ({ t, uploadError }) => {
      await queryClient.invalidateQueries({ queryKey: ['tickets'] });
      if (uploadError) notify(`Ticket opened, but the file was not attached: ${uploadError instanceof Error ? uploadError.message : 'upload failed'}`, 'orange');
      else notify('Ticket opened');
      void navigate(`${base(face)}/${t.id}`);
    },
  });
  const errs = fieldErrors(open.error);
  const change = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => { const val = e.currentTarget.value; setV((s) => ({ ...s, [k]: val })); };
  return (
    <form onSubmit={(e) => { e.preventDefault(); open.mutate(); }}>
      <Stack>
        {face === 'console' && (
          <PartnerSelect label="Partner" required value={v.partnerId} error={errs.partnerId}
            onChange={(id) => { setV((s) => ({ ...s, partnerId: id, customerId: '', requesterId: '' })); }} />
        )}
        {canPeople && (
          <NativeSelect label="On behalf of" value={v.requesterId} onChange={change('requesterId')} disabled={!v.partnerId} error={errs.requesterId}
            description="The partner user who asks"
            data={[{ value: '', label: 'Myself' }, ...(people.data ?? []).filter((u) => u.status !== 'deactivated').map((u) => ({ value: u.id, label: u.name ? `${u.name} (${u.email})` : u.email }))]} />
        )}
        {canCustomers && (
          <SearchSelect kind={`customers-of-${customerPartner ?? 'mine'}`} label="Customer (optional)" description="Type part of the name or email"
            placeholder={face === 'portal' ? 'Not about a customer' : 'None'} nothingFoundMessage="No such customer"
            enabled={face === 'portal' || !!v.partnerId} disabled={face === 'console' && !v.partnerId} error={errs.customerId}
            value={v.customerId} onChange={(id) => { setV((s) => ({ ...s, customerId: id })); }}
            search={async (q) => unwrap(await api.GET('/api/customers', { params: { query: { limit: SEARCH_MATCHES, partnerId: customerPartner, ...(q ? { q } : {}) } } }))
              .data.map((c) => ({ value: c.id, label: c.name ?? c.email ?? c.id }))}
            labelOf={async (id) => { const c = unwrap(await api.GET('/api/customers/{id}', { params: { path: { id } } })); return c.name ?? c.email ?? c.id; }} />
        )}
        <TextInput label="Subject" required maxLength={200} value={v.subject} onChange={change('subject')} error={errs.subject} />
        <Textarea label="Message" required autosize minRows={4} maxLength={20000} value={v.body} onChange={change('body')} error={errs.body} />
        <Group grow align="flex-start">
          <NativeSelect label="Priority" value={v.priority} onChange={change('priority')} data={priorities.map((p) => ({ value: p, label: cap(p) }))} />
          <NativeSelect label="Category" value={v.categoryId} onChange={change('categoryId')} error={errs.categoryId}
            data={[{ value: '', label: 'None' }, ...(cats.data ?? []).map((c) => ({ value: c.id, label: c.name }))]} />
        </Group>
        {face === 'console' && <>
          <AdminUserSelect label="Assignee" placeholder="Unassigned" value={v.assigneeUserId} onChange={(id) => { setV((s) => ({ ...s, assigneeUserId: id })); }} />
          <TextInput label="Tags" description="Lower-case words, separated by commas" value={v.tags} onChange={change('tags')} error={errs.tags} />
        </>}
        <FilePicker label="Attach a file (optional)" file={file} onChange={setFile} description={attachmentHelp} />
        <ErrorAlert error={open.error} shownFields={['partnerId', 'customerId', 'requesterId', 'subject', 'body', 'categoryId', 'tags']} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>Cancel</Button>
          <Button type="submit" loading={open.isPending} disabled={!v.subject.trim() || !v.body.trim() || (face === 'console' && !v.partnerId)}>Open ticket</Button>
        </Group>
      </Stack>
    </form>
  );
}

function useDownload() {
  return useMutation({
    mutationFn: (a: Attachment) => downloadFile(`/api/ticket-attachments/${encodeURIComponent(a.id)}`, a.name),
  });
}

function FileButton({ a, onDownload }: { a: Attachment; onDownload: (a: Attachment) => void }) {
  return (
    <Button variant="light" size="compact-sm" onClick={() => { onDownload(a); }} aria-label={`Download ${a.name}`}>
      {a.name} ({formatBytes(a.size)})
    </Button>
  );
}

/** One message of the thread; an internal note is marked so that nobody takes it for a reply. */
function MessageCard({ m, files, face, onDownload }: { m: Message; files: Attachment[]; face: Face; onDownload: (a: Attachment) => void }) {
  const author = m.authorKind === 'operator' && face === 'portal' ? 'Program team' : <PersonName id={m.authorId} />;
  return (
    <Paper withBorder p="sm" radius="md" component="article" aria-label={m.internal ? 'Internal note' : 'Message'} data-internal={m.internal ? 'true' : undefined}
      bg={m.internal ? 'var(--mantine-color-yellow-light)' : undefined}
      style={m.internal ? { borderColor: 'var(--mantine-color-yellow-7)', borderStyle: 'dashed' } : undefined}>
      <Group justify="space-between" gap="xs" mb={4}>
        <Group gap="xs">
          <Text size="sm" fw={600}>{author}</Text>
          {m.authorKind === 'operator' && face === 'console' && !m.internal && <Badge variant="outline" color="gray" size="sm">Desk reply</Badge>}
          {m.internal && <Badge color="yellow.5" autoContrast variant="filled" size="sm">Internal note · partners never see it</Badge>}
        </Group>
        <Text size="xs" c={m.internal ? undefined : 'dimmed'}><DateTime value={m.createdAt} /></Text>
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{m.body}</Text>
      {files.length > 0 && (
        <Group gap="xs" mt="xs">{files.map((a) => <FileButton key={a.id} a={a} onDownload={onDownload} />)}</Group>
      )}
    </Paper>
  );
}

/** One ticket: its facts, triage and status moves (desk), the thread, replying, notes and files. */
export function TicketView({ face }: { face: Face }) {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canWrite = useCan('tickets:write');
  const canManage = useCan('tickets:manage') && face === 'console';
  const download = useDownload();
  const me = useMe();

  const ticket = useQuery({
    queryKey: ['tickets', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/tickets/{id}', { params: { path: { id } } })),
    retry: false,
  });
  const messages = useInfiniteQuery({
    queryKey: ['tickets', 'messages', id],
    enabled: ticket.isSuccess,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.GET('/api/tickets/{id}/messages', { params: { path: { id }, query: { cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (p) => p.nextCursor || undefined,
  });
  const files = useInfiniteQuery({
    queryKey: ['tickets', 'attachments', id],
    enabled: ticket.isSuccess,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.GET('/api/tickets/{id}/attachments', { params: { path: { id }, query: { cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (p) => p.nextCursor || undefined,
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['tickets'] });
  };
  const status = useMutation({
    mutationFn: async (to: TicketStatus) => unwrap(await api.POST('/api/tickets/{id}/status', { params: { path: { id } }, body: { status: to } })),
    onSuccess: async (t) => { notify(`Ticket ${statusText[t.status].toLowerCase()}`); await refresh(); },
  });

  const b = base(face);
  if (ticket.isPending) return <Loader aria-label="Loading ticket" />;
  if (ticket.isError) {
    return (
      <Stack>
        <PageHeader title="Ticket" />
        <ErrorAlert error={ticket.error} />
        <Anchor component={Link} to={b}>Back to tickets</Anchor>
      </Stack>
    );
  }
  const t = ticket.data;
  const allFiles = files.data?.pages.flatMap((p) => p.data) ?? [];
  const thread = messages.data?.pages.flatMap((p) => p.data) ?? [];
  const next = movesFrom(t.status, face);
  return (
    <Stack>
      <Anchor component={Link} to={b} size="sm">← {face === 'console' ? 'Tickets' : 'Support tickets'}</Anchor>
      <PageHeader title={t.subject} description={<>Opened <DateTime value={t.createdAt} />{(face === 'console' || t.requesterId === me.data?.userId) && <> by <PersonName id={t.requesterId} /></>}</>}
        actions={canWrite && next.map((to) => (to === 'closed'
          ? <ConfirmButton key={to} variant="default" label="Close" title="Close this ticket?" confirmLabel="Close ticket"
              message="A closed ticket is final: it takes no more replies or status changes." onConfirm={() => status.mutateAsync(to)} />
          : <Button key={to} variant={to === 'resolved' ? 'filled' : 'default'} loading={status.isPending && status.variables === to}
              onClick={() => { status.mutate(to); }}>{moveText[to]}</Button>))} />
      <ErrorAlert error={status.error} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
          <Field label="Status"><TicketStatusBadge status={t.status} /></Field>
          <Field label="Priority">{cap(t.priority)}</Field>
          <Field label="Category"><CategoryName id={t.categoryId} /></Field>
          {face === 'console' && <Field label="Partner"><PartnerName id={t.partnerId} /></Field>}
          <Field label="Customer"><CustomerName id={t.customerId} face={face} /></Field>
          {face === 'console' && <Field label="Assignee"><OperatorName id={t.assigneeUserId} /></Field>}
          <Field label="First response"><DateTime value={t.firstResponseAt} /></Field>
          <Field label="Resolved"><DateTime value={t.resolvedAt} /></Field>
          {t.tags.length > 0 && <Field label="Tags"><Group gap={4}>{t.tags.map((tag) => <Badge key={tag} variant="outline" color="gray">{tag}</Badge>)}</Group></Field>}
        </SimpleGrid>
      </Card>
      {face === 'console' && <SLACard t={t} />}
      {canManage && <Triage ticket={t} onSaved={refresh} />}

      <Title order={2} size="h4">Conversation</Title>
      {messages.isError && <ErrorAlert error={messages.error} />}
      {messages.isPending && <Loader size="sm" aria-label="Loading messages" />}
      <Stack gap="sm" aria-label="Conversation" role="feed" aria-busy={messages.isFetching}>
        {thread.map((m) => <MessageCard key={m.id} m={m} face={face} files={allFiles.filter((a) => a.messageId === m.id)} onDownload={(a) => { download.mutate(a); }} />)}
      </Stack>
      {messages.hasNextPage && (
        <Group><Button variant="default" size="xs" loading={messages.isFetchingNextPage} onClick={() => { void messages.fetchNextPage(); }}>Show more messages</Button></Group>
      )}
      <ErrorAlert error={download.error} />
      {canWrite && t.status !== 'closed' && <Composer ticketId={id} canNote={canManage} onDone={refresh} />}
      {t.status === 'closed' && <Text size="sm" c="dimmed">This ticket is closed and takes no more replies.</Text>}

      <Title order={2} size="h4">Files</Title>
      <FileList files={allFiles} face={face} onDownload={(a) => { download.mutate(a); }} />
      {files.hasNextPage && (
        <Group><Button variant="default" size="xs" loading={files.isFetchingNextPage} onClick={() => { void files.fetchNextPage(); }}>Show more files</Button></Group>
      )}
      {canWrite && t.status !== 'closed' && <UploadFile ticketId={id} onDone={refresh} />}
    </Stack>
  );
}

function FileList({ files, face, onDownload }: { files: Attachment[]; face: Face; onDownload: (a: Attachment) => void }) {
  if (files.length === 0) return <Text size="sm" c="dimmed">No files yet.</Text>;
  return (
    <Stack gap={6} role="list" aria-label="Files">
      {files.map((a) => (
        <Group key={a.id} gap="xs" role="listitem">
          <FileButton a={a} onDownload={onDownload} />
          <Text size="xs" c="dimmed">{a.contentType} · <DateTime value={a.createdAt} /></Text>
          {a.internal && face === 'console' && <Badge color="yellow.5" autoContrast variant="filled" size="sm">Internal</Badge>}
        </Group>
      ))}
    </Stack>
  );
}

/** Replying (and, for the desk, an internal note), with an optional file that goes with the message. */
function Composer({ ticketId, canNote, onDone }: { ticketId: string; canNote: boolean; onDone: () => Promise<void> }) {
  const [body, setBody] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const send = useMutation({
    mutationFn: async (internal: boolean) => {
      const path = internal ? '/api/tickets/{id}/notes' : '/api/tickets/{id}/messages';
      const m = unwrap(await api.POST(path, { params: { path: { id: ticketId } }, body: { body: body.trim() } }));
      setBody('');
      if (file) {
        try {
          await uploadAttachment(ticketId, file, m.id);
        } catch (err) {
          // The message stands; only its file was refused.
          if (err instanceof ApiError) throw new ApiError({ ...err.problem, title: `${internal ? 'Note' : 'Reply'} sent without its file: ${err.problem.title}` });
          throw err;
        }
        setFile(null);
      }
      return internal;
    },
    onSuccess: (internal) => { notify(internal ? 'Internal note added' : 'Reply sent'); },
    onSettled: onDone,
  });
  return (
    <form onSubmit={(e) => { e.preventDefault(); send.mutate(false); }}>
      <Card withBorder>
        <Stack gap="sm">
          <Textarea label="Your message" autosize minRows={3} maxLength={20000} value={body} onChange={(e) => { setBody(e.currentTarget.value); }}
            error={fieldErrors(send.error).body} description={canNote ? 'Send it as a reply the partner reads, or as an internal note only the desk sees.' : undefined} />
          <FilePicker label="Attach a file" file={file} onChange={setFile} description={attachmentHelp} />
          <ErrorAlert error={send.error} shownFields={['body']} />
          <Group justify="flex-end">
            {canNote && <Button type="button" variant="default" disabled={!body.trim()} loading={send.isPending && send.variables}
              onClick={() => { send.mutate(true); }}>Add internal note</Button>}
            <Button type="submit" disabled={!body.trim()} loading={send.isPending && !send.variables}>Send reply</Button>
          </Group>
        </Stack>
      </Card>
    </form>
  );
}

/** A file for the ticket on its own, not with a message. */
function UploadFile({ ticketId, onDone }: { ticketId: string; onDone: () => Promise<void> }) {
  const [file, setFile] = useState<File | null>(null);
  const up = useMutation({
    mutationFn: async () => { if (file) await uploadAttachment(ticketId, file); },
    onSuccess: async () => { setFile(null); notify('File attached'); await onDone(); },
  });
  return (
    <Group align="flex-end" gap="sm">
      <FilePicker label="Add a file to the ticket" file={file} onChange={(f) => { up.reset(); setFile(f); }} description={attachmentHelp} />
      <Button variant="default" disabled={!file} loading={up.isPending} onClick={() => { up.mutate(); }}>Upload</Button>
      {up.error && <div style={{ flexBasis: '100%' }}><ErrorAlert error={up.error} /></div>}
    </Group>
  );
}

/** The desk's triage: priority, category, assignee and tags. */
function Triage({ ticket, onSaved }: { ticket: Ticket; onSaved: () => Promise<void> }) {
  const cats = useCategories();
  const [v, setV] = useState<Record<'priority' | 'categoryId' | 'assigneeUserId' | 'tags', string>>({ priority: ticket.priority, categoryId: ticket.categoryId ?? '', assigneeUserId: ticket.assigneeUserId ?? '', tags: ticket.tags.join(', ') });
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/tickets/{id}', { params: { path: { id: ticket.id } }, body: {
      priority: oneOf(v.priority, priorities), categoryId: v.categoryId, assigneeUserId: v.assigneeUserId,
      tags: v.tags.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean),
    } })),
    onSuccess: async () => { notify('Ticket updated'); await onSaved(); },
  });
  const errs = fieldErrors(save.error);
  return (
    <Card withBorder component="section" aria-labelledby="triage-heading">
      <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
        <Stack gap="sm">
          <Title order={2} size="h5" id="triage-heading">Triage</Title>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            <NativeSelect label="Priority" value={v.priority} onChange={(e) => { const x = e.currentTarget.value; setV((s) => ({ ...s, priority: x })); }}
              data={priorities.map((p) => ({ value: p, label: cap(p) }))} />
            <NativeSelect label="Category" value={v.categoryId} error={errs.categoryId}
              onChange={(e) => { const x = e.currentTarget.value; setV((s) => ({ ...s, categoryId: x })); }}
              data={[{ value: '', label: 'None' }, ...(cats.data ?? []).map((c) => ({ value: c.id, label: c.name }))]} />
            <AdminUserSelect label="Assignee" placeholder="Unassigned" value={v.assigneeUserId} error={errs.assigneeUserId}
              onChange={(x) => { setV((s) => ({ ...s, assigneeUserId: x })); }} />
            <TextInput label="Tags" description="Separated by commas" value={v.tags} error={errs.tags}
              onChange={(e) => { const x = e.currentTarget.value; setV((s) => ({ ...s, tags: x })); }} />
          </SimpleGrid>
          <ErrorAlert error={save.error} shownFields={['categoryId', 'assigneeUserId', 'tags']} />
          <Group justify="flex-end"><Button type="submit" variant="default" loading={save.isPending}>Save triage</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}
