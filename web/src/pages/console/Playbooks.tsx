import { useState } from 'react';
import { Link } from 'react-router';
import { Anchor, Button, Card, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useCan } from '../../auth/useCan';
import { api, unwrap, type Schemas } from '../../api/client';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { oneOf, useAdminFilters } from '../../ui/AdminFilters';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';

type Playbook = Schemas['Playbook'];
const statuses = ['draft', 'enabled', 'disabled', 'archived'] as const;
const labels: Record<Playbook['status'], string> = { draft: 'Draft', enabled: 'Enabled', disabled: 'Disabled', archived: 'Archived' };

/** The tenant's playbooks: what starts them, their status and published version. */
export default function Playbooks() {
  const [f, setF] = useAdminFilters(['status'] as const);
  const status = oneOf(f.status, statuses);
  const canWrite = useCan('playbooks:write');
  return (
    <Stack>
      <PageHeader title="Playbooks" description="Automations that run when events happen: emails, tasks, webhooks, commissions."
        actions={<>
          <Anchor component={Link} to="/playbook-runs" size="sm">All runs →</Anchor>
          {canWrite && <Button component={Link} to="/playbooks/new">New playbook</Button>}
        </>} />
      <Group align="flex-end">
        <Select label="Status" clearable w={160} value={f.status || null} onChange={(v) => { setF({ status: v }); }}
          data={statuses.map((s) => ({ value: s, label: labels[s] }))} />
      </Group>
      <PagedTable<Playbook>
        label="Playbooks"
        queryKey={['playbooks', { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/playbooks', { params: { query: { status, cursor, limit: 25 } } }))}
        rowKey={(p) => p.id}
        empty="No playbooks match this filter."
        columns={[
          {
            header: 'Playbook', render: (p) => (
              <Stack gap={0}>
                <Anchor component={Link} to={`/playbooks/${p.id}`} size="sm" fw={500}>{p.name}</Anchor>
                {p.description && <Text size="xs" c="dimmed" lineClamp={1}>{p.description}</Text>}
              </Stack>
            ),
          },
          { header: 'Starts on', render: (p) => <code>{p.graph.trigger.eventType}</code> },
          { header: 'Status', render: (p) => <StatusBadge status={p.status} /> },
          { header: 'Published', render: (p) => (p.publishedVersion ? `v${String(p.publishedVersion)}` : 'never') },
          { header: 'Updated', render: (p) => <DateTime value={p.updatedAt} /> },
        ]}
      />
      {canWrite && <SigningSecret />}
    </Stack>
  );
}

/** A new signing secret for the calls of call_webhook actions, shown once. */
function SigningSecret() {
  const [secret, setSecret] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  return (
    <Card withBorder component="section" aria-labelledby="signing-secret-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="signing-secret-title">Signing secret of webhook calls</Title>
        <Text size="sm" c="dimmed">
          Every call a playbook's call_webhook action makes is signed (Standard Webhooks). Set a new secret to give
          the receivers one they can verify with; it is shown once and replaces the previous one at once.
        </Text>
        {failed !== null && <ErrorAlert error={failed} />}
        <Group>
          <AdminConfirmButton color="blue" label="Set a new signing secret" title="Set a new signing secret?"
            message="Calls are signed with the new secret from now on; receivers that verify with the old one refuse them until they are given the new one."
            onConfirm={async () => {
              setFailed(null);
              try {
                setSecret(unwrap(await api.POST('/api/playbooks/webhook-secret')).secret);
              } catch (err) {
                setFailed(err);
                throw err;
              }
            }} />
        </Group>
      </Stack>
      <SecretOnce title="Signing secret of webhook calls" secret={secret} onClose={() => { setSecret(null); }} />
    </Card>
  );
}
