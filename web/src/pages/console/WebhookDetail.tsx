import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  Alert, Anchor, Badge, Button, Card, Code, Group, Modal, Select, SimpleGrid, Skeleton, Stack, Table, Text, Title, VisuallyHidden,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';
import { ConfirmButton } from '../../ui/DataConfirm';
import { WebhookFields } from '../../ui/DataWebhookForm';
import { webhookFields, type WebhookValues } from '../../ui/DataValues';
import { WebhookState } from './Webhooks';
import { Field } from '../../ui/Field';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['WebhookDelivery'];
type DeliveryStatus = Delivery['status'];

/** How long from a delivery's creation to its outcome. */
function took(d: Delivery): string {
  if (!d.completedAt) return '—';
  const ms = new Date(d.completedAt).getTime() - new Date(d.createdAt).getTime();
  if (ms < 1000) return `${String(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${String(Math.round(ms / 60_000))} min`;
}

function EditWebhook({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<WebhookValues>({
    initialValues: { url: webhook.url, eventTypes: webhook.eventTypes ?? [], description: webhook.description },
  });
  const save = useMutation({
    mutationFn: async (v: WebhookValues) => unwrap(await api.PATCH('/api/webhooks/{id}', {
      params: { path: { id: webhook.id } },
      body: { url: v.url.trim(), eventTypes: v.eventTypes, description: v.description.trim() },
    })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (w) => {
      queryClient.setQueryData(['webhooks', 'one', w.id], w);
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      notify('Webhook saved');
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Edit webhook endpoint" size="lg">
      <form onSubmit={form.onSubmit((v) => { if (v.eventTypes.length === 0) form.setFieldError('eventTypes', 'Pick at least one event type or pattern'); else save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={webhookFields} />
          <WebhookFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RotateSecret({ webhook, onClose, onRotated }: { webhook: Webhook; onClose: () => void; onRotated: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const [grace, setGrace] = useState('24h');
  const rotate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/webhooks/{id}/rotate-secret', {
      params: { path: { id: webhook.id }, query: { gracePeriod: grace } },
    })),
    onSuccess: async (w) => {
      const { secret, ...rest } = w;
      queryClient.setQueryData(['webhooks', 'one', w.id], rest);
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      onRotated(secret);
    },
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Rotate the signing secret">
      <Stack>
        <Text size="sm">A new secret signs every delivery from now on. Until the grace period ends the old one signs too, so your endpoint can switch without missing a message.</Text>
        <Select label="Old secret keeps signing for" allowDeselect={false} value={grace} onChange={(v) => { setGrace(v ?? '24h'); }}
          data={[{ value: '0s', label: 'Stop it now' }, { value: '1h', label: '1 hour' }, { value: '24h', label: '24 hours' }, { value: '72h', label: '3 days' }, { value: '168h', label: '7 days' }]} />
        <ErrorAlert error={rotate.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Cancel</Button>
          <Button loading={rotate.isPending} onClick={() => { rotate.mutate(); }}>Rotate secret</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function DeliveryDetail({ webhookId, deliveryId, onClose }: { webhookId: string; deliveryId: string; onClose: () => void }) {
  const canWrite = useCan('webhooks:write');
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: ['webhooks', 'delivery', webhookId, deliveryId],
    queryFn: async () => unwrap(await api.GET('/api/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id: webhookId, deliveryId } } })),
    refetchInterval: (q) => q.state.data?.status === 'pending' ? 2000 : false,
  });
  const replay = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/replay', { params: { path: { id: webhookId, deliveryId } } })),
    onSuccess: async () => {
      notify('Delivery sent again');
      await queryClient.invalidateQueries({ queryKey: ['webhooks', 'deliveries', webhookId] });
      await queryClient.invalidateQueries({ queryKey: ['webhooks', 'delivery', webhookId, deliveryId] });
    },
  });
  const d = detail.data;
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Delivery" size="xl">
      <Stack>
        <ErrorAlert error={detail.error} />
        {detail.isPending && <Skeleton height={120} />}
        {d && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="Status"><StatusBadge status={d.status} /></Field>
              <Field label="Event type"><Code>{d.eventType}</Code>{d.test && <Badge ml="xs" variant="default">test</Badge>}</Field>
              <Field label="Event">{d.eventId ? <Anchor component={Link} to={`/events/${d.eventId}`} size="sm">{d.eventId}</Anchor> : '—'}</Field>
              <Field label="webhook-id header"><Code>{d.messageId}</Code></Field>
              <Field label="Created"><DateTime value={d.createdAt} /></Field>
              <Field label="Completed"><DateTime value={d.completedAt} /></Field>
              <Field label="Attempts">{d.attemptCount}</Field>
              <Field label="Replays">{d.replays}</Field>
              <Field label="Last response">{d.lastStatusCode ? d.lastStatusCode : 'none'}</Field>
            </SimpleGrid>
            <Title order={3} size="h5">Attempts</Title>
            {d.attempts.length === 0 ? <Text size="sm" c="dimmed">No attempt yet.</Text> : (
              <Table.ScrollContainer minWidth={600}>
                <Table striped aria-label="Attempts">
                  <Table.Thead>
                    <Table.Tr><Table.Th>#</Table.Th><Table.Th>At</Table.Th><Table.Th>Response</Table.Th><Table.Th ta="right">Took</Table.Th><Table.Th>Error or response body</Table.Th></Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {d.attempts.map((a) => (
                      <Table.Tr key={a.id}>
                        <Table.Td>{a.number}</Table.Td>
                        <Table.Td><DateTime value={a.attemptedAt} /></Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>{a.statusCode ? <Badge variant="dot" color={a.statusCode < 300 ? 'green' : 'red'}>{a.statusCode}</Badge> : <Text size="sm" fw={500}>no response</Text>}</Table.Td>
                        <Table.Td ta="right">{a.latencyMs} ms</Table.Td>
                        <Table.Td>
                          {a.error && <Text size="sm" c="red">{a.error}</Text>}
                          {a.responseBody && <Code block style={{ maxHeight: 160, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{a.responseBody}</Code>}
                          {!a.error && !a.responseBody && '—'}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
            <ErrorAlert error={replay.error} />
            <Group justify="flex-end">
              {canWrite && d.status !== 'pending' && <Button variant="default" loading={replay.isPending} onClick={() => { replay.mutate(); }}>Replay</Button>}
              <Button variant="default" onClick={onClose}>Close</Button>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h4">Deliveries</Title>
        <Select label="Status" w={180} allowDeselect={false} value={status} onChange={(v) => { setStatus(v as DeliveryStatus | ''); }}
          data={[{ value: '', label: 'Any status' }, { value: 'pending', label: 'Pending' }, { value: 'succeeded', label: 'Succeeded' }, { value: 'failed', label: 'Failed' }, { value: 'cancelled', label: 'Cancelled' }]} />
      </Group>
      <PagedTable<Delivery>
        label="Deliveries"
        queryKey={['webhooks', 'deliveries', webhookId, { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/webhooks/{id}/deliveries', {
          params: { path: { id: webhookId }, query: { cursor, limit: 25, ...(status ? { status } : {}) } },
        }))}
        rowKey={(d) => d.id}
        empty={status ? `No ${status} deliveries.` : 'Nothing delivered yet. Send a test to try the endpoint.'}
        columns={[
          { header: 'Created', render: (d) => <DateTime value={d.createdAt} /> },
          { header: 'Event type', render: (d) => <Group gap={4} wrap="nowrap"><Code>{d.eventType}</Code>{d.test && <Badge variant="default" size="sm">test</Badge>}</Group> },
          { header: 'Status', render: (d) => <StatusBadge status={d.status} /> },
          { header: 'Attempts', render: (d) => d.attemptCount, numeric: true },
          { header: 'Response', render: (d) => d.lastStatusCode ? String(d.lastStatusCode) : '—', numeric: true },
          { header: 'Replays', render: (d) => d.replays, numeric: true },
          { header: 'Took', render: (d) => took(d), numeric: true },
          { header: <VisuallyHidden>Open</VisuallyHidden>, render: (d) => <Button size="xs" variant="subtle" onClick={() => { setOpen(d.id); }} aria-label={`Details of the ${d.eventType} delivery`}>Details</Button> },
        ]}
      />
      {open && <DeliveryDetail webhookId={webhookId} deliveryId={open} onClose={() => { setOpen(null); }} />}
    </Stack>
  );
}

/** One webhook endpoint: its settings, its signing secret's rotation, tests, and its deliveries. */
export default function WebhookDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('webhooks:write');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const webhook = useQuery({
    queryKey: ['webhooks', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/webhooks/{id}', { params: { path: { id } } })),
  });
  const w = webhook.data;
  const toggle = useMutation({
    mutationFn: async (enabled: boolean) => unwrap(await api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: async (x) => {
      queryClient.setQueryData(['webhooks', 'one', id], x);
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      notify(x.enabled ? 'Webhook enabled' : 'Webhook disabled');
    },
  });
  const test = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/webhooks/{id}/test', { params: { path: { id } } })),
    onSuccess: async (d) => {
      await queryClient.invalidateQueries({ queryKey: ['webhooks', 'deliveries', id] });
      const code = d.lastStatusCode ? ` (HTTP ${String(d.lastStatusCode)})` : '';
      notify(`Test delivery ${d.status}${code}`, d.status === 'succeeded' ? 'green' : 'orange');
    },
  });
  const remove = async () => {
    unwrap(await api.DELETE('/api/webhooks/{id}', { params: { path: { id } } }));
    notify('Webhook deleted');
    // Leave the page first, so nothing refetches what is gone.
    await navigate('/webhooks');
    queryClient.removeQueries({ queryKey: ['webhooks', 'one', id] });
    queryClient.removeQueries({ queryKey: ['webhooks', 'deliveries', id] });
    queryClient.removeQueries({ queryKey: ['webhooks', 'delivery', id] });
    await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  };
  return (
    <Stack gap="md">
      <PageHeader title="Webhook endpoint" description={<Anchor component={Link} to="/webhooks" size="sm">All webhooks</Anchor>}
        actions={w && canWrite && (
          <>
            <Button variant="default" onClick={() => { setEditing(true); }}>Edit</Button>
            <Button variant="default" loading={toggle.isPending} onClick={() => { toggle.mutate(!w.enabled); }}>{w.enabled ? 'Disable' : 'Enable'}</Button>
            <Button variant="default" onClick={() => { setRotating(true); }}>Rotate secret</Button>
            <Button variant="default" loading={test.isPending} disabled={!w.enabled} onClick={() => { test.mutate(); }}>Send test</Button>
            <ConfirmButton label="Delete" title="Delete this webhook endpoint?" confirmLabel="Delete endpoint"
              message="No more events are sent to it, and its delivery log is removed." onConfirm={remove} />
          </>
        )} />
      <ErrorAlert error={webhook.error ?? toggle.error ?? test.error} />
      {webhook.isPending && <Skeleton height={100} />}
      {w && (
        <Card withBorder>
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="URL"><Text size="sm" style={{ wordBreak: 'break-all' }} data-testid="webhook-url">{w.url}</Text></Field>
              <Field label="State"><WebhookState w={w} /></Field>
              <Field label="Signing secret"><Code>…{w.secretHint}</Code>
                {w.previousSecretExpiresAt && <Text size="xs" c="dimmed">The previous secret signs too until <DateTime value={w.previousSecretExpiresAt} /></Text>}
              </Field>
              <Field label="Event types"><Group gap={4}>{(w.eventTypes ?? []).map((t) => <Code key={t}>{t}</Code>)}</Group></Field>
              <Field label="Description">{w.description || '—'}</Field>
              <Field label="Created"><DateTime value={w.createdAt} /></Field>
            </SimpleGrid>
            {w.failingSince && w.enabled && <Alert color="orange" title="Failing">Deliveries have failed since <DateTime value={w.failingSince} />; the endpoint is disabled if it keeps failing.</Alert>}
            {!w.enabled && w.disabledAt && <Alert color="red" title="Disabled by partnerd">
              {w.disabledReason === 'gone' ? 'The endpoint answered 410 Gone' : 'The endpoint failed for too long'} on <DateTime value={w.disabledAt} />. Enable it again once it works.
            </Alert>}
          </Stack>
        </Card>
      )}
      {w && <Deliveries webhookId={id} />}
      {w && editing && <EditWebhook webhook={w} onClose={() => { setEditing(false); }} />}
      {w && rotating && <RotateSecret webhook={w} onClose={() => { setRotating(false); }} onRotated={(s) => { setRotating(false); setSecret(s); }} />}
      <SecretOnce title="The endpoint's new signing secret" secret={secret} onClose={() => { setSecret(null); }} />
    </Stack>
  );
}
