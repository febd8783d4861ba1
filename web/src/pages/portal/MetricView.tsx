import { lazy, Suspense } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { Anchor, Badge, Card, Code, Group, Loader, NativeSelect, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatValue, isScore, metricKindLabels } from '../../ui/dash/widgets';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { metricPeriods, periodOf } from './metricPeriods';

const Chart = lazy(() => import('../../ui/dash/Chart'));

/** One metric over the partner's own customers' events: its value for a period and how it moved, a point a day or a week. */
export default function MetricView() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const { period, days } = periodOf(params.get('days'));
  // Up to 90 days a point a day; a year a point a week.
  const interval = days > 90 ? 'week' : 'day';
  const metric = useQuery({
    queryKey: ['metrics', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/metrics/{id}', { params: { path: { id } } })),
  });
  const value = useQuery({
    queryKey: ['metrics', 'compute', id, metric.data?.updatedAt, { days, interval }],
    enabled: metric.isSuccess,
    queryFn: async () => unwrap(await api.GET('/api/metrics/{id}/compute', {
      params: { path: { id }, query: { from: new Date(Date.now() - days * 86_400_000).toISOString(), interval } },
    })),
  });
  const m = metric.data;
  const r = value.data;
  const label = metricPeriods.find((p) => p.value === period)?.label ?? '';
  return (
    <Stack>
      <PageHeader title={m?.name ?? 'Metric'} description="Computed over your own customers' events (the return on funds: your own claims)."
        actions={<Anchor component={Link} to={`/portal/metrics${period === '30' ? '' : `?days=${period}`}`} size="sm">All metrics</Anchor>} />
      <ErrorAlert error={metric.error ?? value.error} />
      {m && (
        <Group gap="sm" align="flex-end">
          <Badge variant="default">{metricKindLabels[m.kind]}</Badge>
          <Code>{m.eventType}</Code>
          <NativeSelect label="Period" data={metricPeriods} value={period} ml="auto"
            onChange={(e) => { const v = e.currentTarget.value; setParams(v === '30' ? {} : { days: v }, { replace: true }); }} />
        </Group>
      )}
      {(metric.isPending || value.isPending) && !metric.error && <Loader size="sm" role="status" aria-label="Computing the metric" />}
      {r && (
        <Card withBorder>
          <Stack gap="xs">
            <Text size="xs" c="dimmed" tt="uppercase" fw={700}>{label}</Text>
            <Text size="xl" fw={700} data-testid="metric-total">
              {r.unit === 'money' && r.value !== null && r.currency ? <Money minor={r.value} currency={r.currency} /> : formatValue(r.value, r)}
            </Text>
            {isScore(r.kind) && <Text size="xs" c="dimmed">{r.responses ?? 0} answer{r.responses === 1 ? '' : 's'}</Text>}
            {(r.series?.length ?? 0) > 0 ? (
              <Suspense fallback={<Loader size="xs" />}>
                <div role="img" aria-label={`${m?.name ?? 'The metric'}, a point a ${interval}`} data-testid="metric-chart">
                  <Chart value={r} label={m?.name ?? ''} height={220} />
                </div>
              </Suspense>
            ) : <Text size="sm" c="dimmed">Nothing to draw for this period.</Text>}
            {m?.kind === 'unique' && <Text size="xs" c="dimmed">Each point counts the distinct values of its {interval}, so points do not add up to the value.</Text>}
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
