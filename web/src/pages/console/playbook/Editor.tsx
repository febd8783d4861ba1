import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  Background, Controls, MiniMap, ReactFlow, ReactFlowProvider, applyEdgeChanges, applyNodeChanges, useReactFlow,
  type Connection, type EdgeChange, type NodeChange,
} from '@xyflow/react';
import { Alert, Autocomplete, Badge, Button, Card, Grid, Group, List, Select, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { api, type Schemas } from '../../../api/client';
import { nodeTypes } from './nodeTypes';
import { ParamsForm } from './ParamsForm';
import {
  freshId, kindTitle, layout, markPath, toFlow, toGraph,
  type FlowEdge, type FlowNode, type Label, type NodeKind, type PathStep, type PlaybookGraph, type PlaybookNode,
} from './graph';

type Problem = Schemas['PlaybookProblem'];
type Trigger = PlaybookGraph['trigger'];
interface Snapshot { trigger: Trigger; nodes: FlowNode[]; edges: FlowEdge[] }

export interface EditorState {
  graph: PlaybookGraph;
  /** No problem remains and the last validation is of this graph. */
  valid: boolean;
  /** The graph changed since the last call of markSaved. */
  dirty: boolean;
}

export interface EditorHandle {
  /** Marks the path of a simulation on the canvas (cleared by the next edit). */
  showPath: (steps: PathStep[] | null) => void;
  /** Records that the current graph is the one stored. */
  markSaved: () => void;
}

interface Props {
  initial: PlaybookGraph;
  kinds: NodeKind[];
  eventTypes: string[];
  onState: (s: EditorState) => void;
  handleRef: React.RefObject<EditorHandle | null>;
}

const memberOf = (kinds: NodeKind[], kind: string) => kinds.find((k) => k.kind === kind)?.member;

/** The field of a node's parameters a problem path names: nodes[2].sendEmail.to → to. */
function problemField(path: string): string | undefined {
  const m = /^nodes\[\d+\]\.[A-Za-z]+\.([A-Za-z]+)/.exec(path);
  return m?.[1];
}

function EditorCanvas({ initial, kinds, eventTypes, onState, handleRef }: Props) {
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const first = useMemo(() => toFlow(initial), [initial]);
  const [trigger, setTrigger] = useState<Trigger>(initial.trigger);
  const [nodes, setNodes] = useState<FlowNode[]>(first.nodes);
  const [edges, setEdges] = useState<FlowEdge[]>(first.edges);
  const [rev, setRev] = useState(0);
  const [savedRev, setSavedRev] = useState(0);
  const [checkedRev, setCheckedRev] = useState(-1);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [variables, setVariables] = useState<Record<string, string[]>>({});
  const [path, setPath] = useState<PathStep[] | null>(null);
  const past = useRef<Snapshot[]>([]);
  const future = useRef<Snapshot[]>([]);
  const clipboard = useRef<{ nodes: FlowNode[]; edges: FlowEdge[] } | null>(null);
  const state = useRef<Snapshot & { rev: number }>({ trigger, nodes, edges, rev });
  useLayoutEffect(() => { state.current = { trigger, nodes, edges, rev }; });
  const [hist, setHist] = useState({ past: 0, future: 0 });
  const setHistoryTick = useCallback(() => { setHist({ past: past.current.length, future: future.current.length }); }, []);

  /** Records the state before a change, so undo can restore it. */
  const remember = useCallback(() => {
    past.current.push(state.current);
    if (past.current.length > 100) past.current.shift();
    future.current = [];
    setHistoryTick();
  }, [setHistoryTick]);
  const changed = useCallback(() => { setRev((r) => r + 1); setPath(null); }, []);

  const restore = useCallback((s: Snapshot) => {
    setTrigger(s.trigger); setNodes(s.nodes); setEdges(s.edges); changed();
  }, [changed]);
  const undo = useCallback(() => {
    const s = past.current.pop();
    if (!s) return;
    future.current.push(state.current);
    restore(s); setHistoryTick();
  }, [restore, setHistoryTick]);
  const redo = useCallback(() => {
    const s = future.current.pop();
    if (!s) return;
    past.current.push(state.current);
    restore(s); setHistoryTick();
  }, [restore, setHistoryTick]);

  // Problems and the path are marks on the nodes and edges they name.
  const applyMarks = useCallback((problems: Problem[], path: PathStep[] | null) => {
    const byNode = new Map<string, string[]>();
    const byEdge = new Map<number, string[]>();
    const triggerId = state.current.nodes.find((n) => n.data.node.kind === 'trigger')?.id;
    for (const p of problems) {
      const id = p.nodeId ?? (p.path.startsWith('trigger') ? triggerId : undefined);
      if (p.edge !== undefined) byEdge.set(p.edge, [...(byEdge.get(p.edge) ?? []), p.message]);
      else if (id) byNode.set(id, [...(byNode.get(id) ?? []), p.message]);
    }
    setNodes((ns) => {
      let next = ns.map((n) => {
        const ps = byNode.get(n.id);
        const same = JSON.stringify(ps ?? []) === JSON.stringify(n.data.marks.problems ?? []) && !n.data.marks.order;
        return same ? n : { ...n, ariaLabel: `${kindTitle(n.data.node.kind)} ${n.id}${ps ? `, ${String(ps.length)} problem(s)` : ''}`, data: { ...n.data, marks: { problems: ps } } };
      });
      if (path) next = markPath(next, [], path).nodes;
      return next;
    });
    setEdges((es) => {
      let next = es.map((e, i): FlowEdge => {
        const ps = byEdge.get(i);
        const label = e.data?.label && e.data.label !== 'next' ? e.data.label : '';
        return ps
          ? { ...e, animated: false, className: 'pb-edge-problem', label: `${label ? label + ': ' : ''}⚠ ${ps.join('; ')}`, data: { label: e.data?.label, marks: { problems: ps } } }
          : { ...e, animated: false, className: undefined, label: label || undefined, data: { label: e.data?.label, marks: {} } };
      });
      if (path) next = markPath([], next, path).edges;
      return next;
    });
  }, []);
  const problemsRef = useRef<Problem[]>([]);

  // The server checks the graph as it changes, 400 ms after the last change.
  useEffect(() => {
    const at = rev;
    const timer = setTimeout(() => {
      const s = state.current;
      const graph = toGraph(s.trigger, s.nodes, s.edges);
      void api.POST('/api/playbooks/validate', { body: { graph } }).then((res) => {
        if (!res.data) {
          // A graph the request schema refuses (a required parameter missing): the 422 names each field.
          const errs = (res.error as { errors?: { location?: string; message?: string }[] } | undefined)?.errors ?? [];
          const found: Problem[] = errs.map((e) => {
            const path = (e.location ?? '').replace(/^body\.graph\.?/, '');
            const n = /^nodes\[(\d+)\]/.exec(path);
            const ed = /^edges\[(\d+)\]/.exec(path);
            const node = n ? graph.nodes?.[Number(n[1])] : undefined;
            const field = /\.([A-Za-z]+)$/.exec(path)?.[1] ?? '';
            return { code: 'INVALID', path, message: `${field ? field + ': ' : ''}${e.message ?? 'invalid'}`, ...(node ? { nodeId: node.id } : {}), ...(ed ? { edge: Number(ed[1]) } : {}) };
          });
          if (found.length === 0) found.push({ code: 'INVALID', path: '', message: 'The server could not check the graph.' });
          setProblems(found);
          problemsRef.current = found;
          applyMarks(found, null);
          setCheckedRev(at);
          return;
        }
        setProblems(res.data.problems);
        problemsRef.current = res.data.problems;
        applyMarks(res.data.problems, null);
        setVariables(Object.fromEntries(Object.entries(res.data.variables).map(([k, v]) => [k, v ?? []])));
        setCheckedRev(at);
      });
    }, 400);
    return () => { clearTimeout(timer); };
  }, [rev, applyMarks]);

  const graph = useMemo(() => toGraph(trigger, nodes, edges), [rev, trigger]); // eslint-disable-line react-hooks/exhaustive-deps
  const valid = checkedRev === rev && problems.length === 0;
  useEffect(() => { onState({ graph, valid, dirty: rev !== savedRev }); }, [graph, valid, rev, savedRev, onState]);
  useEffect(() => {
    handleRef.current = {
      showPath: (steps) => { setPath(steps); applyMarks(problemsRef.current, steps); },
      markSaved: () => { setSavedRev(state.current.rev); },
    };
  }, [handleRef, applyMarks]);

  const onNodesChange = useCallback((changes: NodeChange<FlowNode>[]) => {
    const structural = changes.some((c) => c.type === 'remove' || c.type === 'add');
    if (structural) remember();
    setNodes((ns) => applyNodeChanges(changes, ns));
    if (structural) {
      const gone = new Set(changes.flatMap((c) => (c.type === 'remove' ? [c.id] : [])));
      setEdges((es) => es.filter((e) => !gone.has(e.source) && !gone.has(e.target)));
      changed();
    }
  }, [remember, changed]);
  const onEdgesChange = useCallback((changes: EdgeChange<FlowEdge>[]) => {
    const structural = changes.some((c) => c.type === 'remove' || c.type === 'add');
    if (structural) remember();
    setEdges((es) => applyEdgeChanges(changes, es));
    if (structural) changed();
  }, [remember, changed]);

  const onConnect = useCallback((c: Connection) => {
    remember();
    setEdges((es) => {
      const src = state.current.nodes.find((n) => n.id === c.source);
      const kind = kinds.find((k) => k.kind === src?.data.node.kind);
      const used = new Set<string>(es.filter((e) => e.source === c.source).map((e) => e.data?.label ?? 'next'));
      const label = (kind?.required.find((l) => !used.has(l)) ?? kind?.labels.find((l) => !used.has(l)) ?? kind?.labels[0] ?? 'next') as Label;
      const id = `e-${c.source}-${c.target}-${String(Date.now())}`;
      return [...es, { id, source: c.source, target: c.target, label: label !== 'next' ? label : undefined, data: { label: label !== 'next' ? label : undefined, marks: {} } }];
    });
    changed();
  }, [kinds, remember, changed]);

  const wrapper = useRef<HTMLDivElement>(null);
  const addNode = useCallback((kind: NodeKind) => {
    remember();
    const cur = state.current.nodes;
    const taken = new Set(cur.map((n) => n.id));
    const id = kind.kind === 'trigger' && !taken.has('trigger') ? 'trigger' : freshId(kind.kind, taken);
    const rect = wrapper.current?.getBoundingClientRect();
    const center = rect ? flow.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 }) : { x: 0, y: 0 };
    const jitter = (cur.length % 5) * 24;
    const node: PlaybookNode = { id, kind: kind.kind as PlaybookNode['kind'], name: kindTitle(kind.kind).replace(/^./, (c) => c.toUpperCase()) };
    if (kind.member) (node as Record<string, unknown>)[kind.member] = {};
    setNodes((ns) => [...ns.map((n) => (n.selected ? { ...n, selected: false } : n)),
      { id, type: 'pb', position: { x: center.x - 100 + jitter, y: center.y - 32 + jitter }, selected: true, ariaLabel: `${kindTitle(kind.kind)} ${id}`, data: { node, marks: {} } }]);
    changed();
  }, [flow, remember, changed]);

  const copy = useCallback(() => {
    const sel = state.current.nodes.filter((n) => n.selected);
    const ids = new Set(sel.map((n) => n.id));
    clipboard.current = { nodes: sel, edges: state.current.edges.filter((e) => ids.has(e.source) && ids.has(e.target)) };
  }, []);
  const paste = useCallback(() => {
    const clip = clipboard.current;
    if (!clip?.nodes.length) return;
    remember();
    const taken = new Set(state.current.nodes.map((n) => n.id));
    const rename = new Map<string, string>();
    for (const n of clip.nodes) {
      const id = freshId(n.data.node.kind === 'trigger' ? 'trigger' : n.id.replace(/_\d+$/, ''), taken);
      taken.add(id);
      rename.set(n.id, id);
    }
    const added: FlowNode[] = clip.nodes.map((n) => {
      const id = rename.get(n.id) ?? n.id;
      return { ...n, id, selected: true, position: { x: n.position.x + 40, y: n.position.y + 40 }, data: { node: { ...n.data.node, id }, marks: {} } };
    });
    const addedEdges: FlowEdge[] = clip.edges.map((e) => ({ ...e, id: `${e.id}-copy-${String(Date.now())}`, source: rename.get(e.source) ?? e.source, target: rename.get(e.target) ?? e.target }));
    setNodes((ns) => [...ns.map((n) => (n.selected ? { ...n, selected: false } : n)), ...added]);
    setEdges((es) => [...es, ...addedEdges]);
    clipboard.current = { nodes: added, edges: addedEdges };
    changed();
  }, [remember, changed]);

  const autoLayout = useCallback(() => {
    remember();
    const pos = layout(state.current.nodes, state.current.edges);
    setNodes((ns) => ns.map((n) => ({ ...n, position: pos.get(n.id) ?? n.position })));
    // positions are not part of the graph: no validation
    window.requestAnimationFrame(() => { void flow.fitView({ duration: 200 }); });
  }, [flow, remember]);
  const zoomToFit = useCallback(() => { void flow.fitView({ duration: 200 }); }, [flow]);
  const deleteSelected = useCallback(() => {
    const s = state.current;
    onNodesChange(s.nodes.filter((n) => n.selected).map((n) => ({ type: 'remove', id: n.id })));
    onEdgesChange(s.edges.filter((e) => e.selected).map((e) => ({ type: 'remove', id: e.id })));
  }, [onNodesChange, onEdgesChange]);

  const onKeyDown = useCallback((e: React.KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest('input, textarea, [contenteditable=true]')) return;
    const mod = e.ctrlKey || e.metaKey;
    if (!mod) return;
    const k = e.key.toLowerCase();
    if (k === 'z' && !e.shiftKey) { e.preventDefault(); undo(); }
    else if ((k === 'z' && e.shiftKey) || k === 'y') { e.preventDefault(); redo(); }
    else if (k === 'c') copy();
    else if (k === 'v') { e.preventDefault(); paste(); }
  }, [undo, redo, copy, paste]);

  // The side panel: the one selected node or edge. A drag replaces only the moved node's object and
  // position, never its data, so the panel's props stay the same while a node moves.
  let selCount = 0;
  let selOne: FlowNode | undefined;
  for (const n of nodes) if (n.selected) { selCount++; selOne = n; }
  let selEdgeCount = 0;
  let selEdgeOne: FlowEdge | undefined;
  for (const e of edges) if (e.selected) { selEdgeCount++; selEdgeOne = e; }
  const sel = selCount === 1 && selEdgeCount === 0 ? selOne : undefined;
  const selEdge = selCount === 0 && selEdgeCount === 1 ? selEdgeOne : undefined;
  // The panel follows the selection in a deferred render, so selecting a node (the press that starts
  // a drag) never waits for its form.
  const selId = useDeferredValue(sel?.id);
  const selData = useDeferredValue(sel?.data);
  const panelEdge = useDeferredValue(selEdge);
  const edgeSourceKind = useDeferredValue(selEdge ? nodes.find((n) => n.id === selEdge.source)?.data.node.kind : undefined);

  const updateNode = useCallback((id: string, fn: (n: PlaybookNode) => PlaybookNode) => {
    remember();
    setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, node: fn(n.data.node) } } : n)));
    changed();
  }, [remember, changed]);
  const renameNode = useCallback((from: string, to: string) => {
    if (state.current.nodes.some((n) => n.id === to)) return;
    remember();
    setNodes((ns) => ns.map((n) => (n.id === from ? { ...n, id: to, data: { ...n.data, node: { ...n.data.node, id: to } } } : n)));
    setEdges((es) => es.map((e) => ({ ...e, source: e.source === from ? to : e.source, target: e.target === from ? to : e.target })));
    changed();
  }, [remember, changed]);
  const setEdgeLabel = useCallback((id: string, label: Label | undefined) => {
    remember();
    setEdges((es) => es.map((e) => (e.id === id ? { ...e, label: label && label !== 'next' ? label : undefined, data: { label, marks: e.data?.marks ?? {} } } : e)));
    changed();
  }, [remember, changed]);
  const editTrigger = useCallback((t: Trigger) => { remember(); setTrigger(t); changed(); }, [remember, changed]);

  const select = useCallback((nodeId?: string, edge?: number) => {
    setNodes((ns) => ns.map((n) => ({ ...n, selected: n.id === nodeId })));
    setEdges((es) => es.map((e, i) => ({ ...e, selected: i === edge })));
    const n = state.current.nodes.find((x) => x.id === nodeId);
    if (n) void flow.setCenter(n.position.x + 100, n.position.y + 32, { duration: 200, zoom: 1 });
  }, [flow]);
  const clearPath = useCallback(() => { setPath(null); applyMarks(problemsRef.current, null); }, [applyMarks]);

  return (
    <Grid gap="sm">
      <Grid.Col span={{ base: 12, lg: 9 }}>
        <Stack gap="xs">
          <Palette kinds={kinds} onAdd={addNode} />
          <EditBar canUndo={hist.past > 0} canRedo={hist.future > 0} canCopy={selCount > 0} canDelete={selCount + selEdgeCount > 0}
            onUndo={undo} onRedo={redo} onCopy={copy} onPaste={paste} onDelete={deleteSelected} onLayout={autoLayout} onFit={zoomToFit} />
          <div ref={wrapper} className="pb-canvas" onKeyDown={onKeyDown} data-testid="playbook-canvas" role="application" aria-label="Playbook graph editor">
            <ReactFlow<FlowNode, FlowEdge> nodes={nodes} edges={edges} nodeTypes={nodeTypes} onNodesChange={onNodesChange} onEdgesChange={onEdgesChange}
              onNodeDragStart={remember} onConnect={onConnect} deleteKeyCode={deleteKeys} multiSelectionKeyCode={multiKeys}
              fitView minZoom={0.1} proOptions={proOptions} onlyRenderVisibleElements={nodes.length > 80}>
              <Background />
              <Controls />
              <MiniMap pannable zoomable ariaLabel="Mini-map" />
            </ReactFlow>
          </div>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 3 }}>
        <Stack gap="sm">
          <ProblemsCard problems={problems} checking={checkedRev !== rev} onShow={select} />
          <SidePanel selId={selId} selData={selData} selEdge={panelEdge} edgeSourceKind={edgeSourceKind} trigger={trigger} kinds={kinds}
            eventTypes={eventTypes} problems={problems} variables={variables} onUpdate={updateNode} onRename={renameNode}
            onEdgeLabel={setEdgeLabel} onTrigger={editTrigger} />
          {path && (
            <Alert color="green" title="Simulated path" withCloseButton closeButtonLabel="Clear the path" onClose={clearPath}>
              The numbered nodes are the steps the run would take.
            </Alert>
          )}
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

