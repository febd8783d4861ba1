// The dashboard builder: widgets on a 12-column grid, dragged by their handle to arrange them and
// by their corner to resize them; each widget previews over live data as it is configured
// (POST /api/dashboards/preview-widget), and the whole dashboard is saved in one PATCH.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import ReactGridLayout, { useContainerWidth, type Layout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import {
  ActionIcon, Anchor, Autocomplete, Badge, Button, Card, Drawer, Group, Menu, NumberInput, Select, Skeleton, Stack, Switch, TagsInput, Text,
  TextInput, Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { useEventTypes } from '../../ui/DataQueries';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { WidgetBody } from '../../ui/dash/WidgetView';
import {
  defaultSize, GRID_COLUMNS, kindLabels, places, rangeLabels, ROW_HEIGHT, widgetTitle, type Widget,
} from '../../ui/dash/widgets';

type Metric = Schemas['Metric'];

// react-draggable writes a <style> element when a drag starts unless one with its id exists;
// the strict CSP refuses styles without the page's nonce, so the builder writes it first.
if (!document.getElementById('react-draggable-style-el')) {
  const el = document.createElement('style');
  el.id = 'react-draggable-style-el';
  el.nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
  el.textContent = '.react-draggable-transparent-selection *::-moz-selection {all: inherit;}\n'
    + '.react-draggable-transparent-selection *::selection {all: inherit;}\n';
  document.head.appendChild(el);
}
interface Item { key: string; widget: Widget }

const MARGIN = 12;
const intervals = ['hour', 'day', 'week', 'month'] as const;

/** The widget as the API computes it: what it shows, not where it sits or what it is called. */
function computed(w: Widget): Widget | null {
  if (w.kind === 'event-list') return { kind: w.kind, eventType: w.eventType || '*', limit: w.limit || 10 };
  if (!w.metricId) return null;
  return { kind: w.kind, metricId: w.metricId, range: w.range ?? 'last_30_days', ...(w.kind === 'time-series' ? { interval: w.interval ?? 'day' } : {}) };
}

/** A widget computed over live data as it is now configured. */
function usePreview(w: Widget) {
  const [json] = useDebouncedValue(JSON.stringify(computed(w)), 250);
  const config = JSON.parse(json) as Widget | null;
  return useQuery({
    queryKey: ['dashboards', 'preview', config],
    enabled: config !== null,
    placeholderData: (prev) => prev,
    staleTime: 30_000,
    queryFn: async () => unwrap(await api.POST('/api/dashboards/preview-widget', { body: { widget: config ?? { kind: 'event-list' } } })),
  });
}

function Preview({ w, metrics, chartHeight }: { w: Widget; metrics: Metric[]; chartHeight: number }) {
  const q = usePreview(w);
  const metricName = metrics.find((m) => m.id === w.metricId)?.name;
  const title = widgetTitle(w, q.data?.value, metricName);
  if (!computed(w)) return <Text size="sm" c="dimmed">Choose a metric to preview this widget.</Text>;
  if (q.isError) return <ErrorAlert error={q.error} />;
  if (!q.data) return <Skeleton role="status" height={Math.min(chartHeight, 80)} aria-label="Loading preview" />;
  return <div aria-busy={q.isFetching} style={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0 }}><WidgetBody w={{ ...q.data, widget: { ...q.data.widget, title: w.title } }} title={title} chartHeight={chartHeight} /></div>;
}

/** The side panel configuring one widget, with its preview. */
/** The metric picker's choices: survey scores (CSAT, NPS) and MDF returns apart from the metrics over events. */
function metricChoices(metrics: Metric[]) {
  const scores = metrics.filter((m) => m.kind === 'csat' || m.kind === 'nps');
  const returns = metrics.filter((m) => m.kind === 'mdf_roi');
  const others = metrics.filter((m) => m.kind !== 'csat' && m.kind !== 'nps' && m.kind !== 'mdf_roi');
  return [
    ...(others.length ? [{ group: 'Metrics over events', items: others.map((m) => ({ value: m.id, label: m.name })) }] : []),
    ...(scores.length ? [{ group: 'Survey scores', items: scores.map((m) => ({ value: m.id, label: `${m.name} (${m.kind.toUpperCase()})` })) }] : []),
    ...(returns.length ? [{ group: 'Market development funds', items: returns.map((m) => ({ value: m.id, label: `${m.name} (ROI, ${m.currency ?? ''})` })) }] : []),
  ];
}

