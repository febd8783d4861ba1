import type { Schemas } from '../api/client';

type Metric = Schemas['Metric'];
type Kind = Metric['kind'];
interface FilterRow { path: string; op: 'eq' | 'neq'; value: string }
export interface MetricValues { name: string; kind: Kind; eventType: string; field: string; filters: FilterRow[] }

/** A filter value as a person reads it: strings bare unless they would read as another scalar. */
export function scalarToText(v: unknown): string {
  if (typeof v === 'string') return /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)$/.test(v) || v.startsWith('"') ? JSON.stringify(v) : v;
  return JSON.stringify(v ?? null);
}

/** What a person typed as a filter value: a number, true, false, null, a "quoted" string or bare text. */
export function textToScalar(t: string): unknown {
  const s = t.trim();
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) {
    const n = Number(s);
    // A number the browser cannot hold exactly stays text rather than being rounded.
    if (Number.isFinite(n) && (String(n) === s || !/^-?\d+$/.test(s) || Number.isSafeInteger(n))) return n;
    return s;
  }
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try { return JSON.parse(s) as string; } catch { return s; }
  }
  return t;
}

export function metricValues(m?: Metric): MetricValues {
  return {
    name: m?.name ?? '', kind: m?.kind ?? 'count', eventType: m?.eventType ?? '', field: m?.field ?? '',
    filters: (m?.filters ?? []).map((f) => ({ path: f.path, op: f.op, value: scalarToText(f.value) })),
  };
}

export function metricBody(v: MetricValues): Schemas['MetricBody'] {
  return {
    name: v.name.trim(), kind: v.kind, eventType: v.eventType.trim(),
    ...(v.kind !== 'count' && v.field.trim() ? { field: v.field.trim() } : {}),
    filters: v.filters.map((f) => ({ path: f.path.trim(), op: f.op, value: textToScalar(f.value) })),
  };
}

/** The fields a metric form shows beside their inputs, for n filter rows. */
export function metricFields(n: number): string[] {
  const rows = Array.from({ length: n }, (_, i) => ['path', 'op', 'value'].map((k) => `filters[${String(i)}].${k}`)).flat();
  return ['name', 'kind', 'eventType', 'field', 'filters', ...rows];
}

export interface WebhookValues { url: string; eventTypes: string[]; description: string }

export const webhookFields = ['url', 'eventTypes', 'description'];
