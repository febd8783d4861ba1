import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  Anchor, Autocomplete, Badge, Button, Card, Code, Group, Modal, Select, SimpleGrid, Skeleton, Stack, Table, Text, TextInput, Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerSelect } from '../../ui/DataPartnerSelect';
import { ConfirmButton } from '../../ui/DataConfirm';
import { MetricFields } from '../../ui/DataMetricForm';
import { metricBody, metricFields, metricValues, scalarToText, type MetricValues } from '../../ui/DataValues';
import { formatDateTime, localInputToISO } from '../../ui/format';
import { formatValue } from '../../ui/dash/widgets';

type Metric = Schemas['Metric'];
type Interval = 'hour' | 'day' | 'week' | 'month';

const kindText: Record<Metric['kind'], string> = {
  count: 'Count of events', sum: 'Sum of a field', unique: 'Distinct values', csat: 'CSAT (% of answers scoring 4–5)', nps: 'NPS (% promoters − % detractors)',
  mdf_roi: 'MDF ROI (influenced won revenue ÷ spend)',
};

function EditMetric({ metric, onClose }: { metric: Metric; onClose: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<MetricValues>({ initialValues: metricValues(metric) });
  const save = useMutation({
    mutationFn: async (v: MetricValues) => {
      const b = metricBody(v);
      return unwrap(await api.PATCH('/api/metrics/{id}', {
        params: { path: { id: metric.id } },
        body: { name: b.name, kind: b.kind, eventType: b.eventType, field: b.field ?? '', filters: b.filters ?? [], unit: b.unit ?? 'count', currency: b.currency ?? '', fundId: b.fundId ?? '' },
      }));
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (m) => {
      queryClient.setQueryData(['metrics', 'one', m.id], m);
      await queryClient.invalidateQueries({ queryKey: ['metrics'] });
      notify('Metric saved; its numbers are recomputed on the next view');
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Edit metric" size="lg">
      <form onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={metricFields(form.values.filters.length)} />
          <MetricFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A currency a sum is restricted to by an equality filter on a field named like currency. */
function currencyOf(m: Metric): string {
  const f = m.filters.find((x) => x.op === 'eq' && /(^|\.)currency$/i.test(x.path) && typeof x.value === 'string' && /^[A-Z]{3}$/.test(x.value));
  return typeof f?.value === 'string' ? f.value : '';
}

const currencies = ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'INR', 'BRL', 'KWD'];

function Compute({ metric }: { metric: Metric }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [interval, setInterval] = useState<Interval | ''>('day');
  const [partnerId, setPartnerId] = useState('');
  const [partnerLevel, setPartnerLevel] = useState('');
  const [currency, setCurrency] = useState(metric.unit === 'money' && metric.currency ? metric.currency : currencyOf(metric));
  const [asked, setAsked] = useState<Record<string, string> | null>(null);
  const levels = useQuery({
    queryKey: ['levels', 'names'],
    enabled: useCan('partners:read'),
    queryFn: async () => unwrap(await api.GET('/api/levels', { params: { query: { limit: 100 } } })).data.map((l) => l.name),
  });
  const result = useQuery({
    queryKey: ['metrics', 'compute', metric.id, metric.updatedAt, asked],
    enabled: asked !== null,
    queryFn: async () => unwrap(await api.GET('/api/metrics/{id}/compute', {
      params: { path: { id: metric.id }, query: asked ?? {} },
    })),
  });
  const run = () => {
    const q: Record<string, string> = {};
    const f = localInputToISO(from);
    const t = localInputToISO(to);
    if (f) q.from = f;
    if (t) q.to = t;
    if (interval) q.interval = interval;
    if (partnerId) q.partnerId = partnerId;
    if (partnerLevel.trim()) q.partnerLevel = partnerLevel.trim();
    setAsked(q);
  };
  const money = metric.kind === 'sum' && currency;
  const score = metric.kind === 'csat' || metric.kind === 'nps';
  const roi = metric.kind === 'mdf_roi';
  const amount = (n: number | undefined) => <Money minor={n ?? 0} currency={metric.currency} />;
  const show = (n: number | null) => n === null ? '—' : money ? <Money minor={n} currency={currency} /> : formatValue(n, { unit: metric.unit, kind: metric.kind });
  const r = result.data;
  const intervals = metric.kind === 'unique' ? ['day', 'week', 'month'] : ['hour', 'day', 'week', 'month'];
  return (
    <Card withBorder>
      <Stack>
        <Title order={2} size="h4">Compute</Title>
        <form onSubmit={(e) => { e.preventDefault(); run(); }}>
          <Group align="flex-end" wrap="wrap">
            <TextInput label="From" type="datetime-local" description="Default: 30 days before the end" value={from} onChange={(e) => { setFrom(e.currentTarget.value); }} />
            <TextInput label="To" type="datetime-local" description="Default: now" value={to} onChange={(e) => { setTo(e.currentTarget.value); }} />
            <Select label="Series" description="One point per interval (UTC)" w={150} data={[{ value: '', label: 'No series' }, ...intervals.map((i) => ({ value: i, label: `By ${i}` }))]}
              value={interval} allowDeselect={false} onChange={(v) => { setInterval((v ?? '') as Interval | ''); }} />
            <PartnerSelect label="Partner" description={roi ? 'Only this partner\'s claims' : 'Only this partner\'s customers'} placeholder="All partners" w={220} value={partnerId} onChange={setPartnerId} />
            <Autocomplete label="Partner level" description="Partners at this level now" w={180} data={levels.data ?? []} value={partnerLevel} onChange={setPartnerLevel} />
            {metric.kind === 'sum' && (
              <Select label="Amounts are money in" description="The sum is in minor units" w={180} clearable placeholder="Plain numbers"
                data={[...new Set([currencyOf(metric), ...currencies].filter(Boolean))]} value={currency || null}
                onChange={(v) => { setCurrency(v ?? ''); }} />
            )}
            <Button type="submit" loading={result.isFetching}>Compute</Button>
          </Group>
        </form>
        <ErrorAlert error={result.error} />
        {r && (
          <Stack gap="sm" data-testid="metric-result">
            <Group align="baseline" gap="md">
              <Text fz={32} fw={700} aria-label="Value">{show(r.value)}</Text>
              <Text size="sm" c="dimmed">from {formatDateTime(r.from)} to {formatDateTime(r.to)}</Text>
              {score && <Text size="sm" data-testid="metric-responses">{r.responses ? `${String(r.responses)} answer(s)` : 'No answers in this period'}</Text>}
              {roi && <Text size="sm" data-testid="metric-roi-basis">{r.spend ? <>{amount(r.influencedRevenue)} won on {amount(r.spend)} spent</> : 'No MDF spend in this period'}</Text>}
              {r.skipped > 0 && <Badge color="orange" variant="dot">{r.skipped} event(s) skipped: field missing{metric.kind === 'sum' ? ' or not an integer' : ''}</Badge>}
            </Group>
            {metric.kind === 'unique' && r.series && <Text size="xs" c="dimmed">Each point counts the distinct values of its interval, so points do not add up to the value.</Text>}
            {roi && r.series && <Text size="xs" c="dimmed">Each point divides the revenue and spend of the claims approved in its interval; a deal named in two intervals counts in both, and once in the value.</Text>}
            {r.series && r.series.length > 0 && (
              <Table.ScrollContainer minWidth={320} mah={420}>
                <Table striped aria-label="Series" stickyHeader>
                  <Table.Thead>
                    <Table.Tr><Table.Th>{r.interval ? `${r.interval[0]?.toUpperCase() ?? ''}${r.interval.slice(1)} starting` : 'Start'}</Table.Th><Table.Th ta="right">Value</Table.Th>{score && <Table.Th ta="right">Answers</Table.Th>}{roi && <><Table.Th ta="right">Spend</Table.Th><Table.Th ta="right">Influenced revenue</Table.Th></>}</Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {r.series.map((p) => (
                      <Table.Tr key={p.start}><Table.Td><DateTime value={p.start} /></Table.Td><Table.Td ta="right">{show(p.value)}</Table.Td>{score && <Table.Td ta="right">{p.responses ?? 0}</Table.Td>}{roi && <><Table.Td ta="right">{amount(p.spend)}</Table.Td><Table.Td ta="right">{amount(p.influencedRevenue)}</Table.Td></>}</Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Stack>
        )}
        {!r && !result.isFetching && !result.isError && <Text size="sm" c="dimmed">Choose a range and compute; empty fields take the defaults.</Text>}
      </Stack>
    </Card>
  );
}

/** An MDF fund's name (for those who read funds), or "Every fund". */
function FundName({ id }: { id?: string }) {
  const canRead = useCan('mdf:read');
  const fund = useQuery({
    queryKey: ['mdf', 'funds', 'one', id],
    enabled: !!id && canRead,
    queryFn: async () => unwrap(await api.GET('/api/mdf/funds/{id}', { params: { path: { id: id ?? '' } } })),
  });
  if (!id) return <>Every fund</>;
  return <>{fund.data?.name ?? 'One fund'}</>;
}

/** One metric: its definition, editing it, and computing it over a range. */
export default function MetricDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('metrics:write');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const metric = useQuery({
    queryKey: ['metrics', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/metrics/{id}', { params: { path: { id } } })),
  });
  const m = metric.data;
  const remove = async () => {
    unwrap(await api.DELETE('/api/metrics/{id}', { params: { path: { id } } }));
    notify('Metric deleted');
    // Leave the page first, so nothing refetches what is gone.
    await navigate('/metrics');
    queryClient.removeQueries({ queryKey: ['metrics', 'one', id] });
    queryClient.removeQueries({ queryKey: ['metrics', 'compute', id] });
    await queryClient.invalidateQueries({ queryKey: ['metrics'] });
  };
  return (
    <Stack gap="md">
      <PageHeader title={m?.name ?? 'Metric'} description={<Anchor component={Link} to="/metrics" size="sm">All metrics</Anchor>}
        actions={m && canWrite && (
          <>
            <Button variant="default" onClick={() => { setEditing(true); }}>Edit</Button>
            <ConfirmButton label="Delete" title="Delete this metric?" confirmLabel="Delete metric"
              message="Its definition and computed rollups are removed. A metric a dashboard shows cannot be deleted." onConfirm={remove} />
          </>
        )} />
      <ErrorAlert error={metric.error} />
      {metric.isPending && <Skeleton height={80} />}
      {m && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, sm: 4 }}>
              <Stack gap={2}><Text size="xs" c="dimmed" fw={700} tt="uppercase">Kind</Text><Text size="sm">{kindText[m.kind]}</Text></Stack>
              <Stack gap={2}><Text size="xs" c="dimmed" fw={700} tt="uppercase">Event type</Text><Code w="fit-content">{m.eventType}</Code></Stack>
              {m.kind === 'mdf_roi'
                ? <Stack gap={2}><Text size="xs" c="dimmed" fw={700} tt="uppercase">Fund and currency</Text><Text size="sm" data-testid="metric-fund"><FundName id={m.fundId} /> · {m.currency}</Text></Stack>
                : <Stack gap={2}><Text size="xs" c="dimmed" fw={700} tt="uppercase">Field</Text>{m.field ? <Code w="fit-content">{m.field}</Code> : <Text size="sm">—</Text>}</Stack>}
              <Stack gap={2}><Text size="xs" c="dimmed" fw={700} tt="uppercase">Updated</Text><Text size="sm"><DateTime value={m.updatedAt} /></Text></Stack>
            </SimpleGrid>
            {m.filters.length > 0 && (
              <Stack gap={4} mt="md">
                <Text size="xs" c="dimmed" fw={700} tt="uppercase">Filters</Text>
                {m.filters.map((f, i) => (
                  <Text key={i} size="sm"><Code>{f.path}</Code> {f.op === 'eq' ? 'equals' : 'differs from'} <Code>{scalarToText(f.value)}</Code></Text>
                ))}
              </Stack>
            )}
          </Card>
          <Compute key={m.updatedAt} metric={m} />
          {editing && <EditMetric metric={m} onClose={() => { setEditing(false); }} />}
        </>
      )}
    </Stack>
  );
}