/**
 * Offers the survey scores the tenant has no metric for yet: one click defines the CSAT or NPS
 * metric and puts it on the widget.
 */
function ScoreMetrics({ metrics, onCreated }: { metrics: Metric[]; onCreated: (id: string) => void }) {
  const canWrite = useCan('metrics:write');
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (kind: 'csat' | 'nps') => unwrap(await api.POST('/api/metrics', { body: { name: kind === 'csat' ? 'CSAT' : 'NPS', kind } })),
    onSuccess: async (m) => {
      await queryClient.invalidateQueries({ queryKey: ['metrics'] });
      notify(`Metric ${m.name} defined`);
      onCreated(m.id);
    },
  });
  const missing = (['csat', 'nps'] as const).filter((k) => !metrics.some((m) => m.kind === k));
  if (!canWrite || missing.length === 0) return null;
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">Survey scores from CSAT and NPS answers (each partner sees its own):</Text>
      <Group gap="xs">
        {missing.map((k) => (
          <Button key={k} size="xs" variant="default" loading={create.isPending && create.variables === k} onClick={() => { create.mutate(k); }}>
            Add {k.toUpperCase()} metric
          </Button>
        ))}
      </Group>
      <ErrorAlert error={create.error} />
    </Stack>
  );
}

function WidgetPanel({ item, metrics, onChange, onClose }: {
  item: Item; metrics: Metric[]; onChange: (w: Widget) => void; onClose: () => void;
}) {
  const w = item.widget;
  const types = useEventTypes();
  const set = (patch: Partial<Widget>) => { onChange({ ...w, ...patch }); };
  const metric = metrics.find((m) => m.id === w.metricId);
  const allowed = metric?.kind === 'unique' ? intervals.filter((i) => i !== 'hour') : intervals;
  return (
    <Drawer opened onClose={onClose} position="right" size="md" title={`${kindLabels[w.kind]} widget`} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <TextInput label="Title" description="Empty: the metric's name" maxLength={200} value={w.title ?? ''} onChange={(e) => { set({ title: e.currentTarget.value }); }} />
        {w.kind !== 'event-list' && (
          <>
            <Select label="Metric" required searchable allowDeselect={false} placeholder={metrics.length ? 'Choose a metric' : 'Define a metric first'}
              data={metricChoices(metrics)} value={w.metricId ?? null}
              onChange={(v) => { set({ metricId: v ?? undefined, ...(metrics.find((m) => m.id === v)?.kind === 'unique' && w.interval === 'hour' ? { interval: 'day' } : {}) }); }} />
            <ScoreMetrics metrics={metrics} onCreated={(id) => { set({ metricId: id }); }} />
            <Select label="Range" allowDeselect={false} data={Object.entries(rangeLabels).map(([value, label]) => ({ value, label }))}
              value={w.range ?? 'last_30_days'} onChange={(v) => { set({ range: (v ?? 'last_30_days') as Widget['range'] }); }} />
          </>
        )}
        {w.kind === 'time-series' && (
          <Select label="One point per" allowDeselect={false} data={allowed.map((i) => ({ value: i, label: i }))}
            value={w.interval ?? 'day'} onChange={(v) => { set({ interval: v ?? 'day' }); }} />
        )}
        {w.kind === 'event-list' && (
          <>
            <Autocomplete label="Event type" description="A type or a pattern with * (invoice.*)" maxLength={128}
              data={['*', ...(types.data ?? []).map((t) => t.name).sort()]} limit={50} value={w.eventType ?? ''} onChange={(v) => { set({ eventType: v }); }} />
            <NumberInput label="Events shown" min={1} max={100} value={w.limit ?? 10} onChange={(v) => { set({ limit: typeof v === 'number' ? v : 10 }); }} />
          </>
        )}
        <Group grow>
          <NumberInput label="Width (columns)" min={1} max={GRID_COLUMNS - (w.x ?? 0)} value={w.w ?? 1}
            onChange={(v) => { if (typeof v === 'number') set({ w: Math.max(1, Math.min(v, GRID_COLUMNS - (w.x ?? 0))) }); }} />
          <NumberInput label="Height (rows)" min={1} max={24} value={w.h ?? 1}
            onChange={(v) => { if (typeof v === 'number') set({ h: Math.max(1, Math.min(v, 24)) }); }} />
        </Group>
        <Card withBorder padding="sm" data-testid="widget-panel-preview">
          <Stack gap={6}>
            <Text size="xs" c="dimmed" fw={700} tt="uppercase">Preview</Text>
            <Preview w={w} metrics={metrics} chartHeight={180} />
          </Stack>
        </Card>
        <Button onClick={onClose}>Done</Button>
      </Stack>
    </Drawer>
  );
}