const deleteKeys = ['Backspace', 'Delete'];
const multiKeys = ['Shift', 'Meta', 'Control'];
const proOptions = { hideAttribution: true };

/** The palette: one button per node kind. */
const Palette = memo(function Palette({ kinds, onAdd }: { kinds: NodeKind[]; onAdd: (k: NodeKind) => void }) {
  return (
    <Group gap={6} wrap="wrap" role="toolbar" aria-label="Add a node">
      <Text size="sm" fw={600}>Add:</Text>
      {kinds.map((k) => (
        <Tooltip key={k.kind} label={k.description} openDelay={400}>
          <Button size="compact-sm" variant={k.action ? 'light' : 'default'} onClick={() => { onAdd(k); }} aria-label={`Add ${kindTitle(k.kind)}`}>
            {kindTitle(k.kind)}
          </Button>
        </Tooltip>
      ))}
    </Group>
  );
});

interface EditBarProps {
  canUndo: boolean; canRedo: boolean; canCopy: boolean; canDelete: boolean;
  onUndo: () => void; onRedo: () => void; onCopy: () => void; onPaste: () => void; onDelete: () => void; onLayout: () => void; onFit: () => void;
}

/** The edit toolbar: undo, redo, copy, paste, delete, auto-layout, zoom to fit. */
const EditBar = memo(function EditBar(p: EditBarProps) {
  return (
    <Group gap={6} wrap="wrap" role="toolbar" aria-label="Edit the graph">
      <Button size="compact-sm" variant="default" onClick={p.onUndo} disabled={!p.canUndo}>Undo</Button>
      <Button size="compact-sm" variant="default" onClick={p.onRedo} disabled={!p.canRedo}>Redo</Button>
      <Button size="compact-sm" variant="default" onClick={p.onCopy} disabled={!p.canCopy}>Copy</Button>
      <Button size="compact-sm" variant="default" onClick={p.onPaste}>Paste</Button>
      <Button size="compact-sm" variant="default" onClick={p.onDelete} disabled={!p.canDelete}>Delete selected</Button>
      <Button size="compact-sm" variant="default" onClick={p.onLayout}>Auto-layout</Button>
      <Button size="compact-sm" variant="default" onClick={p.onFit}>Zoom to fit</Button>
      <Text size="xs" c="dimmed">Ctrl+Z / Ctrl+Shift+Z, Ctrl+C / Ctrl+V, Delete</Text>
    </Group>
  );
});

