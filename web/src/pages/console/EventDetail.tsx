import { Link, useParams } from 'react-router';
import { Anchor, Card, Code, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerName } from '../../ui/DataPartnerSelect';
import { useEventWithType } from '../../ui/DataQueries';
import { Field } from '../../ui/Field';

/** One event: when and from where it came, who it concerns, and its payload. */
export default function EventDetail() {
  const { id = '' } = useParams();
  const { event, about } = useEventWithType(id);
  const e = event.data;
  return (
    <Stack gap="md">
      <PageHeader title={e ? `Event ${e.type}` : 'Event'} description={about}
        actions={<Anchor component={Link} to="/events" size="sm">All events</Anchor>} />
      <ErrorAlert error={event.error} />
      {event.isPending && <Skeleton height={120} />}
      {e && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="Occurred"><DateTime value={e.occurredAt} /></Field>
              <Field label="Received"><DateTime value={e.receivedAt} /></Field>
              <Field label="Source">{e.source === 'ingest' ? 'Sent by your systems (ingest)' : 'Recorded by partnerd'}</Field>
              <Field label="Customer">{e.customerId ? <Anchor component={Link} to={`/customers/${e.customerId}`} size="sm">{e.customerId}</Anchor> : '—'}</Field>
              <Field label="Partner"><PartnerName id={e.partnerId} /></Field>
              <Field label="Actor">{e.actorKind}{e.actorId ? ` · ${e.actorId}` : ''}</Field>
              {e.eventId && <Field label="Your event id"><Text ff="monospace" size="sm">{e.eventId}</Text></Field>}
              {e.causationId && <Field label="Caused by"><Anchor component={Link} to={`/events/${e.causationId}`} size="sm">{e.causationId}</Anchor></Field>}
              <Field label="Id"><Text ff="monospace" size="sm">{e.id}</Text></Field>
            </SimpleGrid>
          </Card>
          <Title order={2} size="h4">Payload</Title>
          <Code block data-testid="event-payload">{JSON.stringify(e.payload, null, 2)}</Code>
        </>
      )}
    </Stack>
  );
}