let seq = 0;
const newKey = () => `w${String(++seq)}`;

/** One dashboard: its settings, its widgets arranged on the grid, saving and deleting it. */
export default function DashboardBuilder() {
  const { id = '' } = useParams();
  const canWrite = useCan('dashboards:write');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const dashboard = useQuery({
    queryKey: ['dashboards', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/dashboards/{id}', { params: { path: { id } } })),
  });
  const metrics = useQuery({
    queryKey: ['metrics', 'all'],
    queryFn: async () => unwrap(await api.GET('/api/metrics', { params: { query: { limit: 100 } } })).data,
  });
  const levels = useQuery({
    queryKey: ['levels', 'names'],
    enabled: useCan('partners:read'),
    queryFn: async () => unwrap(await api.GET('/api/levels', { params: { query: { limit: 100 } } })).data.map((l) => l.name),
  });
  const [items, setItems] = useState<Item[] | null>(null);
  const [name, setName] = useState('');
  const [levelNames, setLevelNames] = useState<string[]>([]);
  const [isDefault, setIsDefault] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const loaded = useRef('');
  const d = dashboard.data;
  useEffect(() => {
    if (!d || loaded.current === d.updatedAt) return;
    loaded.current = d.updatedAt;
    const at = places(d.widgets);
    setItems(d.widgets.map((w, i) => ({ key: newKey(), widget: { ...w, ...at[i] } })));
    setName(d.name);
    setLevelNames(d.levels);
    setIsDefault(d.isDefault);
    setDirty(false);
  }, [d]);
  const { width, containerRef, mounted } = useContainerWidth();
  const layout = useMemo<Layout>(() => (items ?? []).map((it) => ({
    i: it.key, x: it.widget.x ?? 0, y: it.widget.y ?? 0, w: it.widget.w ?? 1, h: it.widget.h ?? 1, minH: 2, maxH: 24,
  })), [items]);
  const change = (fn: (prev: Item[]) => Item[]) => { setItems((prev) => fn(prev ?? [])); setDirty(true); };
  const onLayoutChange = (l: Layout) => {
    const byKey = new Map(l.map((x) => [x.i, x]));
    const moved = (items ?? []).some((it) => {
      const p = byKey.get(it.key);
      return p && (p.x !== it.widget.x || p.y !== it.widget.y || p.w !== it.widget.w || p.h !== it.widget.h);
    });
    if (!moved) return;
    change((prev) => prev.map((it) => {
      const p = byKey.get(it.key);
      return p ? { ...it, widget: { ...it.widget, x: p.x, y: p.y, w: p.w, h: p.h } } : it;
    }));
  };
  const add = (kind: Widget['kind']) => {
    const bottom = Math.max(0, ...(items ?? []).map((it) => (it.widget.y ?? 0) + (it.widget.h ?? 0)));
    const first = metrics.data?.[0]?.id;
    const widget: Widget = kind === 'event-list'
      ? { kind, eventType: '*', limit: 10 }
      : { kind, range: 'last_30_days', ...(first ? { metricId: first } : {}), ...(kind === 'time-series' ? { interval: 'day' } : {}) };
    const key = newKey();
    change((prev) => [...prev, { key, widget: { ...widget, x: 0, y: bottom, ...defaultSize[kind] } }]);
    setEditing(key);
  };
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/dashboards/{id}', {
      params: { path: { id } },
      body: {
        name: name.trim(), levels: levelNames, isDefault,
        widgets: (items ?? []).map(({ widget: w }) => ({ ...w, title: w.title?.trim() || undefined })),
      },
    })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(['dashboards', 'one', id], saved);
      await queryClient.invalidateQueries({ queryKey: ['dashboards', 'list'] });
      notify('Dashboard saved');
    },
  });
  const remove = async () => {
    unwrap(await api.DELETE('/api/dashboards/{id}', { params: { path: { id } } }));
    notify('Dashboard deleted');
    await navigate('/dashboards');
    queryClient.removeQueries({ queryKey: ['dashboards', 'one', id] });
    await queryClient.invalidateQueries({ queryKey: ['dashboards'] });
  };
  const editingItem = items?.find((it) => it.key === editing);
  const metricList = metrics.data ?? [];
  return (
    <Stack gap="md">
      <PageHeader title={d?.name ?? 'Dashboard'} description={<Anchor component={Link} to="/dashboards" size="sm">All dashboards</Anchor>}
        actions={d && canWrite && (
          <>
            <Menu position="bottom-end">
              <Menu.Target><Button variant="default">Add widget</Button></Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => { add('metric'); }}>Number (a metric's value)</Menu.Item>
                <Menu.Item onClick={() => { add('time-series'); }}>Time series (a chart)</Menu.Item>
                <Menu.Item onClick={() => { add('event-list'); }}>Event list (latest events)</Menu.Item>
              </Menu.Dropdown>
            </Menu>
            <Button onClick={() => { save.mutate(); }} loading={save.isPending} disabled={!dirty}>Save</Button>
            <ConfirmButton label="Delete" title="Delete this dashboard?" confirmLabel="Delete dashboard"
              message="Partners of its levels see the default dashboard instead." onConfirm={remove} />
          </>
        )} />
      <ErrorAlert error={dashboard.error ?? save.error} />
      {dashboard.isPending && <Skeleton height={120} />}
      {d && items && (
        <>
          <Card withBorder padding="sm">
            <Group align="flex-end" wrap="wrap">
              <TextInput label="Name" required maxLength={200} value={name} readOnly={!canWrite} w={260}
                onChange={(e) => { setName(e.currentTarget.value); setDirty(true); }} />
              <TagsInput label="Shown to levels" description="Partners at these levels see it" w={320} data={levels.data ?? []} value={levelNames}
                readOnly={!canWrite} maxTags={50} onChange={(v) => { setLevelNames(v); setDirty(true); }} />
              <Switch label="Default for levels without a dashboard" checked={isDefault} disabled={!canWrite}
                onChange={(e) => { setIsDefault(e.currentTarget.checked); setDirty(true); }} mb={8} />
              {dirty && <Badge color="orange" variant="light" mb={8}>Unsaved changes</Badge>}
            </Group>
          </Card>
          {items.length === 0 && <Text c="dimmed" ta="center" py="xl">No widgets yet. Add a number, a time series or an event list.</Text>}
          <div ref={containerRef} data-testid="builder-grid">
            {mounted && (
              <ReactGridLayout width={width} layout={layout} onLayoutChange={onLayoutChange}
                gridConfig={{ cols: GRID_COLUMNS, rowHeight: ROW_HEIGHT, margin: [MARGIN, MARGIN] }}
                dragConfig={{ enabled: canWrite, handle: '.widget-drag' }} resizeConfig={{ enabled: canWrite, handles: ['se'] }}>
                {items.map((it) => {
                  const metricName = metricList.find((m) => m.id === it.widget.metricId)?.name;
                  const title = widgetTitle(it.widget, undefined, metricName);
                  return (
                    <div key={it.key} data-testid="builder-widget" data-widget-kind={it.widget.kind}>
                      <Card withBorder padding="sm" h="100%" style={{ display: 'flex', flexDirection: 'column', overflow: 'hidden' }}>
                        <Group justify="space-between" wrap="nowrap" gap={4} mb={4}>
                          <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
                            {canWrite && <ActionIcon className="widget-drag" variant="subtle" size="sm" aria-label={`Move ${title}`} style={{ cursor: 'move' }}>⠿</ActionIcon>}
                            <Title order={2} size="h5" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{title}</Title>
                          </Group>
                          {canWrite && (
                            <Group gap={2} wrap="nowrap">
                              <Button size="compact-xs" variant="subtle" onClick={() => { setEditing(it.key); }} aria-label={`Configure ${title}`}>Configure</Button>
                              <ActionIcon size="sm" variant="subtle" color="red" aria-label={`Remove ${title}`}
                                onClick={() => { change((prev) => prev.filter((x) => x.key !== it.key)); }}>✕</ActionIcon>
                            </Group>
                          )}
                        </Group>
                        <Preview w={it.widget} metrics={metricList} chartHeight={Math.max((it.widget.h ?? 3) * (ROW_HEIGHT + MARGIN) - 120, 60)} />
                      </Card>
                    </div>
                  );
                })}
              </ReactGridLayout>
            )}
          </div>
          {editingItem && (
            <WidgetPanel item={editingItem} metrics={metricList}
              onChange={(w) => { change((prev) => prev.map((x) => (x.key === editingItem.key ? { ...x, widget: w } : x))); }}
              onClose={() => { setEditing(null); }} />
          )}
        </>
      )}
    </Stack>
  );
}
