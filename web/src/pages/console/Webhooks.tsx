import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Badge, Button, Code, Group, Modal, Stack, Switch, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { WebhookFields } from '../../ui/DataWebhookForm';
import { webhookFields, type WebhookValues } from '../../ui/DataValues';

type Webhook = Schemas['Webhook'];

/** A webhook's state as a badge: enabled, disabled by someone, or disabled by the service and why. */
export function WebhookState({ w }: { w: Webhook }) {
  if (w.enabled) return w.failingSince ? <Badge color="orange" variant="dot">failing</Badge> : <Badge color="green" variant="dot">enabled</Badge>;
  if (w.disabledReason === 'gone') return <Badge color="red" variant="dot">disabled: endpoint gone</Badge>;
  if (w.disabledReason === 'failing') return <Badge color="red" variant="dot">disabled: kept failing</Badge>;
  return <Badge color="gray" variant="dot">disabled</Badge>;
}

function CreateWebhook({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [enabled, setEnabled] = useState(true);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const form = useForm<WebhookValues>({
    initialValues: { url: '', eventTypes: [], description: '' },
  });
  const create = useMutation({
    mutationFn: async (v: WebhookValues) => unwrap(await api.POST('/api/webhooks', {
      body: { url: v.url.trim(), eventTypes: v.eventTypes, enabled, ...(v.description.trim() ? { description: v.description.trim() } : {}) },
    })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (w) => {
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      notify('Webhook endpoint added');
      form.reset();
      onClose();
      setCreated({ id: w.id, secret: w.secret });
    },
  });
  return (
    <>
      <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Add a webhook endpoint" size="lg">
        <form onSubmit={form.onSubmit((v) => { if (v.eventTypes.length === 0) form.setFieldError('eventTypes', 'Pick at least one event type or pattern'); else create.mutate(v); })}>
          <Stack>
            <ErrorAlert error={create.error} shownFields={webhookFields} />
            <WebhookFields form={form} />
            <Switch label="Send events right away" checked={enabled} onChange={(e) => { setEnabled(e.currentTarget.checked); }} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>Cancel</Button>
              <Button type="submit" loading={create.isPending}>Add endpoint</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <SecretOnce title="The endpoint's signing secret" secret={created?.secret ?? null}
        onClose={() => { const id = created?.id; setCreated(null); if (id) void navigate(`/webhooks/${id}`); }} />
    </>
  );
}

/** The endpoints partnerd sends signed events to, and how their deliveries go. */
export default function Webhooks() {
  const canWrite = useCan('webhooks:write');
  const [creating, setCreating] = useState(false);
  return (
    <Stack gap="md">
      <PageHeader title="Webhooks" description="Endpoints of your systems that receive signed events as they happen."
        actions={canWrite && <Button onClick={() => { setCreating(true); }}>Add endpoint</Button>} />
      <PagedTable<Webhook>
        label="Webhook endpoints"
        queryKey={['webhooks', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/webhooks', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(w) => w.id}
        empty="No webhook endpoints yet."
        columns={[
          { header: 'Endpoint', render: (w) => (
            <Stack gap={0}>
              <Anchor component={Link} to={`/webhooks/${w.id}`} size="sm" style={{ wordBreak: 'break-all' }}>{w.url}</Anchor>
              {w.description && <Text size="xs" c="dimmed">{w.description}</Text>}
            </Stack>
          ) },
          { header: 'Events', render: (w) => <Group gap={4}>{(w.eventTypes ?? []).slice(0, 4).map((t) => <Code key={t}>{t}</Code>)}{(w.eventTypes ?? []).length > 4 && <Text size="xs">+{(w.eventTypes ?? []).length - 4}</Text>}</Group> },
          { header: 'State', render: (w) => <WebhookState w={w} /> },
          { header: 'Secret ends', render: (w) => <Code>…{w.secretHint}</Code> },
          { header: 'Created', render: (w) => <DateTime value={w.createdAt} /> },
        ]}
      />
      {canWrite && <CreateWebhook opened={creating} onClose={() => { setCreating(false); }} />}
    </Stack>
  );
}
