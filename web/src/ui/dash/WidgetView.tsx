import { lazy, Suspense } from 'react';
import { Alert, Button, Group, Skeleton, Stack, Text, VisuallyHidden } from '@mantine/core';
import { DateTime } from '../DateTime';
import { formatDateTime, formatMoney } from '../format';
import { formatValue, isROI, isScore, mayBeNull, rangeLabels, seriesCSV, type MetricValue, type RenderedWidget } from './widgets';

// uPlot and the chart come in their own chunk, the first time a time series is shown.
const Chart = lazy(() => import('./Chart'));

/** Saves a series as a CSV file: the numbers the viewer already sees, nothing more. */
function downloadCSV(v: MetricValue, name: string) {
  const url = URL.createObjectURL(new Blob([seriesCSV(v)], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.replace(/[^\w-]+/g, '-').toLowerCase() || 'series'}.csv`;
  a.click();
  setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
}

/** What an ROI divides: the influenced won revenue and the spend, or that nothing was spent. */
function roiBasis(v: MetricValue): string {
  if (!v.spend) return 'nothing spent';
  return `${formatMoney(v.influencedRevenue ?? 0, v.currency)} won on ${formatMoney(v.spend, v.currency)} spent`;
}

function TimeSeries({ v, title, height }: { v: MetricValue; title: string; height: number }) {
  const points = v.series ?? [];
  const score = isScore(v.kind);
  const roi = isROI(v.kind);
  const empty = mayBeNull(v.kind) ? points.every((p) => p.value === null) : points.every((p) => p.value === 0);
  return (
    <Stack gap={4} style={{ flex: 1, minHeight: 0 }}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="xs" c="dimmed">per {v.interval ?? 'day'} · {mayBeNull(v.kind) ? 'over the period' : 'total'} <span data-testid="widget-total">{formatValue(v.value, v)}</span>{score ? ` · ${String(v.responses ?? 0)} answer(s)` : ''}{roi ? ` · ${roiBasis(v)}` : ''}</Text>
        {!empty && <Button size="compact-xs" variant="subtle" onClick={() => { downloadCSV(v, title); }} aria-label={`Download ${title} as CSV`}>CSV</Button>}
      </Group>
      {empty
        ? <Text size="sm" c="dimmed" py="md" ta="center">{score ? 'No answers in this period yet.' : roi ? 'No MDF spend in this period yet.' : 'Nothing in this period yet.'}</Text>
        : (
          <Suspense fallback={<Skeleton role="status" height={height} aria-label="Loading chart" />}>
            <Chart value={v} label={title} height={height} />
          </Suspense>
        )}
      {!empty && (
        <VisuallyHidden>
          <table>
            <caption>{title} by {v.interval ?? 'day'}</caption>
            <thead><tr><th>From</th><th>Value</th></tr></thead>
            <tbody>{points.map((p) => <tr key={p.start}><td>{formatDateTime(p.start)}</td><td>{formatValue(p.value, v)}</td></tr>)}</tbody>
          </table>
        </VisuallyHidden>
      )}
    </Stack>
  );
}

/**
 * What one computed widget shows: a number, a chart of a series, or the latest events. The
 * numbers are the ones the API computed for the viewer (a partner's own only).
 */
export function WidgetBody({ w, title, chartHeight = 160 }: { w: RenderedWidget; title: string; chartHeight?: number }) {
  const range = rangeLabels[w.widget.range ?? 'last_30_days'] ?? '';
  if (w.error) return <Alert color="yellow" title="Not available" p="xs">{w.error.detail}</Alert>;
  if (w.widget.kind === 'metric' && w.value) {
    return (
      <Stack gap={2}>
        <Text fz={28} fw={700} data-testid="widget-value">{formatValue(w.value.value, w.value)}</Text>
        <Text size="xs" c="dimmed">{range}{isScore(w.value.kind) ? ` · ${w.value.responses ? `${String(w.value.responses)} answer(s)` : 'no answers'}` : ''}{isROI(w.value.kind) ? ` · ${roiBasis(w.value)}` : ''}{w.value.skipped > 0 ? ` · ${String(w.value.skipped)} event(s) skipped` : ''}</Text>
      </Stack>
    );
  }
  if (w.widget.kind === 'time-series' && w.value) {
    return <Stack gap={2} style={{ flex: 1, minHeight: 0 }}><Text size="xs" c="dimmed">{range}</Text><TimeSeries v={w.value} title={title} height={chartHeight} /></Stack>;
  }
  const events = w.events ?? [];
  if (events.length === 0) return <Text size="sm" c="dimmed">No events yet.</Text>;
  return (
    <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0, overflow: 'auto' }}>
      {events.map((e) => (
        <Group key={e.id} component="li" justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm" style={{ wordBreak: 'break-word' }}>{e.type}</Text>
          <Text size="xs" c="dimmed"><DateTime value={e.occurredAt} /></Text>
        </Group>
      ))}
    </Stack>
  );
}
