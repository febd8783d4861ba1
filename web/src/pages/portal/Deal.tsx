import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import {
  Alert, Anchor, Badge, Button, Card, Group, Loader, Modal, SimpleGrid, Stack, Text, Textarea, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { EditDealButton } from '../../ui/DealEdit';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';

type Deal = Schemas['Deal'];

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{label}</Text>
      <Text component="div" style={{ wordBreak: 'break-word' }}>{children}</Text>
    </Stack>
  );
}

/** What happened to the deal, as a person reads it. */
const eventLabels: Record<string, string> = {
  'deal.registered': 'Registered', 'deal.approved': 'Approved', 'deal.rejected': 'Rejected', 'deal.stage_changed': 'Moved to another stage',
  'deal.won': 'Won', 'deal.lost': 'Lost', 'deal.expiring': 'Protection ends soon', 'deal.expired': 'Protection expired',
  'deal.extension_requested': 'Extension requested', 'deal.extended': 'Protection extended',
};

function NoteForm({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const [body, setBody] = useState('');
  const add = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/notes', { params: { path: { id } }, body: { body } })),
    onSuccess: async () => {
      setBody('');
      notifications.show({ color: 'green', message: 'Note added' });
      await queryClient.invalidateQueries({ queryKey: ['deals', id, 'timeline'] });
    },
  });
  const errors = fieldErrors(add.error);
  return (
    <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); add.mutate(); }}>
      <Textarea label="Add a note" description="Visible to the program's team" autosize minRows={2} maxRows={8}
        value={body} onChange={(e) => { setBody(e.currentTarget.value); }} error={errors.body} />
      <ErrorAlert error={add.error} shownFields={['body']} />
      <Group justify="flex-end">
        <Button type="submit" variant="light" loading={add.isPending} disabled={!body.trim()}>Add note</Button>
      </Group>
    </Stack>
  );
}

function ExtensionRequest({ deal }: { deal: Deal }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [reason, setReason] = useState('');
  const request = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/deals/{id}/extension-request', { params: { path: { id: deal.id } }, body: { reason } })),
    onSuccess: async (d) => {
      queryClient.setQueryData(['deals', deal.id], d);
      setOpened(false);
      setReason('');
      notifications.show({ color: 'green', title: 'Extension requested', message: 'The program decides on a longer protection.' });
      await queryClient.invalidateQueries({ queryKey: ['deals'] });
    },
  });
  const errors = fieldErrors(request.error);
  return (
    <>
      <Button variant="default" onClick={() => { setOpened(true); }}>Request an extension</Button>
      <Modal lockScroll={false} opened={opened} onClose={() => { setOpened(false); }} title="Request a longer protection">
        <Stack component="form" onSubmit={(e) => { e.preventDefault(); request.mutate(); }}>
          <Text size="sm">Protected until <DateTime value={deal.protectedUntil} />. Say why the deal needs more time.</Text>
          <Textarea label="Reason" withAsterisk autosize minRows={3} data-autofocus
            value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} error={errors.reason} />
          <ErrorAlert error={request.error} shownFields={['reason']} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setOpened(false); }}>Cancel</Button>
            <Button type="submit" loading={request.isPending} disabled={!reason.trim()}>Send request</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** One deal of the partner: where it stands, its protection, its history and notes. */
