// What the dashboard builder and the dashboard views share: widget places on the 12-column grid,
// labels, and numbers formatted by their metric's unit (money in its currency, from minor units).
import type { Schemas } from '../../api/client';
import { formatMoney, formatRatio } from '../format';

export type Widget = Schemas['Widget'];
export type RenderedWidget = Schemas['RenderedWidget'];
export type MetricValue = Schemas['MetricValue'];

/** Columns of the dashboard grid (the API's bound) and the height of one row in pixels. */
export const GRID_COLUMNS = 12;
export const ROW_HEIGHT = 56;

export const rangeLabels: Record<string, string> = {
  last_24_hours: 'Last 24 hours', last_7_days: 'Last 7 days', last_30_days: 'Last 30 days', last_90_days: 'Last 90 days',
  last_365_days: 'Last 365 days', month_to_date: 'This month', year_to_date: 'This year',
};

export const kindLabels: Record<Widget['kind'], string> = { metric: 'Number', 'time-series': 'Time series', 'event-list': 'Event list' };

/** What a metric's kind is called in lists. */
export const metricKindLabels: Record<Schemas['Metric']['kind'], string> = { count: 'count', sum: 'sum', unique: 'distinct', csat: 'CSAT', nps: 'NPS', mdf_roi: 'MDF ROI' };

/** The size a new widget of a kind takes on the grid. */
export const defaultSize: Record<Widget['kind'], { w: number; h: number }> = {
  metric: { w: 3, h: 3 }, 'time-series': { w: 6, h: 5 }, 'event-list': { w: 6, h: 5 },
};

export interface Place { x: number; y: number; w: number; h: number }

const placed = (w: Widget) => !!(w.x ?? w.y ?? w.w ?? w.h) && (w.w ?? 0) > 0 && (w.h ?? 0) > 0;

/**
 * Every widget's place: placed widgets keep theirs; the others (saved before places existed)
 * follow below them, filling rows left to right in list order.
 */
export function places(widgets: Widget[]): Place[] {
  let bottom = 0;
  for (const w of widgets) if (placed(w)) bottom = Math.max(bottom, (w.y ?? 0) + (w.h ?? 0));
  let x = 0;
  let rowHeight = 0;
  return widgets.map((w) => {
    if (placed(w)) return { x: w.x ?? 0, y: w.y ?? 0, w: w.w ?? 1, h: w.h ?? 1 };
    const size = defaultSize[w.kind];
    if (x + size.w > GRID_COLUMNS) { bottom += rowHeight; x = 0; rowHeight = 0; }
    const p = { x, y: bottom, ...size };
    x += size.w;
    rowHeight = Math.max(rowHeight, size.h);
    return p;
  });
}

/** A widget's heading: its title, or what it shows. */
export function widgetTitle(w: Widget, value?: MetricValue, metricName?: string): string {
  if (w.title) return w.title;
  if (w.kind === 'event-list') return `Latest ${w.eventType ?? 'events'}`;
  return value?.name ?? metricName ?? 'Metric';
}

const plain = new Intl.NumberFormat();

/** Whether a metric kind is a survey score (CSAT or NPS), in whole percentage points. */
export const isScore = (kind?: string) => kind === 'csat' || kind === 'nps';

/** Whether a metric kind is the return on market development funds, in basis points. */
export const isROI = (kind?: string) => kind === 'mdf_roi';

/** Whether a metric of kind can have no value (null): a score without answers, an ROI without spend. */
export const mayBeNull = (kind?: string) => isScore(kind) || isROI(kind);

/**
 * A metric's number as a person reads it: money in its currency, CSAT as a percentage, NPS with
 * its sign, an ROI as a multiple (2.35×), or a plain number. No value (null) reads as a dash.
 */
export function formatValue(n: number | null | undefined, v: Pick<MetricValue, 'unit' | 'currency'> & { kind?: string } | undefined): string {
  if (n === null || n === undefined) return '—';
  if (v?.unit === 'money' && v.currency) return formatMoney(Math.round(n), v.currency);
  if (v?.unit === 'bps') return formatRatio(n);
  if (v?.kind === 'csat') return `${plain.format(n)} %`;
  if (v?.kind === 'nps') return n > 0 ? `+${plain.format(n)}` : plain.format(n);
  return plain.format(n);
}

/**
 * The series of a time-series widget as CSV: bucket start (UTC, ISO 8601) and value (empty for a
 * score without answers or an ROI without spend); an ROI also has its spend and revenue.
 */
export function seriesCSV(v: MetricValue): string {
  const score = isScore(v.kind);
  const roi = isROI(v.kind);
  const cur = v.currency ?? '';
  const head = v.unit === 'money' ? `start,value_minor_${cur}` : score ? `start,${v.kind},responses`
    : roi ? `start,roi_bps,spend_minor_${cur},influenced_revenue_minor_${cur}` : 'start,value';
  const value = (n: number | null) => n === null ? '' : String(n);
  return [head, ...(v.series ?? []).map((p) => score
    ? `${p.start},${value(p.value)},${String(p.responses ?? 0)}`
    : roi ? `${p.start},${value(p.value)},${String(p.spend ?? 0)},${String(p.influencedRevenue ?? 0)}`
      : `${p.start},${String(p.value)}`)].join('\n') + '\n';
}
