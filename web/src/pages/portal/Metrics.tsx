import { Link, useSearchParams } from 'react-router';
import { Anchor, Badge, Code, Group, Loader, NativeSelect, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { formatValue, isScore, metricKindLabels } from '../../ui/dash/widgets';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { metricPeriods, periodOf } from './metricPeriods';

type Metric = Schemas['Metric'];


/** A metric's value for the partner over the last `days` days, formatted by its unit. */
function MetricValueCell({ metric, days }: { metric: Metric; days: number }) {
  const v = useQuery({
    queryKey: ['metrics', 'compute', metric.id, metric.updatedAt, { days }],
    queryFn: async () => unwrap(await api.GET('/api/metrics/{id}/compute', {
      params: { path: { id: metric.id }, query: { from: new Date(Date.now() - days * 86_400_000).toISOString() } },
    })),
  });
  if (v.isPending) return <Loader size="xs" role="status" aria-label={`Computing ${metric.name}`} />;
  if (v.isError) return <Text size="sm" c="red" role="alert">{v.error.message}</Text>;
  const r = v.data;
  return (
    <Stack gap={0} align="flex-end" data-testid={`metric-value-${metric.id}`}>
      <Text size="sm" fw={600}>
        {r.unit === 'money' && r.value !== null && r.currency ? <Money minor={r.value} currency={r.currency} /> : formatValue(r.value, r)}
      </Text>
      {isScore(r.kind) && <Text size="xs" c="dimmed">{r.responses ?? 0} answer{r.responses === 1 ? '' : 's'}</Text>}
    </Stack>
  );
}

/** The program's metrics computed over the partner's own customers' events, for a chosen period. */
export default function Metrics() {
  const [params, setParams] = useSearchParams();
  const { period, days } = periodOf(params.get('days'));
  return (
    <Stack>
      <PageHeader title="Metrics" description="The program's measures, computed over your own customers' events (the return on funds: your own claims)." />
      <Group gap="sm" align="flex-end">
        <NativeSelect label="Period" data={metricPeriods} value={period}
          onChange={(e) => { const v = e.currentTarget.value; setParams(v === '30' ? {} : { days: v }, { replace: true }); }} />
      </Group>
      <PagedTable<Metric>
        label="Metrics"
        queryKey={['metrics', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/metrics', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(m) => m.id}
        empty="No metrics yet: the program has not defined any."
        columns={[
          { header: 'Metric', render: (m) => (
            <Anchor component={Link} to={`/portal/metrics/${m.id}${period === '30' ? '' : `?days=${period}`}`} size="sm" fw={500}>{m.name}</Anchor>
          ) },
          { header: 'Measures', render: (m) => (
            <>
              <Badge variant="default" mr={6}>{metricKindLabels[m.kind]}</Badge>
              <Code>{m.eventType}</Code>
            </>
          ) },
          { header: `Value, ${metricPeriods.find((p) => p.value === period)?.label.toLowerCase() ?? ''}`, numeric: true,
            render: (m) => <MetricValueCell metric={m} days={days} /> },
        ]}
      />
    </Stack>
  );
}
