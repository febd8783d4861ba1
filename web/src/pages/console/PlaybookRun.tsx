import { Suspense, lazy, useMemo } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { Alert, Anchor, Card, Group, Loader, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { AdminJson } from '../../ui/AdminJson';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';

type Step = Schemas['PlaybookStep'];

// The graph drawing (React Flow) loads after the run itself.
const GraphView = lazy(() => import('./playbook/GraphView'));

const stepColor: Record<Step['status'], string> = { running: 'blue', completed: 'green', failed: 'red' };

/** How long a step took, for people: 850 ms, 12 s, 3 min 5 s, 2 h 10 min. */
function duration(from: string, to?: string): string {
  if (!to) return '';
  const ms = new Date(to).getTime() - new Date(from).getTime();
  if (!(ms >= 0)) return '';
  if (ms < 1000) return `${String(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${String(s)} s`;
  if (s < 3600) return `${String(Math.floor(s / 60))} min ${String(s % 60)} s`;
  return `${String(Math.floor(s / 3600))} h ${String(Math.floor((s % 3600) / 60))} min`;
}

/** One run of a playbook: its steps in the order they started, and cancelling it while it runs. */
export default function PlaybookRun() {
  const { id = '' } = useParams();
  const canWrite = useCan('playbooks:write');
  const queryClient = useQueryClient();
  const run = useQuery({
    queryKey: ['playbook-runs', id],
    queryFn: async () => unwrap(await api.GET('/api/playbook-runs/{id}', { params: { path: { id } } })),
    // A run under way is followed as it goes.
    refetchInterval: (q) => (q.state.data && (q.state.data.status === 'running' || q.state.data.status === 'queued') ? 2000 : false),
  });
  const playbookId = run.data?.playbookId ?? '';
  const playbook = useQuery({
    queryKey: ['playbooks', playbookId],
    queryFn: async () => unwrap(await api.GET('/api/playbooks/{id}', { params: { path: { id: playbookId } } })),
    enabled: !!playbookId,
  });
  // The graph and node names come from the version the run follows.
  const versionNo = run.data?.version ?? 0;
  const version = useQuery({
    queryKey: ['playbooks', playbookId, 'versions', versionNo],
    queryFn: async () => unwrap(await api.GET('/api/playbooks/{id}/versions/{version}', { params: { path: { id: playbookId, version: versionNo } } })),
    enabled: !!playbookId && versionNo > 0,
    staleTime: Infinity,
  });
  const steps = run.data?.steps;
  const path = useMemo(() => steps?.map((s) => ({ nodeId: s.nodeId, status: s.status, outcome: s.outcome })), [steps]);
  const details = useMemo(() => new Map((steps ?? []).filter((s) => s.error).map((s) => [s.nodeId, s.error ?? ''])), [steps]);
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/playbook-runs/{id}/cancel', { params: { path: { id } } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: 'Cancelling: the run stops at its next step' });
      await queryClient.invalidateQueries({ queryKey: ['playbook-runs'] });
    },
  });

  if (run.isPending) return <Loader role="status" aria-label="Loading run" />;
  if (run.isError) return <Stack><PageHeader title="Playbook run" /><ErrorAlert error={run.error} /></Stack>;
  const r = run.data;
  const nodes = new Map((version.data?.graph.nodes ?? []).map((n) => [n.id, n]));
  const active = r.status === 'running' || r.status === 'queued';
  const name = playbook.data?.name ?? 'Playbook';
  return (
    <Stack>
      <Anchor component={Link} to={`/playbook-runs?playbookId=${r.playbookId}`} size="sm">← Runs of {name}</Anchor>
      <PageHeader title={`Run of ${name}`} description={<>Version v{r.version} · started <DateTime value={r.startedAt} /></>}
        actions={canWrite && active && !r.cancelRequested && (
          <AdminConfirmButton label="Cancel run" title="Cancel this run?" message="The run stops at its next step; steps already done stay done."
            onConfirm={() => cancel.mutateAsync()} />
        )} />
      <ErrorAlert error={cancel.error} />
      {r.cancelRequested && active && <Alert color="orange">Cancelling: the run stops at its next step.</Alert>}
      {r.error && <Alert color="red" title="The run failed" role="alert">{r.error}</Alert>}
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          <Stack gap={2}><Text size="xs" c="dimmed">Status</Text><div><StatusBadge status={r.status} /></div></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Playbook</Text><Anchor component={Link} to={`/playbooks/${r.playbookId}`} size="sm">{name}</Anchor></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Ended</Text><Text size="sm"><DateTime value={r.endedAt} /></Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Started by event</Text><Text size="sm"><code>{r.eventId}</code></Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Partner</Text>{r.partnerId
            ? <Anchor component={Link} to={`/partners/${r.partnerId}`} size="sm">{r.partnerId}</Anchor> : <Text size="sm">—</Text>}</Stack>
        </SimpleGrid>
      </Card>
      <Title order={2} size="h4">Path</Title>
      {version.data && (
        <Suspense fallback={<Loader role="status" aria-label="Loading the graph" />}>
          <GraphView graph={version.data.graph} path={path} details={details} label={`The path of this run on v${String(r.version)}`} />
        </Suspense>
      )}
      <Title order={2} size="h4">Steps</Title>
      {r.steps.length === 0 ? <Text c="dimmed" size="sm">No step has started yet.</Text> : (
        <Timeline bulletSize={18} lineWidth={2} active={r.steps.length - 1} aria-label="Steps">
          {r.steps.map((s) => {
            const node = nodes.get(s.nodeId);
            const took = duration(s.startedAt, s.endedAt);
            return (
              <Timeline.Item key={s.id} color={stepColor[s.status]} data-testid="run-step"
                title={<Group gap="xs"><Text fw={600} size="sm">{node?.name || s.nodeId}</Text><Text size="xs" c="dimmed">{s.kind.replaceAll('_', ' ')}</Text><StatusBadge status={s.status} /></Group>}>
                <Text size="xs" c="dimmed">
                  Started <DateTime value={s.startedAt} />{s.endedAt && <> · ended <DateTime value={s.endedAt} /></>}{took && ` · ${took}`}
                </Text>
                {s.error && <Text size="sm" c="red" mt={4}>{s.error}</Text>}
                {Object.keys(s.output).length > 0 && (
                  <details style={{ marginTop: 4 }}>
                    <summary style={{ cursor: 'pointer' }}><Text span size="xs">Output</Text></summary>
                    <AdminJson value={s.output} label={`Output of ${node?.name || s.nodeId}`} />
                  </details>
                )}
              </Timeline.Item>
            );
          })}
        </Timeline>
      )}
    </Stack>
  );
}
