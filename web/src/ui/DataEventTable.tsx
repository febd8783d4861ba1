import { Link } from 'react-router';
import { Anchor, Code, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../api/client';
import { DateTime } from './DateTime';
import { PagedTable } from './PagedTable';
import { PartnerName } from './DataPartnerSelect';

type Event = Schemas['Event'];
export type EventFilters = { type?: string; customerId?: string; partnerId?: string; from?: string; to?: string };

/** The start of an event's payload on one line. */
function payloadPreview(payload: Record<string, unknown>): string {
  const s = JSON.stringify(payload);
  return s.length > 60 ? s.slice(0, 59) + '…' : s;
}

/** A paged list of events matching the filters, oldest first; each row opens the event. */
export function EventTable({ filters, showCustomer = true }: { filters: EventFilters; showCustomer?: boolean }) {
  return (
    <PagedTable<Event>
      label="Events"
      queryKey={['events', 'list', filters]}
      fetchPage={async (cursor) => unwrap(await api.GET('/api/events', { params: { query: { ...filters, cursor, limit: 25 } } }))}
      rowKey={(e) => e.id}
      empty={Object.values(filters).some(Boolean) ? 'No event matches these filters.' : 'No events yet.'}
      columns={[
        { header: 'Type', render: (e) => <Anchor component={Link} to={`/events/${e.id}`} size="sm" ff="monospace">{e.type}</Anchor> },
        { header: 'Occurred', render: (e) => <span style={{ whiteSpace: 'nowrap' }}><DateTime value={e.occurredAt} /></span> },
        { header: 'Source', render: (e) => <Text size="sm">{e.source === 'ingest' ? 'your systems' : 'partnerd'}</Text> },
        ...(showCustomer ? [{ header: 'Customer', render: (e: Event) => e.customerId
          ? <Anchor component={Link} to={`/customers/${e.customerId}`} size="sm" ff="monospace" title={e.customerId}>…{e.customerId.slice(-8)}</Anchor> : '—' }] : []),
        { header: 'Partner', render: (e) => <PartnerName id={e.partnerId} /> },
        { header: 'Payload', render: (e) => <Code style={{ whiteSpace: 'nowrap' }}>{payloadPreview(e.payload)}</Code> },
      ]}
    />
  );
}
