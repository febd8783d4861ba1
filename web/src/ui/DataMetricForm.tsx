import { useQuery } from '@tanstack/react-query';
import { ActionIcon, Autocomplete, Button, Group, Select, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { formatMoney } from './format';
import { useForm } from '@mantine/form';
import { api, unwrap } from '../api/client';
import { useCan } from '../auth/useCan';
import { useEventTypes } from './DataQueries';
import { commonCurrencies, payloadPaths, schemaPaths, type MetricValues } from './DataValues';

/**
 * The payload fields a metric over an event type can use: from the type's schema when the
 * service emits it, and from the latest ingested events of that type otherwise.
 */
function usePayloadFields(eventType: string) {
  const types = useEventTypes();
  const known = types.data?.find((t) => t.name === eventType);
  const canReadEvents = useCan('events:read');
  const exact = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(eventType);
  const samples = useQuery({
    queryKey: ['events', 'payload-fields', eventType],
    enabled: !known && exact && canReadEvents && types.isSuccess,
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/api/events', { params: { query: { type: eventType, limit: 50 } } })).data.map((e) => e.payload),
  });
  if (known) return schemaPaths(known.payloadSchema);
  return payloadPaths(samples.data ?? []);
}

/** The MDF funds an ROI metric can be limited to (for operators who read funds). */
function useFunds(enabled: boolean) {
  const canRead = useCan('mdf:read');
  return useQuery({
    queryKey: ['mdf', 'funds', 'choices'],
    enabled: enabled && canRead,
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/api/mdf/funds', { params: { query: { limit: 100 } } })).data,
  });
}

/** The inputs of an MDF ROI metric: its currency and, optionally, one fund. */
function ROIFields({ form }: { form: ReturnType<typeof useForm<MetricValues>> }) {
  const funds = useFunds(true);
  const choices = (funds.data ?? []).map((f) => ({ value: f.id, label: `${f.name} (${formatMoney(f.allocated, f.currency)})` }));
  return (
    <>
      <Text size="sm" c="dimmed" data-testid="roi-kind-help">
        The won revenue of the deals that MDF claims influenced, divided by what those claims spent, shown as a multiple (2.35×).
        A period counts the claims approved (reimbursed) in it and the deals they name that are won now, each deal once; a period
        without spend has no ROI. Partners see their own.
      </Text>
      <Group align="flex-start" grow>
        <Select label="Fund" placeholder="Every fund" clearable searchable data={choices}
          description="Only this fund's claims; the ROI takes its currency" {...form.getInputProps('fundId')}
          value={form.values.fundId || null}
          onChange={(id: string | null) => {
            form.setFieldValue('fundId', id ?? '');
            const f = funds.data?.find((x) => x.id === id);
            if (f) form.setFieldValue('currency', f.currency);
          }} />
        <Autocomplete label="Currency" required={!form.values.fundId} description="ISO 4217: spend and revenue in this currency only"
          data={commonCurrencies} maxLength={3} {...form.getInputProps('currency')} />
      </Group>
    </>
  );
}

/** The inputs of a metric definition. */
export function MetricFields({ form }: { form: ReturnType<typeof useForm<MetricValues>> }) {
  const types = useEventTypes();
  const { kind, unit } = form.values;
  const score = kind === 'csat' || kind === 'nps';
  const roi = kind === 'mdf_roi';
  const fields = usePayloadFields(form.values.eventType.trim());
  const fieldChoices = kind === 'sum'
    ? fields.filter((f) => f.type === 'integer' || f.type === 'number').map((f) => f.path)
    : ['customer', ...fields.filter((f) => f.type !== 'array').map((f) => f.path)];
  return (
    <Stack>
      <TextInput label="Name" required {...form.getInputProps('name')} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="metric-kind">Kind</Text>
        <SegmentedControl aria-labelledby="metric-kind" data={[
          { value: 'count', label: 'Count events' }, { value: 'sum', label: 'Sum a field' }, { value: 'unique', label: 'Distinct values' },
          { value: 'csat', label: 'CSAT' }, { value: 'nps', label: 'NPS' }, { value: 'mdf_roi', label: 'MDF ROI' },
        ]} {...form.getInputProps('kind')} />
        {form.errors.kind && <Text size="xs" c="red">{form.errors.kind}</Text>}
      </Stack>
      {score && (
        <Text size="sm" c="dimmed" data-testid="score-kind-help">
          {kind === 'csat'
            ? 'The percentage of CSAT survey answers scoring 4 or 5, in whole percent rounded down.'
            : 'The percentage of NPS promoters (9–10) minus that of detractors (0–6), from -100 to 100.'}
          {' '}Computed from survey answers (survey.responded); a period without answers has no score. Partners see their own.
        </Text>
      )}
      {roi && <ROIFields form={form} />}
      {!score && !roi && <Autocomplete label="Event type" required description="From the event catalogue, an ingested type, or a pattern with * (invoice.*)"
        data={(types.data ?? []).map((t) => t.name).sort()} limit={50} {...form.getInputProps('eventType')} />}
      {kind !== 'count' && !score && !roi && (
        <Autocomplete label="Field" required data={[...new Set(fieldChoices)]} limit={50}
          description={kind === 'sum'
            ? `Dotted payload path of an integer${fields.length ? ', from the event type\'s fields' : ', e.g. amount or invoice.total'}; other values are skipped`
            : 'Dotted payload path, or customer to count distinct customers'}
          {...form.getInputProps('field')} />
      )}
      {kind === 'sum' && (
        <Group align="flex-start" grow>
          <Select label="Unit" allowDeselect={false} data={[{ value: 'count', label: 'Plain numbers' }, { value: 'money', label: 'Money (minor units)' }]}
            {...form.getInputProps('unit')} />
          {unit === 'money' && (
            <Autocomplete label="Currency" required description="ISO 4217, e.g. EUR; the field holds cents" data={commonCurrencies} maxLength={3}
              {...form.getInputProps('currency')} />
          )}
        </Group>
      )}
      {!roi && <Stack gap="xs">
        <Text size="sm" fw={500}>Filters</Text>
        <Text size="xs" c="dimmed">Only events whose payload matches every filter count. Values: numbers, true, false, null, or text (quote text that looks like a number).</Text>
        {form.values.filters.map((_, i) => (
          <Group key={i} align="flex-start" wrap="nowrap" gap="xs">
            <Autocomplete label="Payload path" placeholder="plan" style={{ flex: 2 }} data={[...new Set(fields.map((f) => f.path))]} limit={50}
              {...form.getInputProps(`filters.${String(i)}.path`)} />
            <Select label="Test" w={130} allowDeselect={false} data={[{ value: 'eq', label: 'equals' }, { value: 'neq', label: 'differs from' }]}
              {...form.getInputProps(`filters.${String(i)}.op`)} />
            <TextInput label="Value" style={{ flex: 2 }} {...form.getInputProps(`filters.${String(i)}.value`)} />
            <ActionIcon variant="subtle" color="red" mt={26} aria-label={`Remove filter ${String(i + 1)}`}
              onClick={() => { form.removeListItem('filters', i); }}>✕</ActionIcon>
          </Group>
        ))}
        {form.errors.filters && <Text size="xs" c="red">{form.errors.filters}</Text>}
        {form.values.filters.length < 20 && (
          <Button variant="default" size="xs" w="fit-content"
            onClick={() => { form.insertListItem('filters', { path: '', op: 'eq', value: '' }); }}>Add filter</Button>
        )}
      </Stack>}
    </Stack>
  );
}