export default function DealPage() {
  const { id = '' } = useParams();
  const canWrite = useCan('deals:write');
  const canPipelines = useCan('pipelines:read');
  const deal = useQuery({
    queryKey: ['deals', id],
    queryFn: async () => unwrap(await api.GET('/api/deals/{id}', { params: { path: { id } } })),
  });
  const pipeline = useQuery({
    queryKey: ['pipelines', deal.data?.pipelineId],
    queryFn: async () => unwrap(await api.GET('/api/pipelines/{id}', { params: { path: { id: deal.data?.pipelineId ?? '' } } })),
    enabled: !!deal.data?.pipelineId && canPipelines,
  });

  if (deal.isPending) return <Loader role="status" aria-label="Loading" />;
  if (deal.isError) {
    return (
      <Stack>
        <PageHeader title="Deal" />
        <ErrorAlert error={deal.error} />
        <Anchor component={Link} to="/portal/deals">Back to deals</Anchor>
      </Stack>
    );
  }
  const d = deal.data;
  const stage = pipeline.data?.stages.find((s) => s.id === d.stageId);
  const open = d.status === 'submitted' || d.status === 'approved';

  return (
    <Stack>
      <PageHeader title={d.customerCompany}
        description={<Group gap="xs" component="span"><StatusBadge status={d.status} />{d.reviewRequired && <Badge variant="light" color="orange">In review: overlaps other work</Badge>}</Group>}
        actions={<>
          {canWrite && <EditDealButton deal={d} />}
          {canWrite && d.status === 'approved' && !d.extensionRequestedAt && <ExtensionRequest deal={d} />}
          <Button variant="subtle" component={Link} to="/portal/deals">All deals</Button>
        </>} />
      {d.extensionRequestedAt && (
        <Alert color="blue" title="Extension requested">
          Requested <DateTime value={d.extensionRequestedAt} />{d.extensionReason ? `: ${d.extensionReason}` : ''}. The program decides on it.
        </Alert>
      )}
      {d.reason && (d.status === 'rejected' || d.status === 'lost') && (
        <Alert color="red" title={d.status === 'rejected' ? 'Why it was rejected' : 'Why it was lost'}>{d.reason}</Alert>
      )}
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md" verticalSpacing="md">
          <Field label="Amount"><Money minor={d.amountMinor} currency={d.currency} /></Field>
          <Field label="Stage">{stage ? `${stage.name} (${String(stage.probability)}%)` : pipeline.isPending && canPipelines ? '…' : '—'}</Field>
          <Field label="Protected until">{d.status === 'approved' ? <DateTime value={d.protectedUntil} /> : open ? 'Once approved' : '—'}</Field>
          <Field label="Expected close">{formatDate(d.expectedCloseDate)}</Field>
          <Field label="Customer domain">{d.customerDomain ?? '—'}</Field>
          <Field label="Contact">{[d.contactName, d.contactEmail].filter(Boolean).join(' · ') || '—'}</Field>
          <Field label="Registered"><DateTime value={d.createdAt} /></Field>
          <Field label={d.closedAt ? 'Closed' : 'Last change'}><DateTime value={d.closedAt ?? d.updatedAt} /></Field>
          {d.customerId && <Field label="Customer"><Anchor component={Link} to={`/portal/customers/${d.customerId}`}>Open customer</Anchor></Field>}
        </SimpleGrid>
        {d.notes && <Stack gap={0} mt="md"><Text size="xs" c="dimmed" tt="uppercase" fw={600}>Registration notes</Text><Text style={{ whiteSpace: 'pre-wrap' }}>{d.notes}</Text></Stack>}
      </Card>
      <Title order={2} size="h4">Timeline</Title>
      {canWrite && <NoteForm id={d.id} />}
      <PagedTable<Schemas['TimelineEntry']>
        label="Timeline"
        queryKey={['deals', d.id, 'timeline']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/deals/{id}/timeline', { params: { path: { id: d.id }, query: { cursor, limit: 20 } } }))}
        rowKey={(e) => e.id}
        empty="Nothing has happened yet."
        columns={[
          { header: 'When', render: (e) => <DateTime value={e.at} /> },
          { header: 'What', render: (e) => e.kind === 'note'
            ? <Stack gap={0}><Text size="xs" c="dimmed">Note</Text><Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{e.body}</Text></Stack>
            : <Text size="sm">{eventLabels[e.type ?? ''] ?? e.type}</Text> },
        ]}
      />
    </Stack>
  );
}
