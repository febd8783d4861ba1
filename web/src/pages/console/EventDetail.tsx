import { Link, useParams } from 'react-router';
import { Anchor, Card, Code, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerName } from '../../ui/DataPartnerSelect';
import { useEventTypes } from '../../ui/DataQueries';

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>{label}</Text>
      <Text size="sm" component="div">{children}</Text>
    </Stack>
  );
}

/** One event: when and from where it came, who it concerns, and its payload. */
export default function EventDetail() {
  const { id = '' } = useParams();
  const types = useEventTypes();
  const event = useQuery({
    queryKey: ['events', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/events/{id}', { params: { path: { id } } })),
  });
  const e = event.data;
  const about = e && types.data?.find((t) => t.name === e.type)?.description;
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
