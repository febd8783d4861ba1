import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Group, Select, Stack, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { oneOf, useAdminFilters } from '../../ui/AdminFilters';
import { DateTime } from '../../ui/DateTime';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';

type Run = Schemas['PlaybookRun'];
const statuses = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
const labels: Record<Run['status'], string> = { queued: 'Queued', running: 'Running', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

/** Runs of every playbook, newest first: what they did and how they ended. */
export default function PlaybookRuns() {
  const [f, setF] = useAdminFilters(['playbookId', 'status'] as const);
  const playbooks = useQuery({
    queryKey: ['playbooks', 'picker'],
    queryFn: async () => unwrap(await api.GET('/api/playbooks', { params: { query: { limit: 100 } } })).data,
    staleTime: 60_000,
  });
  const name = (id: string) => playbooks.data?.find((p) => p.id === id)?.name ?? id;
  const query = { playbookId: f.playbookId || undefined, status: oneOf(f.status, statuses) };
  const options = (playbooks.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  if (f.playbookId && !options.some((o) => o.value === f.playbookId)) options.push({ value: f.playbookId, label: f.playbookId });
  return (
    <Stack>
      <PageHeader title="Playbook runs" description="Each run follows one published version of its playbook, step by step." />
      <Group align="flex-end" wrap="wrap">
        <Select label="Playbook" searchable clearable w={240} data={options} value={f.playbookId || null} onChange={(v) => { setF({ playbookId: v }); }} />
        <Select label="Status" clearable w={150} value={f.status || null} onChange={(v) => { setF({ status: v }); }}
          data={statuses.map((s) => ({ value: s, label: labels[s] }))} />
      </Group>
      <PagedTable<Run>
        label="Playbook runs"
        queryKey={['playbook-runs', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/playbook-runs', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(r) => r.id}
        empty="No runs match these filters."
        columns={[
          { header: 'Started', render: (r) => <Anchor component={Link} to={`/playbook-runs/${r.id}`} size="sm"><DateTime value={r.startedAt} /></Anchor> },
          { header: 'Playbook', render: (r) => <Anchor component={Link} to={`/playbooks/${r.playbookId}`} size="sm">{name(r.playbookId)}</Anchor> },
          { header: 'Version', render: (r) => `v${String(r.version)}` },
          { header: 'Status', render: (r) => <Group gap={4}><StatusBadge status={r.status} />{r.cancelRequested && r.status === 'running' && <Text size="xs" c="dimmed">cancelling</Text>}</Group> },
          { header: 'Ended', render: (r) => <DateTime value={r.endedAt} /> },
          { header: 'Error', render: (r) => <Text size="sm" c="red" lineClamp={2}>{r.error}</Text> },
        ]}
      />
    </Stack>
  );
}
