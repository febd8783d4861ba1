import { Autocomplete, Button, Group, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { localInputToISO } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerSelect } from '../../ui/DataPartnerSelect';
import { EventTable } from '../../ui/DataEventTable';
import { useEventTypes } from '../../ui/DataQueries';
import { useAdminFilters } from '../../ui/AdminFilters';

const filterKeys = ['type', 'customerId', 'partnerId', 'from', 'to'] as const;

/** The event log: what happened in the program and what your systems sent, filtered and paged. */
export default function Events() {
  const [values, setValues] = useAdminFilters(filterKeys);
  const types = useEventTypes();
  const value = (k: (typeof filterKeys)[number]) => values[k];
  const set = (k: (typeof filterKeys)[number], v: string) => { setValues({ [k]: v }); };
  // Typed text settles before it becomes a query.
  const [type] = useDebouncedValue(value('type').trim(), 300);
  const [customerId] = useDebouncedValue(value('customerId').trim(), 300);
  const from = localInputToISO(value('from'));
  const to = localInputToISO(value('to'));
  const filters = {
    ...(type ? { type } : {}),
    ...(customerId ? { customerId } : {}),
    ...(value('partnerId') ? { partnerId: value('partnerId') } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
  const typeNames = (types.data ?? []).map((t) => t.name).sort();
  return (
    <Stack gap="md">
      <PageHeader title="Events" description="Everything that happened in your program and every event your systems sent, oldest first. Times are in your time zone." />
      <Group align="flex-end" wrap="wrap">
        <Autocomplete label="Type" placeholder="Any type, or a pattern like deal.*" w={260}
          data={typeNames} limit={50} value={value('type')} onChange={(v) => { set('type', v); }} />
        <TextInput label="Customer id" w={240} value={value('customerId')} onChange={(e) => { set('customerId', e.currentTarget.value); }} />
        <PartnerSelect label="Partner" placeholder="Any partner" w={220} value={value('partnerId')} onChange={(v) => { set('partnerId', v); }} />
        <TextInput label="From" type="datetime-local" value={value('from')} onChange={(e) => { set('from', e.currentTarget.value); }} />
        <TextInput label="To" type="datetime-local" value={value('to')} onChange={(e) => { set('to', e.currentTarget.value); }} />
        {Object.values(values).some(Boolean) && <Button variant="subtle" onClick={() => { setValues(Object.fromEntries(filterKeys.map((k) => [k, null]))); }}>Clear filters</Button>}
      </Group>
      <EventTable filters={filters} />
    </Stack>
  );
}
