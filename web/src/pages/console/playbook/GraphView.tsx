import { useMemo } from 'react';
import { Background, Controls, MiniMap, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { nodeTypes } from './nodeTypes';
import { diff, markPath, toFlow, type PathStep, type PlaybookGraph } from './graph';

interface Props {
  graph: PlaybookGraph;
  /** The path a run or a simulation took, marked on the graph. */
  path?: PathStep[];
  /** Another graph to compare with: nodes added, removed and changed since it. */
  base?: PlaybookGraph;
  /** Per node id, a line shown under its name (a step's error, a rendered parameter). */
  details?: Map<string, string>;
  label: string;
}

/** A playbook graph, read-only: a run's path, or the changes between two versions. */
export default function GraphView({ graph, path, base, details, label }: Props) {
  const flow = useMemo(() => {
    let shown = graph;
    let marks: ReturnType<typeof diff> | null = null;
    if (base) {
      marks = diff(base, graph);
      // Removed nodes are drawn too, from the older graph, with their old edges.
      const removed = (base.nodes ?? []).filter((n) => marks?.removed.includes(n.id));
      shown = {
        trigger: graph.trigger,
        nodes: [...(graph.nodes ?? []), ...removed],
        edges: [...(graph.edges ?? []), ...(base.edges ?? []).filter((e) => removed.some((n) => n.id === e.from || n.id === e.to))],
      };
    }
    let { nodes, edges } = toFlow(shown);
    if (marks) {
      const m = marks;
      nodes = nodes.map((n) => {
        const d = m.added.includes(n.id) ? 'added' : m.removed.includes(n.id) ? 'removed' : m.changed.includes(n.id) ? 'changed' : undefined;
        return d ? { ...n, data: { ...n.data, marks: { ...n.data.marks, diff: d } } } : n;
      });
    }
    if (path) ({ nodes, edges } = markPath(nodes, edges, path));
    if (details) nodes = nodes.map((n) => (details.has(n.id) ? { ...n, data: { ...n.data, marks: { ...n.data.marks, detail: details.get(n.id) } } } : n));
    return { nodes, edges };
  }, [graph, path, base, details]);
  return (
    <ReactFlowProvider>
      <div className="pb-canvas pb-small" role="figure" aria-label={label}>
        <ReactFlow nodes={flow.nodes} edges={flow.edges} nodeTypes={nodeTypes} fitView nodesDraggable={false} nodesConnectable={false}
          elementsSelectable={false} proOptions={{ hideAttribution: true }} minZoom={0.1}>
          <Background />
          <Controls showInteractive={false} />
          <MiniMap pannable zoomable ariaLabel={`Mini-map of ${label}`} />
        </ReactFlow>
      </div>
    </ReactFlowProvider>
  );
}
