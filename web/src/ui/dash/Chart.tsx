// The time-series chart (uPlot), loaded only when a dashboard shows one: it is kept out of the
// login and first-dashboard bundles. Times show in the viewer's time zone (uPlot reads instants
// as local time); money axes and tooltips are formatted in the metric's currency.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDateTime } from '../format';
import { formatValue, type MetricValue } from './widgets';

interface Tip { left: number; top: number; text: string }

/** A line chart of a metric's series, with a tooltip that names the hovered bucket and value. */
export default function Chart({ value, label, height }: { value: MetricValue; label: string; height: number }) {
  const box = useRef<HTMLDivElement>(null);
  const [tip, setTip] = useState<Tip | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const series = value.series ?? [];
    const xs = series.map((p) => Date.parse(p.start) / 1000);
    const ys = series.map((p) => p.value);
    const fmt = (n: number | null) => formatValue(n, value);
    const style = getComputedStyle(el);
    const stroke = style.getPropertyValue('--mantine-primary-color-filled').trim() || '#1c7ed6';
    const text = style.getPropertyValue('--mantine-color-text').trim() || '#000';
    const grid = style.getPropertyValue('--mantine-color-default-border').trim() || '#ddd';
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 120),
      height,
      legend: { show: false },
      cursor: { y: false, points: { size: 8 } },
      scales: { y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { ...axis },
        { ...axis, size: 80, values: (_u, splits) => splits.map(fmt) },
      ],
      series: [{}, { label, stroke, width: 2, fill: stroke + '22', points: { show: xs.length < 40 } }],
      hooks: {
        setCursor: [(u) => {
          const i = u.cursor.idx;
          if (i === null || i === undefined || u.cursor.left === undefined || u.cursor.left < 0) { setTip(null); return; }
          const start = series[i]?.start;
          const y = ys[i];
          if (start === undefined || y === undefined || y === null) { setTip(null); return; }
          setTip({ left: Math.min(u.valToPos(xs[i] ?? 0, 'x') + u.over.offsetLeft + 12, el.clientWidth - 180), top: u.valToPos(y, 'y') + u.over.offsetTop, text: `${formatDateTime(start)}: ${fmt(y)}` });
        }],
      },
    };
    const plot = new uPlot(opts, [xs, ys], el);
    const ro = new ResizeObserver(() => { plot.setSize({ width: Math.max(el.clientWidth, 120), height }); });
    ro.observe(el);
    return () => { ro.disconnect(); plot.destroy(); };
  }, [value, label, height]);
  return (
    <div style={{ position: 'relative' }}>
      <div ref={box} role="img" aria-label={`${label}: chart of ${String(value.series?.length ?? 0)} points, total ${formatValue(value.value, value)}`} />
      {tip && (
        <div data-testid="chart-tooltip" role="status" style={{
          position: 'absolute', left: Math.max(tip.left, 0), top: Math.max(tip.top - 36, 0),
          pointerEvents: 'none', background: 'var(--mantine-color-body)', border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 4, padding: '2px 6px', fontSize: 12, whiteSpace: 'nowrap', zIndex: 2,
        }}>{tip.text}</div>
      )}
    </div>
  );
}
