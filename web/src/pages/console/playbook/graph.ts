// The playbook graph as the editor draws it: React Flow nodes and edges carrying the API's node
// and edge, laid out by dagre (graphs store no positions). No validation rule lives here: the
// server's validate operation decides what is wrong.
import dagre from '@dagrejs/dagre';
import type { Edge, Node } from '@xyflow/react';
import type { Schemas } from '../../../api/client';

export type PlaybookNode = Schemas['PlaybookNode'];
export type PlaybookEdge = Schemas['PlaybookEdge'];
export type PlaybookGraph = Schemas['PlaybookGraph'];
export type NodeKind = Schemas['PlaybookNodeKindInfo'];
export type Label = NonNullable<PlaybookEdge['label']>;

/** How a node is marked: problems from validation, its place on a path, a diff state. */
export interface Marks {
  problems?: string[];
  /** 1-based order on a simulated or real path. */
  order?: number[];
  status?: 'running' | 'completed' | 'failed' | 'path';
  diff?: 'added' | 'removed' | 'changed';
  detail?: string;
}

export type NodeData = { node: PlaybookNode; marks: Marks } & Record<string, unknown>;
export type EdgeData = { label?: Label; marks: Marks } & Record<string, unknown>;
export type FlowNode = Node<NodeData, 'pb'>;
export type FlowEdge = Edge<EdgeData>;

export const NODE_W = 200;
export const NODE_H = 64;

export const kindTitle = (kind: string) => kind.replaceAll('_', ' ');

/** Positions for the nodes, top to bottom, by dagre. */
export function layout(nodes: { id: string }[], edges: { source: string; target: string }[]): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 60 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  const out = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const p = g.node(n.id) as { x: number; y: number } | undefined;
    out.set(n.id, p ? { x: p.x - NODE_W / 2, y: p.y - NODE_H / 2 } : { x: 0, y: 0 });
  }
  return out;
}

export function edgeId(e: PlaybookEdge, i: number) {
  return `e${String(i)}-${e.from}-${e.to}-${e.label ?? ''}`;
}

/** The flow's nodes and edges of a graph, laid out. */
export function toFlow(graph: PlaybookGraph): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const list = graph.nodes ?? [];
  const edges: FlowEdge[] = (graph.edges ?? []).map((e, i) => ({
    id: edgeId(e, i), source: e.from, target: e.to, label: e.label && e.label !== 'next' ? e.label : undefined,
    data: { label: e.label, marks: {} },
  }));
  const pos = layout(list, edges);
  const nodes: FlowNode[] = list.map((n) => ({ id: n.id, type: 'pb', position: pos.get(n.id) ?? { x: 0, y: 0 }, data: { node: n, marks: {} } }));
  return { nodes, edges };
}

/** The API graph of the flow: the trigger's event and condition, nodes in their order, edges. */
export function toGraph(trigger: PlaybookGraph['trigger'], nodes: FlowNode[], edges: FlowEdge[]): PlaybookGraph {
  return {
    trigger,
    nodes: nodes.map((n) => n.data.node),
    edges: edges.map((e) => ({ from: e.source, to: e.target, ...(e.data?.label ? { label: e.data.label } : {}) })),
  };
}

/** A fresh node id for kind: identifiers, so expressions can say steps.<id>. */
export function freshId(kind: string, taken: Set<string>): string {
  const base = kind.replace(/[^A-Za-z0-9_]/g, '_');
  for (let i = 1; ; i++) {
    const id = `${base}_${String(i)}`;
    if (!taken.has(id)) return id;
  }
}

export { diff } from './diff';

/** A step of a path: the node, how it went and the label followed out of it. */
export interface PathStep { nodeId: string; status: 'running' | 'completed' | 'failed'; outcome?: string }

/**
 * Marks the path on a flow: each visited node with its order and status, and each edge the run
 * followed (out of a visited node with the label it followed, into a node visited later).
 */
export function markPath(nodes: FlowNode[], edges: FlowEdge[], steps: PathStep[]): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const order = new Map<string, number[]>();
  const status = new Map<string, PathStep['status']>();
  steps.forEach((s, i) => {
    order.set(s.nodeId, [...(order.get(s.nodeId) ?? []), i + 1]);
    status.set(s.nodeId, s.status);
  });
  const taken = new Set<string>();
  steps.forEach((s, i) => {
    if (!s.outcome) return;
    for (const e of edges) {
      if (e.source !== s.nodeId || (e.data?.label ?? 'next') !== s.outcome) continue;
      if (steps.slice(i + 1).some((t) => t.nodeId === e.target)) taken.add(e.id);
    }
  });
  return {
    nodes: nodes.map((n) => {
      const o = order.get(n.id);
      return o ? { ...n, data: { ...n.data, marks: { ...n.data.marks, order: o, status: status.get(n.id) } } } : n;
    }),
    edges: edges.map((e) => (taken.has(e.id)
      ? { ...e, animated: true, className: 'pb-edge-path', data: { label: e.data?.label, marks: { status: 'path' as const } } }
      : e)),
  };
}

/** A sample value for a JSON schema: for pre-filling an event's payload. */
export function sampleOf(schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 4) return null;
  const s = schema as { type?: string | string[]; properties?: Record<string, unknown>; items?: unknown; enum?: unknown[]; examples?: unknown[]; format?: string };
  if (s.examples?.length) return s.examples[0];
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sampleOf(v, depth + 1);
      return out;
    }
    case 'array': return [];
    case 'integer': case 'number': return 0;
    case 'boolean': return false;
    case 'string': return s.format === 'date-time' ? new Date().toISOString() : '';
    default: return null;
  }
}