/** The server's problems of the graph, each with a button that shows its node or edge. */
const ProblemsCard = memo(function ProblemsCard({ problems, checking, onShow }: { problems: Problem[]; checking: boolean; onShow: (nodeId?: string, edge?: number) => void }) {
  return (
    <Card withBorder padding="sm" aria-labelledby="pb-problems">
      <Group justify="space-between">
        <Title order={2} size="h5" id="pb-problems">Problems</Title>
        {checking ? <Badge color="gray" variant="light">checking…</Badge>
          : problems.length ? <Badge color="red" data-testid="problem-count">{problems.length}</Badge> : <Badge color="green">none</Badge>}
      </Group>
      {problems.length > 0 && (
        <List size="xs" spacing={4} mt={6} aria-label="Problems of the graph">
          {problems.map((p, i) => (
            <List.Item key={`${p.path}-${String(i)}`}>
              <Text size="xs" span><Text span fw={600} size="xs">{p.nodeId ?? (p.edge !== undefined ? `edge ${String(p.edge + 1)}` : p.path)}</Text>: {p.message} </Text>
              {(p.nodeId ?? p.edge !== undefined) && (
                <Button size="compact-xs" variant="subtle" onClick={() => { onShow(p.nodeId, p.edge); }} aria-label={`Show ${p.nodeId ?? `edge ${String((p.edge ?? 0) + 1)}`}`}>show</Button>
              )}
            </List.Item>
          ))}
        </List>
      )}
    </Card>
  );
});

