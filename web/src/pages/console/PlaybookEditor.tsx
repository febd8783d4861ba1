import { useCallback, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { Alert, Anchor, Button, Card, Group, JsonInput, Loader, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import Editor, { type EditorHandle, type EditorState } from './playbook/Editor';
import { kindTitle, sampleOf, type PathStep, type PlaybookGraph } from './playbook/graph';

type Playbook = Schemas['Playbook'];
type SimPath = Schemas['SimulatedPath'];

const empty: PlaybookGraph = { trigger: { eventType: '' }, nodes: [], edges: [] };

/** Draws, checks, simulates and publishes a playbook graph; /playbooks/new starts from an empty canvas. */
export default function PlaybookEditor() {
  const { id: routeId } = useParams();
  const [id, setId] = useState(routeId);
  const queryClient = useQueryClient();
  const kinds = useQuery({
    queryKey: ['playbook-node-kinds'], staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/playbook-node-kinds')).data,
  });
  // Without events:read the trigger's event type is typed rather than picked.
  const canEvents = useCan('events:read');
  const eventTypes = useQuery({
    queryKey: ['event-types'], staleTime: Infinity, enabled: canEvents,
    queryFn: async () => unwrap(await api.GET('/api/event-types', { params: { query: { limit: 100 } } })).data,
  });
  const pb = useQuery({
    queryKey: ['playbooks', routeId ?? 'new'], enabled: !!routeId, staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/playbooks/{id}', { params: { path: { id: routeId ?? '' } } })),
  });
  if (kinds.isPending || (canEvents && eventTypes.isPending) || (routeId && pb.isPending)) return <Loader role="status" aria-label="Loading the editor" />;
  const error = kinds.error ?? eventTypes.error ?? pb.error;
  if (error || !kinds.data || (canEvents && !eventTypes.data)) return <Stack><PageHeader title="Playbook editor" /><ErrorAlert error={error} /></Stack>;
  return <EditorPage key={routeId ?? 'new'} id={id} setId={setId} playbook={pb.data} kinds={kinds.data} eventTypes={eventTypes.data ?? []}
    onSaved={(p) => { queryClient.setQueryData(['playbooks', p.id], p); void queryClient.invalidateQueries({ queryKey: ['playbooks'] }); }} />;
}

interface PageProps {
  id: string | undefined;
  setId: (id: string) => void;
  playbook: Playbook | undefined;
  kinds: Schemas['PlaybookNodeKindInfo'][];
  eventTypes: Schemas['EventTypeInfo'][];
  onSaved: (p: Playbook) => void;
}

function EditorPage({ id, setId, playbook, kinds, eventTypes, onSaved }: PageProps) {
  const [name, setName] = useState(playbook?.name ?? '');
  const [current, setCurrent] = useState<Playbook | undefined>(playbook);
  const [state, setState] = useState<EditorState>({ graph: playbook?.graph ?? empty, valid: false, dirty: false });
  const handle = useRef<EditorHandle | null>(null);
  const initial = useMemo(() => playbook?.graph ?? empty, [playbook]);
  const onState = useCallback((s: EditorState) => { setState(s); }, []);
  const typeNames = useMemo(() => eventTypes.map((t) => t.name), [eventTypes]);

  const saved = (p: Playbook) => {
    setCurrent(p);
    onSaved(p);
    if (!id) {
      setId(p.id);
      window.history.replaceState(window.history.state, '', `/playbooks/${p.id}/edit`);
    }
    handle.current?.markSaved();
  };
  const save = useMutation({
    mutationFn: async (): Promise<Playbook> => {
      if (!id) return unwrap(await api.POST('/api/playbooks', { body: { name, graph: state.graph } }));
      return unwrap(await api.PUT('/api/playbooks/{id}', { params: { path: { id } }, body: { name, graph: state.graph } }));
    },
    onSuccess: (p) => { saved(p); notifications.show({ color: 'green', message: `Draft of ${p.name} saved` }); },
  });
  /** Saves the draft when it changed, and gives the playbook's id. */
  const ensureSaved = async (): Promise<string> => {
    if (id && !state.dirty && current?.name === name) return id;
    return (await save.mutateAsync()).id;
  };
  const publish = useMutation({
    mutationFn: async () => {
      const pid = await ensureSaved();
      const v = unwrap(await api.POST('/api/playbooks/{id}/publish', { params: { path: { id: pid } } }));
      return { v, p: unwrap(await api.GET('/api/playbooks/{id}', { params: { path: { id: pid } } })) };
    },
    onSuccess: ({ v, p }) => { saved(p); notifications.show({ color: 'green', message: `Published as v${String(v.version)}` }); },
  });
  const move = useMutation({
    mutationFn: async (m: 'enable' | 'disable') => {
      const opts = { params: { path: { id: id ?? '' } } };
      return m === 'enable' ? unwrap(await api.POST('/api/playbooks/{id}/enable', opts)) : unwrap(await api.POST('/api/playbooks/{id}/disable', opts));
    },
    onSuccess: (p) => { setCurrent(p); onSaved(p); notifications.show({ color: 'green', message: `${p.name} is ${p.status}` }); },
  });

  const canSave = state.valid && name.trim() !== '';
  const status = current?.status;
  return (
    <Stack>
      <Anchor component={Link} to={id ? `/playbooks/${id}` : '/playbooks'} size="sm">← {id ? 'Playbook, versions and runs' : 'Playbooks'}</Anchor>
      <PageHeader title={id ? `Edit ${current?.name ?? 'playbook'}` : 'New playbook'}
        description={<>Draw the graph, fix what the server finds, simulate, then publish. {current && <>Status <StatusBadge status={status} /> · {current.publishedVersion ? `published v${String(current.publishedVersion)}` : 'never published'}</>}</>}
        actions={(
          <>
            <Button variant="default" onClick={() => { save.mutate(); }} loading={save.isPending} disabled={!canSave || (!!id && !state.dirty && current?.name === name)}>Save draft</Button>
            <Button onClick={() => { publish.mutate(); }} loading={publish.isPending} disabled={!canSave}>Publish</Button>
            {current && current.publishedVersion > 0 && status !== 'enabled' && status !== 'archived' && (
              <Button color="green" variant="light" onClick={() => { move.mutate('enable'); }} loading={move.isPending}>{status === 'disabled' ? 'Resume' : 'Enable'}</Button>
            )}
            {status === 'enabled' && <Button color="orange" variant="light" onClick={() => { move.mutate('disable'); }} loading={move.isPending}>Pause</Button>}
          </>
        )} />
      <ErrorAlert error={save.error ?? publish.error ?? move.error} />
      {!state.valid && <Text size="sm" c="dimmed" role="status">Publishing waits until the server finds no problem in the graph.</Text>}
      <TextInput label="Name" required maxLength={200} w={420} value={name} onChange={(e) => { setName(e.currentTarget.value); }} />
      <Editor initial={initial} kinds={kinds} eventTypes={typeNames} onState={onState} handleRef={handle} />
      <Simulate eventTypes={eventTypes} trigger={state.graph.trigger.eventType} disabled={!canSave} ensureSaved={ensureSaved}
        onPath={(steps) => handle.current?.showPath(steps)} />
    </Stack>
  );
}

interface SimProps {
  eventTypes: Schemas['EventTypeInfo'][];
  trigger: string;
  disabled: boolean;
  ensureSaved: () => Promise<string>;
  onPath: (steps: PathStep[] | null) => void;
}

/** Runs the server's simulation of the draft on a sample event and shows the path it takes. */
function Simulate({ eventTypes, trigger, disabled, ensureSaved, onPath }: SimProps) {
  const [type, setType] = useState<string | null>(null);
  const [payload, setPayload] = useState<string | null>(null);
  const chosen = type ?? (eventTypes.some((t) => t.name === trigger) ? trigger : null);
  const pick = (t: string | null) => {
    setType(t);
    const info = eventTypes.find((e) => e.name === t);
    setPayload(info ? JSON.stringify(sampleOf(info.payloadSchema), null, 2) : '{}');
  };
  const shownPayload = payload ?? (chosen ? JSON.stringify(sampleOf(eventTypes.find((e) => e.name === chosen)?.payloadSchema), null, 2) : '');
  const run = useMutation({
    mutationFn: async (): Promise<SimPath> => {
      if (!chosen) throw new Error('Pick an event type');
      let body: Record<string, unknown>;
      try { body = JSON.parse(shownPayload || '{}') as Record<string, unknown>; } catch { throw new Error('The payload is not valid JSON'); }
      const pid = await ensureSaved();
      return unwrap(await api.POST('/api/playbooks/{id}/simulate', {
        params: { path: { id: pid }, query: { version: 'draft' } },
        body: { event: { type: chosen, payload: body } },
      }));
    },
    onSuccess: (p) => {
      onPath(p.triggered ? p.steps.map((s) => ({ nodeId: s.nodeId, status: s.error ? 'failed' : 'completed', outcome: s.outcome })) : null);
    },
  });
  const p = run.data;
  return (
    <Card withBorder aria-labelledby="pb-sim">
      <Stack gap="sm">
        <Title order={2} size="h4" id="pb-sim">Simulate</Title>
        <Text size="sm" c="dimmed">Runs the draft on a sample event on the server, without doing anything: the path is marked on the graph.</Text>
        <Group align="flex-end">
          <Select label="Event type" searchable w={280} data={eventTypes.map((t) => t.name)} value={chosen} onChange={pick} />
          <Button onClick={() => { run.mutate(); }} loading={run.isPending} disabled={disabled || !chosen}>Run simulation</Button>
        </Group>
        <JsonInput label="Sample payload" description="Pre-filled from the event type's schema" autosize minRows={4} maxRows={14} validationError="Not valid JSON"
          value={shownPayload} onChange={setPayload} />
        <ErrorAlert error={run.error} />
        {p && !p.triggered && <Alert color="orange" title="No run would start">{p.reason}</Alert>}
        {p?.triggered && (
          <Table striped withTableBorder aria-label="Simulated steps" data-testid="sim-steps">
            <Table.Thead><Table.Tr><Table.Th>#</Table.Th><Table.Th>Step</Table.Th><Table.Th>Decision</Table.Th><Table.Th>Parameters (rendered)</Table.Th></Table.Tr></Table.Thead>
            <Table.Tbody>
              {p.steps.map((s, i) => {
                const params = s.action ? Object.entries(s.action).find(([k]) => !['id', 'kind', 'name'].includes(k))?.[1] : undefined;
                return (
                  <Table.Tr key={`${s.nodeId}-${String(i)}`}>
                    <Table.Td>{i + 1}</Table.Td>
                    <Table.Td><Text size="sm" fw={500}>{s.name || s.nodeId}</Text><Text size="xs" c="dimmed">{kindTitle(s.kind)}</Text></Table.Td>
                    <Table.Td>
                      {s.result !== undefined && <Text size="sm">{s.result ? 'true' : 'false'}</Text>}
                      {s.wait && <Text size="sm">waits {s.wait}</Text>}
                      {s.outcome && s.outcome !== 'next' && <Text size="xs" c="dimmed">→ {s.outcome}</Text>}
                      {s.error && <Text size="sm" c="red">{s.error}</Text>}
                    </Table.Td>
                    <Table.Td>{params !== undefined && <pre style={{ margin: 0, fontSize: 11, whiteSpace: 'pre-wrap' }}>{JSON.stringify(params, null, 1)}</pre>}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}
