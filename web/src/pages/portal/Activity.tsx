import { Autocomplete, Button, Group, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCan } from '../../auth/useCan';
import { CustomerSelect } from '../../ui/CustomerSelect';
import { EventTable } from '../../ui/DataEventTable';
import { useEventTypes } from '../../ui/DataQueries';
import { PageHeader } from '../../ui/PageHeader';
import { dayToISO } from '../../ui/portal';
import { useAdminFilters } from '../../ui/AdminFilters';

const filterKeys = ['type', 'customerId', 'from', 'to'] as const;

/** What the partner's customers did: their events, newest first, filtered by type, customer and day. */
export default function Activity() {
  const [values, setValues] = useAdminFilters(filterKeys);
  const canCustomers = useCan('customers:read');
  const types = useEventTypes();
  const value = (k: (typeof filterKeys)[number]) => values[k];
  const set = (k: (typeof filterKeys)[number], v: string) => { setValues({ [k]: v }); };
  // Typed text settles before it becomes a query.
  const [type] = useDebouncedValue(value('type').trim(), 300);
  const from = dayToISO(value('from'));
  const to = dayToISO(value('to'), true);
  const filters = {
    ...(type ? { type } : {}),
    ...(value('customerId') ? { customerId: value('customerId') } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
  const typeNames = (types.data ?? []).map((t) => t.name).sort();
  return (
    <Stack>
      <PageHeader title="Activity" description="What your customers did: the events they sent and what happened to them, newest first. Times are in your time zone." />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Autocomplete label="Type" placeholder="Any type, or invoice.*" w={240}
          data={typeNames} limit={50} value={value('type')} onChange={(v) => { set('type', v); }} />
        {canCustomers && (
          <CustomerSelect label="Customer" placeholder="Any customer" w={260}
            value={value('customerId')} onChange={(v) => { set('customerId', v); }} />
        )}
        <TextInput type="date" label="From" value={value('from')} onChange={(e) => { set('from', e.currentTarget.value); }} />
        <TextInput type="date" label="Until" value={value('to')} onChange={(e) => { set('to', e.currentTarget.value); }} />
        {Object.values(values).some(Boolean) && <Button variant="subtle" onClick={() => { setValues(Object.fromEntries(filterKeys.map((k) => [k, null]))); }}>Clear filters</Button>}
      </Group>
      <EventTable face="portal" filters={filters} />
    </Stack>
  );
}
