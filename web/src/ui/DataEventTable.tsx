import { Link } from 'react-router';
import { Anchor, Code, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../api/client';
import { CustomerName } from './CustomerSelect';
import { DateTime } from './DateTime';
import { payloadPreview } from './format';
import { PagedTable, type Column } from './PagedTable';
import { PartnerName } from './DataPartnerSelect';

type Event = Schemas['Event'];
export type EventFilters = { type?: string; customerId?: string; partnerId?: string; from?: string; to?: string };

/**
 * A paged list of events matching the filters; each row opens the event. The console lists them
 * oldest first with their source and partner; the portal lists a partner's customers' events
 * newest first, each customer by name.
 */
export function EventTable({ filters, showCustomer = true, face = 'console' }: { filters: EventFilters; showCustomer?: boolean; face?: 'console' | 'portal' }) {
  const portal = face === 'portal';
  const columns: Column<Event>[] = [
    { header: 'Type', render: (e) => <Anchor component={Link} to={portal ? `/portal/activity/${e.id}` : `/events/${e.id}`} size="sm" ff="monospace">{e.type}</Anchor> },
    { header: 'Occurred', render: (e) => <span style={{ whiteSpace: 'nowrap' }}><DateTime value={e.occurredAt} /></span> },
  ];
  if (!portal) columns.push({ header: 'Source', render: (e) => <Text size="sm">{e.source === 'ingest' ? 'your systems' : 'partnerd'}</Text> });
  if (showCustomer) {
    columns.push({ header: 'Customer', render: (e) => !e.customerId ? '—' : portal
      ? <CustomerName id={e.customerId} base="/portal/customers" />
      : <Anchor component={Link} to={`/customers/${e.customerId}`} size="sm" ff="monospace" title={e.customerId}>…{e.customerId.slice(-8)}</Anchor> });
  }
  if (!portal) columns.push({ header: 'Partner', render: (e) => <PartnerName id={e.partnerId} /> });
  columns.push({ header: 'Payload', render: (e) => <Code style={{ whiteSpace: 'nowrap' }}>{payloadPreview(e.payload)}</Code> });
  const order = portal ? 'newest' : 'oldest';
  return (
    <PagedTable<Event>
      label={portal ? 'Activity' : 'Events'}
      queryKey={['events', 'list', order, filters]}
      fetchPage={async (cursor) => unwrap(await api.GET('/api/events', { params: { query: { ...filters, order, cursor, limit: 25 } } }))}
      rowKey={(e) => e.id}
      empty={Object.values(filters).some(Boolean) ? 'No event matches these filters.'
        : portal ? 'No activity yet: events your customers send show here.' : 'No events yet.'}
      columns={columns}
    />
  );
}
