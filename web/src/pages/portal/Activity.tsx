import { useSearchParams } from 'react-router';
import { Autocomplete, Button, Group, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCan } from '../../auth/useCan';
import { CustomerSelect } from '../../ui/CustomerSelect';
import { EventTable } from '../../ui/DataEventTable';
import { useEventTypes } from '../../ui/DataQueries';
import { PageHeader } from '../../ui/PageHeader';
import { dayToISO } from '../../ui/portal';

type Key = 'type' | 'customerId' | 'from' | 'to';

/** What the partner's customers did: their events, newest first, filtered by type, customer and day. */
export default function Activity() {
  const [params, setParams] = useSearchParams();
  const canCustomers = useCan('customers:read');
  const types = useEventTypes();
  const value = (k: Key) => params.get(k) ?? '';
  const set = (k: Key, v: string) => {
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (v) next.set(k, v); else next.delete(k);
      return next;
    }, { replace: true });
  };
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
        {params.size > 0 && <Button variant="subtle" onClick={() => { setParams(new URLSearchParams(), { replace: true }); }}>Clear filters</Button>}
      </Group>
      <EventTable face="portal" filters={filters} />
    </Stack>
  );
}
