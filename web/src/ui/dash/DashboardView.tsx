import { Card, Stack, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { WidgetBody } from './WidgetView';
import { GRID_COLUMNS, places, ROW_HEIGHT, widgetTitle, type RenderedWidget } from './widgets';

/**
 * A rendered dashboard laid out as its builder placed it, on a CSS grid of 12 columns (no grid
 * library: viewers do not drag). On narrow screens the widgets stack in reading order.
 */
export function DashboardView({ widgets }: { widgets: RenderedWidget[] }) {
  const narrow = useMediaQuery('(max-width: 48em)');
  const at = places(widgets.map((w) => w.widget));
  const order = widgets.map((_, i) => i).sort((a, b) => {
    const pa = at[a], pb = at[b];
    return pa && pb ? pa.y - pb.y || pa.x - pb.x : 0;
  });
  return (
    <div data-testid="dashboard-grid" style={narrow
      ? { display: 'flex', flexDirection: 'column', gap: 12 }
      : { display: 'grid', gridTemplateColumns: `repeat(${String(GRID_COLUMNS)}, minmax(0, 1fr))`, gridAutoRows: ROW_HEIGHT, gap: 12 }}>
      {order.map((i) => {
        const w = widgets[i];
        const p = at[i];
        if (!w || !p) return null;
        const title = widgetTitle(w.widget, w.value);
        return (
          <Card key={i} withBorder padding="sm" data-testid="widget" style={narrow ? undefined : {
            gridColumn: `${String(p.x + 1)} / span ${String(p.w)}`, gridRow: `${String(p.y + 1)} / span ${String(p.h)}`, overflow: 'hidden',
          }}>
            <Stack gap={6} style={{ height: '100%' }}>
              <Title order={3} size="h5">{title}</Title>
              <WidgetBody w={w} title={title} chartHeight={narrow ? 180 : Math.max(p.h * (ROW_HEIGHT + 12) - 110, 80)} />
            </Stack>
          </Card>
        );
      })}
    </div>
  );
}
