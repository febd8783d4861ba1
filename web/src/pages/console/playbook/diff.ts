import type { Schemas } from '../../../api/client';

export type PlaybookGraph = Schemas['PlaybookGraph'];

/** The nodes added, removed and changed from graph a to graph b, by node id. */
export function diff(a: PlaybookGraph, b: PlaybookGraph): { added: string[]; removed: string[]; changed: string[] } {
  const am = new Map((a.nodes ?? []).map((n) => [n.id, n]));
  const bm = new Map((b.nodes ?? []).map((n) => [n.id, n]));
  const added = [...bm.keys()].filter((id) => !am.has(id));
  const removed = [...am.keys()].filter((id) => !bm.has(id));
  const edgesOf = (g: PlaybookGraph, id: string) => JSON.stringify((g.edges ?? []).filter((e) => e.from === id).map((e) => [e.to, e.label ?? 'next']).sort());
  const changed = [...bm.keys()].filter((id) => {
    const x = am.get(id);
    return x && (JSON.stringify(x) !== JSON.stringify(bm.get(id)) || edgesOf(a, id) !== edgesOf(b, id));
  });
  return { added, removed, changed };
}

