import { ActionIcon, Autocomplete, Button, Group, Select, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEventTypes } from './DataQueries';
import type { MetricValues } from './DataValues';

/** The inputs of a metric definition. */
export function MetricFields({ form }: { form: ReturnType<typeof useForm<MetricValues>> }) {
  const types = useEventTypes();
  const { kind } = form.values;
  return (
    <Stack>
      <TextInput label="Name" required {...form.getInputProps('name')} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="metric-kind">Kind</Text>
        <SegmentedControl aria-labelledby="metric-kind" data={[
          { value: 'count', label: 'Count events' }, { value: 'sum', label: 'Sum a field' }, { value: 'unique', label: 'Distinct values' },
        ]} {...form.getInputProps('kind')} />
        {form.errors.kind && <Text size="xs" c="red">{form.errors.kind}</Text>}
      </Stack>
      <Autocomplete label="Event type" required description="An event type, or a pattern with * (invoice.*)"
        data={(types.data ?? []).map((t) => t.name).sort()} limit={50} {...form.getInputProps('eventType')} />
      {kind !== 'count' && (
        <TextInput label="Field" required
          description={kind === 'sum' ? 'Dotted payload path of an integer, e.g. amount or invoice.total; other values are skipped' : 'Dotted payload path, or customer to count distinct customers'}
          {...form.getInputProps('field')} />
      )}
      <Stack gap="xs">
        <Text size="sm" fw={500}>Filters</Text>
        <Text size="xs" c="dimmed">Only events whose payload matches every filter count. Values: numbers, true, false, null, or text (quote text that looks like a number).</Text>
        {form.values.filters.map((_, i) => (
          <Group key={i} align="flex-start" wrap="nowrap" gap="xs">
            <TextInput label="Payload path" placeholder="plan" style={{ flex: 2 }} {...form.getInputProps(`filters.${String(i)}.path`)} />
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
      </Stack>
    </Stack>
  );
}