interface SidePanelProps {
  selId: string | undefined;
  selData: FlowNode['data'] | undefined;
  selEdge: FlowEdge | undefined;
  edgeSourceKind: string | undefined;
  trigger: Trigger;
  kinds: NodeKind[];
  eventTypes: string[];
  problems: Problem[];
  variables: Record<string, string[]>;
  onUpdate: (id: string, fn: (n: PlaybookNode) => PlaybookNode) => void;
  onRename: (from: string, to: string) => void;
  onEdgeLabel: (id: string, label: Label | undefined) => void;
  onTrigger: (t: Trigger) => void;
}

/** The side panel: the selected node's fields from its kind's schema, or the selected edge's label. */
const SidePanel = memo(function SidePanel({ selId, selData, selEdge, edgeSourceKind, trigger, kinds, eventTypes, problems, variables, onUpdate, onRename, onEdgeLabel, onTrigger }: SidePanelProps) {
  const selNode = selData?.node;
  const selKind = selNode ? kinds.find((k) => k.kind === selNode.kind) : undefined;
  const member = selNode ? memberOf(kinds, selNode.kind) : undefined;
  const selProblems = new Map<string, string[]>();
  if (selId) {
    for (const p of problems) {
      if (p.nodeId !== selId) continue;
      const f = problemField(p.path);
      if (f) selProblems.set(f, [...(selProblems.get(f) ?? []), p.message]);
    }
  }
  const triggerProblem = (field: string) => problems.filter((p) => p.path === `trigger.${field}`).map((p) => p.message).join('; ') || undefined;
  const edgeKind = edgeSourceKind ? kinds.find((k) => k.kind === edgeSourceKind) : undefined;
  return (
    <Card withBorder padding="sm" aria-labelledby="pb-panel">
      <Title order={2} size="h5" id="pb-panel" mb={6}>
        {selId && selNode ? `${kindTitle(selNode.kind)}: ${selId}` : selEdge ? `Edge ${selEdge.source} → ${selEdge.target}` : 'Properties'}
      </Title>
      {!selId && !selEdge && <Text size="sm" c="dimmed">Select a node or an edge to configure it; drag from a node&apos;s bottom handle to another node to connect them.</Text>}
      {selId && selNode && (
        <Stack gap="xs" key={selId}>
          <TextInput label="Id" description="Later steps read its output as steps.<id>" defaultValue={selId}
            onBlur={(e) => { const v = e.currentTarget.value.trim(); if (v && v !== selId) onRename(selId, v); }} />
          <TextInput label="Name" value={selNode.name ?? ''} onChange={(e) => { const v = e.currentTarget.value; onUpdate(selId, (n) => ({ ...n, name: v })); }} />
          {selNode.kind === 'trigger' && (
            <>
              <Autocomplete label="Starts on event type" required description="An event type of the catalogue, or a pattern such as deal.*" data={eventTypes}
                value={trigger.eventType} error={triggerProblem('eventType')} onChange={(v) => { onTrigger({ ...trigger, eventType: v }); }} />
              <TextInput label="Only when" description="Boolean expression over event and partner; empty for always" value={trigger.condition ?? ''}
                error={triggerProblem('condition')} onChange={(e) => { const v = e.currentTarget.value; onTrigger({ ...trigger, ...(v ? { condition: v } : { condition: undefined }) }); }} />
            </>
          )}
          {selKind && (
            <ParamsForm kind={selKind} variables={variables[selId] ?? []} eventTypes={eventTypes} problems={selProblems}
              value={(member ? (selNode as Record<string, unknown>)[member] : undefined) as Record<string, unknown> | undefined ?? {}}
              onChange={(v) => { if (member) onUpdate(selId, (n) => ({ ...n, [member]: v })); }} />
          )}
          {(variables[selId]?.length ?? 0) > 0 && (
            <details>
              <summary><Text span size="xs">Variables available here ({variables[selId]?.length})</Text></summary>
              <Text size="xs" style={{ overflowWrap: 'anywhere' }}><code>{variables[selId]?.join(' · ')}</code></Text>
            </details>
          )}
        </Stack>
      )}
      {selEdge && edgeKind && (
        <Stack gap="xs">
          <Select label="Label" description={`Edges out of a ${kindTitle(edgeKind.kind)} node`} data={edgeKind.labels} allowDeselect={false}
            value={selEdge.data?.label ?? 'next'} onChange={(v) => { onEdgeLabel(selEdge.id, (v ?? undefined) as Label | undefined); }} />
        </Stack>
      )}
    </Card>
  );
});

/** The playbook graph editor: canvas, palette, side panel and the server's problems. */
export default function Editor(props: Props) {
  return <ReactFlowProvider><EditorCanvas {...props} /></ReactFlowProvider>;
}
