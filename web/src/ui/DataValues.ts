import type { Schemas } from '../api/client';

type Metric = Schemas['Metric'];
type Kind = Metric['kind'];
interface FilterRow { path: string; op: 'eq' | 'neq'; value: string }
export interface MetricValues {
  name: string; kind: Kind; eventType: string; field: string; filters: FilterRow[]; unit: Metric['unit']; currency: string;
  /** An MDF ROI's fund; empty for every fund. */
  fundId: string;
}

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
    unit: m?.unit ?? 'count', currency: m?.currency ?? '', fundId: m?.fundId ?? '',
  };
}

export function metricBody(v: MetricValues): Schemas['MetricBody'] {
  // CSAT and NPS always read the score of survey.responded: the service sets what they read.
  if (v.kind === 'csat' || v.kind === 'nps') {
    return { name: v.name.trim(), kind: v.kind, filters: v.filters.map((f) => ({ path: f.path.trim(), op: f.op, value: textToScalar(f.value) })) };
  }
  // An MDF ROI reads approved claims: a currency and, optionally, one fund (whose currency it takes).
  if (v.kind === 'mdf_roi') {
    return {
      name: v.name.trim(), kind: v.kind, filters: [],
      ...(v.currency.trim() ? { currency: v.currency.trim().toUpperCase() } : {}),
      ...(v.fundId ? { fundId: v.fundId } : {}),
    };
  }
  return {
    name: v.name.trim(), kind: v.kind, eventType: v.eventType.trim(),
    ...(v.kind !== 'count' && v.field.trim() ? { field: v.field.trim() } : {}),
    filters: v.filters.map((f) => ({ path: f.path.trim(), op: f.op, value: textToScalar(f.value) })),
    unit: v.kind === 'sum' ? v.unit : 'count',
    ...(v.kind === 'sum' && v.unit === 'money' ? { currency: v.currency.trim().toUpperCase() } : {}),
  };
}

/** The fields a metric form shows beside their inputs, for n filter rows. */
export function metricFields(n: number): string[] {
  const rows = Array.from({ length: n }, (_, i) => ['path', 'op', 'value'].map((k) => `filters[${String(i)}].${k}`)).flat();
  return ['name', 'kind', 'eventType', 'field', 'filters', 'unit', 'currency', 'fundId', ...rows];
}

export interface WebhookValues { url: string; eventTypes: string[]; description: string }

export const webhookFields = ['url', 'eventTypes', 'description'];

/** Currencies offered first for money metrics; any ISO 4217 code can be typed. */
export const commonCurrencies = ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'INR', 'BRL', 'KWD'];

interface JSONSchema { type?: string | string[]; properties?: Record<string, JSONSchema> }

/**
 * The dotted payload paths of a JSON schema with their leaf types (amount: integer,
 * invoice.currency: string), nested objects followed up to four levels.
 */
export function schemaPaths(schema: unknown, prefix = '', depth = 0): { path: string; type: string }[] {
  const props = (schema as JSONSchema | undefined)?.properties;
  if (!props || depth > 4) return [];
  return Object.entries(props).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    const t = Array.isArray(v.type) ? v.type.find((x) => x !== 'null') ?? '' : v.type ?? '';
    return t === 'object' ? schemaPaths(v, path, depth + 1) : [{ path, type: t }];
  });
}

/** The dotted paths of the scalar values in sample payloads, with the JSON type seen. */
export function payloadPaths(payloads: unknown[]): { path: string; type: string }[] {
  const out = new Map<string, string>();
  const walk = (v: unknown, prefix: string, depth: number) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || depth > 4) return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (x !== null && typeof x === 'object' && !Array.isArray(x)) walk(x, path, depth + 1);
      else if (!Array.isArray(x)) out.set(path, typeof x === 'number' ? (Number.isInteger(x) ? 'integer' : 'number') : typeof x);
    }
  };
  for (const p of payloads) walk(p, '', 0);
  return [...out].map(([path, type]) => ({ path, type }));
}
