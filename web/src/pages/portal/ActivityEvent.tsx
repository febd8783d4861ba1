import { Link, useParams } from 'react-router';
import { Anchor, Card, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useCan } from '../../auth/useCan';
import { AdminJson } from '../../ui/AdminJson';
import { CustomerName } from '../../ui/CustomerSelect';
import { useEventWithType } from '../../ui/DataQueries';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { Field } from '../../ui/Field';

/** One event of the partner's customers: its type, customer, time and payload. */
export default function ActivityEvent() {
  const { id = '' } = useParams();
  const canCustomers = useCan('customers:read');
  const { event, about } = useEventWithType(id);
  const e = event.data;
  return (
    <Stack>
      <PageHeader title={e ? `Event ${e.type}` : 'Event'} description={about}
        actions={<Anchor component={Link} to="/portal/activity" size="sm">All activity</Anchor>} />
      <ErrorAlert error={event.error} />
      {event.isPending && <Skeleton height={120} role="status" aria-label="Loading" />}
      {e && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="Type"><Text size="sm" ff="monospace">{e.type}</Text></Field>
              <Field label="Customer">{!e.customerId ? '—' : canCustomers
                ? <CustomerName id={e.customerId} base="/portal/customers" />
                : <Text size="sm" ff="monospace">{e.customerId}</Text>}</Field>
              <Field label="Occurred"><DateTime value={e.occurredAt} /></Field>
            </SimpleGrid>
          </Card>
          <Title order={2} size="h4">Payload</Title>
          <AdminJson value={e.payload} label="Payload" />
        </>
      )}
    </Stack>
  );
}
