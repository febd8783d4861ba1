import { Suspense, lazy, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { Anchor, Badge, Button, Card, Group, List, Loader, Modal, Select, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { AdminJson } from '../../ui/AdminJson';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { diff } from './playbook/diff';

// The graph drawing (React Flow) loads only when a diff is shown.
const GraphView = lazy(() => import('./playbook/GraphView'));

type Playbook = Schemas['Playbook'];
type Version = Schemas['PlaybookVersion'];
type Run = Schemas['PlaybookRun'];
type Move = 'enable' | 'disable' | 'archive';

const moves: Record<Move, { label: string; message: string; color: string; done: string }> = {
  enable: { label: 'Enable', color: 'green', done: 'enabled', message: 'Matching events start runs on the published version from now on.' },
  disable: { label: 'Pause', color: 'orange', done: 'disabled', message: 'No new runs start; runs under way finish.' },
  archive: { label: 'Archive', color: 'red', done: 'archived', message: 'The playbook stops for good: no new runs start and it cannot be enabled again.' },
};

/** The lifecycle moves a playbook in this status may make: draft → enabled ⇄ disabled, archived from any. */
function movesFor(p: Playbook): Move[] {
  if (p.status === 'archived') return [];
  const out: Move[] = [];
  if (p.status !== 'enabled' && p.publishedVersion > 0) out.push('enable');
  if (p.status === 'enabled') out.push('disable');
  out.push('archive');
  return out;
}

/** A playbook: its status and lifecycle, its published versions and their definitions, its runs. */
export default function PlaybookDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('playbooks:write');
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<Version | null>(null);
  const pb = useQuery({
    queryKey: ['playbooks', id],
    queryFn: async () => unwrap(await api.GET('/api/playbooks/{id}', { params: { path: { id } } })),
  });
  const move = useMutation({
    mutationFn: async (m: Move) => {
      const opts = { params: { path: { id } } };
      if (m === 'enable') return unwrap(await api.POST('/api/playbooks/{id}/enable', opts));
      if (m === 'disable') return unwrap(await api.POST('/api/playbooks/{id}/disable', opts));
      return unwrap(await api.POST('/api/playbooks/{id}/archive', opts));
    },
    onSuccess: async (p) => {
      notifications.show({ color: 'green', message: `${p.name} is ${p.status}` });
      queryClient.setQueryData(['playbooks', id], p);
      await queryClient.invalidateQueries({ queryKey: ['playbooks'] });
    },
  });

  if (pb.isPending) return <Loader role="status" aria-label="Loading playbook" />;
  if (pb.isError) return <Stack><PageHeader title="Playbook" /><ErrorAlert error={pb.error} /></Stack>;
  const p = pb.data;
  return (
    <Stack>
      <Anchor component={Link} to="/playbooks" size="sm">← Playbooks</Anchor>
      <PageHeader title={p.name} description={p.description || undefined}
        actions={canWrite && (
          <>
            {p.status !== 'archived' && <Button component={Link} to={`/playbooks/${p.id}/edit`} variant="default">Edit graph</Button>}
            {movesFor(p).map((m) => {
              const label = m === 'enable' && p.status === 'disabled' ? 'Resume' : moves[m].label;
              return <AdminConfirmButton key={m} color={moves[m].color} label={label} title={`${label} ${p.name}?`}
                message={moves[m].message} onConfirm={() => move.mutateAsync(m)} />;
            })}
          </>
        )} />
      <ErrorAlert error={move.error} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          <Stack gap={2}><Text size="xs" c="dimmed">Status</Text><div><StatusBadge status={p.status} /></div></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Starts on</Text><Text size="sm"><code>{p.graph.trigger.eventType}</code></Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Only when</Text><Text size="sm">{p.graph.trigger.condition ? <code>{p.graph.trigger.condition}</code> : 'always'}</Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Published version</Text><Text size="sm">{p.publishedVersion ? `v${String(p.publishedVersion)}` : 'never published'}</Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Runs at once</Text><Text size="sm">{p.concurrencyLimit || 'up to 100 (default)'}</Text></Stack>
        </SimpleGrid>
      </Card>
      <Tabs defaultValue="versions" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="versions">Versions</Tabs.Tab>
          <Tabs.Tab value="compare">Compare versions</Tabs.Tab>
          <Tabs.Tab value="runs">Runs</Tabs.Tab>
          <Tabs.Tab value="draft">Draft definition</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="versions" pt="sm">
          <PagedTable<Version>
            label="Versions"
            queryKey={['playbooks', id, 'versions']}
            fetchPage={async (cursor) => unwrap(await api.GET('/api/playbooks/{id}/versions', { params: { path: { id }, query: { cursor, limit: 25 } } }))}
            rowKey={(v) => String(v.version)}
            empty="Not published yet: runs start only from a published version."
            columns={[
              {
                header: 'Version', render: (v) => (
                  <Group gap={6}><Text size="sm" fw={500}>v{v.version}</Text>
                    {v.version === p.publishedVersion && <Badge color="green" variant="light">published</Badge>}</Group>
                ),
              },
              { header: 'Published', render: (v) => <DateTime value={v.publishedAt} /> },
              { header: 'Steps', numeric: true, render: (v) => (v.graph.nodes ?? []).length },
              { header: 'Definition', render: (v) => <Button size="xs" variant="default" aria-label={`Show the definition of v${String(v.version)}`} onClick={() => { setShown(v); }}>Show</Button> },
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="compare" pt="sm">
          <CompareVersions id={p.id} draft={p.graph} />
        </Tabs.Panel>
        <Tabs.Panel value="runs" pt="sm">
          <PagedTable<Run>
            label="Runs"
            queryKey={['playbook-runs', { playbookId: id }]}
            fetchPage={async (cursor) => unwrap(await api.GET('/api/playbook-runs', { params: { query: { playbookId: id, cursor, limit: 25 } } }))}
            rowKey={(r) => r.id}
            empty="No runs yet."
            columns={[
              { header: 'Started', render: (r) => <Anchor component={Link} to={`/playbook-runs/${r.id}`} size="sm"><DateTime value={r.startedAt} /></Anchor> },
              { header: 'Version', render: (r) => `v${String(r.version)}` },
              { header: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              { header: 'Ended', render: (r) => <DateTime value={r.endedAt} /> },
              { header: 'Error', render: (r) => <Text size="sm" c="red" lineClamp={2}>{r.error}</Text> },
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="draft" pt="sm">
          <Stack gap="xs">
            <Text size="sm" c="dimmed">The draft as saved; publishing it makes the next version. Read-only here.</Text>
            <AdminJson value={p.graph} label="Draft definition" />
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={shown !== null} onClose={() => { setShown(null); }} size="xl"
        title={shown ? `${p.name} v${String(shown.version)}${shown.version === p.publishedVersion ? ' (published)' : ''}` : ''}>
        {shown && <AdminJson value={shown.graph} label={`Definition of v${String(shown.version)}`} />}
      </Modal>
    </Stack>
  );
}

/** Two graphs of a playbook side by side in one drawing: nodes added, removed and changed. */
function CompareVersions({ id, draft }: { id: string; draft: Playbook['graph'] }) {
  const versions = useQuery({
    queryKey: ['playbooks', id, 'versions', 'all'],
    queryFn: async () => unwrap(await api.GET('/api/playbooks/{id}/versions', { params: { path: { id }, query: { limit: 100 } } })).data,
  });
  const vs = versions.data ?? [];
  const options = [...vs.map((v) => ({ value: String(v.version), label: `v${String(v.version)}` })), { value: 'draft', label: 'Draft' }];
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  if (versions.isPending) return <Loader role="status" aria-label="Loading versions" />;
  const fromV = from ?? (vs.length > 1 ? String(vs[vs.length - 2]?.version) : vs.length === 1 ? String(vs[0]?.version) : 'draft');
  const toV = to ?? (vs.length > 1 ? String(vs[vs.length - 1]?.version) : 'draft');
  const graphOf = (v: string) => (v === 'draft' ? draft : vs.find((x) => String(x.version) === v)?.graph);
  const a = graphOf(fromV);
  const b = graphOf(toV);
  const names = (ids: string[]) => (ids.length ? ids.join(', ') : 'none');
  const d = a && b ? diff(a, b) : null;
  return (
    <Stack gap="sm">
      <Group align="flex-end">
        <Select label="From" w={140} data={options} value={fromV} onChange={setFrom} allowDeselect={false} />
        <Select label="To" w={140} data={options} value={toV} onChange={setTo} allowDeselect={false} />
      </Group>
      {d && (
        <List size="sm" aria-label="Changes">
          <List.Item>Added: {names(d.added)}</List.Item>
          <List.Item>Removed: {names(d.removed)}</List.Item>
          <List.Item>Changed (parameters or edges): {names(d.changed)}</List.Item>
        </List>
      )}
      {a && b && (
        <Suspense fallback={<Loader role="status" aria-label="Loading the graph" />}>
          <GraphView graph={b} base={a} label={`Changes from ${fromV} to ${toV}`} />
        </Suspense>
      )}
    </Stack>
  );
}
