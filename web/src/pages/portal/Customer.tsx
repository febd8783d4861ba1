import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Card, Code, Group, Loader, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate, payloadPreview } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { CustomerDialog } from './CustomerForm';

/** How many of a customer's latest events its page shows. */
const LATEST = 5;

/** The customer's latest events, newest first, with a way to all of them on the activity page. */
function LatestEvents({ customerId }: { customerId: string }) {
  const q = useQuery({
    queryKey: ['events', 'list', 'newest', { customerId, limit: LATEST }],
    queryFn: async () => unwrap(await api.GET('/api/events', { params: { query: { customerId, order: 'newest', limit: LATEST } } })),
  });
  const rows = q.data?.data ?? [];
  return (
    <>
      <Group justify="space-between" align="baseline">
        <Title order={2} size="h4">Latest activity</Title>
        <Anchor component={Link} to={`/portal/activity?customerId=${encodeURIComponent(customerId)}`} size="sm">All activity of this customer</Anchor>
      </Group>
      <ErrorAlert error={q.error} />
      <Table.ScrollContainer minWidth={480}>
        <Table striped aria-label="Latest activity" aria-busy={q.isFetching}>
          <Table.Thead>
            <Table.Tr><Table.Th>Type</Table.Th><Table.Th>Occurred</Table.Th><Table.Th>Payload</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {q.isPending && [0, 1].map((i) => (
              <Table.Tr key={i}>{[0, 1, 2].map((j) => <Table.Td key={j}><Skeleton height={14} /></Table.Td>)}</Table.Tr>
            ))}
            {rows.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td><Anchor component={Link} to={`/portal/activity/${e.id}`} size="sm" ff="monospace">{e.type}</Anchor></Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}><DateTime value={e.occurredAt} /></Table.Td>
                <Table.Td><Code style={{ whiteSpace: 'nowrap' }}>{payloadPreview(e.payload)}</Code></Table.Td>
              </Table.Tr>
            ))}
            {q.isSuccess && rows.length === 0 && (
              <Table.Tr><Table.Td colSpan={3}><Text c="dimmed" ta="center" py="md">No activity from this customer yet.</Text></Table.Td></Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

/** One customer attributed to the partner, with its latest activity and the tasks about it. */
export default function CustomerPage() {
  const { id = '' } = useParams();
  const canTasks = useCan('tasks:read');
  const canEvents = useCan('events:read');
  const canWrite = useCan('customers:write');
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const q = useQuery({
    queryKey: ['customers', id],
    queryFn: async () => unwrap(await api.GET('/api/customers/{id}', { params: { path: { id } } })),
  });
  if (q.isPending) return <Loader role="status" aria-label="Loading" />;
  if (q.isError) {
    return (
      <Stack>
        <PageHeader title="Customer" />
        <ErrorAlert error={q.error} />
        <Anchor component={Link} to="/portal/customers">Back to customers</Anchor>
      </Stack>
    );
  }
  const c = q.data;
  const remove = async () => {
    unwrap(await api.DELETE('/api/customers/{id}', { params: { path: { id } } }));
    notify('Customer deleted');
    // Leave the page first, so nothing refetches what is gone.
    await navigate('/portal/customers');
    queryClient.removeQueries({ queryKey: ['customers', id] });
    await queryClient.invalidateQueries({ queryKey: ['customers'] });
  };
  const rows: [string, React.ReactNode][] = [
    ['Email', c.email ?? '—'], ['Reference', c.externalId ?? '—'],
    ['Customer since', <DateTime key="c" value={c.createdAt} />], ['Last change', <DateTime key="u" value={c.updatedAt} />],
  ];
  return (
    <Stack>
      <PageHeader title={c.name || c.email || 'Customer'} actions={
        <Group>
          {canWrite && <>
            <Button variant="default" onClick={() => { setEditing(true); }}>Edit</Button>
            <ConfirmButton label="Delete" title="Delete this customer?" confirmLabel="Delete customer"
              message="The customer is removed from your list; their events stay." onConfirm={remove} />
          </>}
          <Anchor component={Link} to="/portal/customers" size="sm">All customers</Anchor>
        </Group>
      } />
      {canWrite && editing && <CustomerDialog customer={c} onClose={() => { setEditing(false); }} />}
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
          {rows.map(([label, value]) => (
            <Stack gap={0} key={label}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{label}</Text>
              <Text component="div" style={{ wordBreak: 'break-word' }}>{value}</Text>
            </Stack>
          ))}
        </SimpleGrid>
      </Card>
      {canEvents && <LatestEvents customerId={c.id} />}
      {canTasks && (
        <>
          <Title order={2} size="h4">Tasks about this customer</Title>
          <PagedTable<Schemas['Task']>
            label="Tasks about this customer"
            queryKey={['tasks', { linkType: 'customer', linkId: id }]}
            fetchPage={async (cursor) => unwrap(await api.GET('/api/tasks', { params: { query: { linkType: 'customer', linkId: id, cursor, limit: 20 } } }))}
            rowKey={(t) => t.id}
            empty="No tasks about this customer."
            columns={[
              { header: 'Task', render: (t) => t.title },
              { header: 'Status', render: (t) => <StatusBadge status={t.status} /> },
              { header: 'Due', render: (t) => formatDate(t.dueDate) },
            ]}
          />
        </>
      )}
    </Stack>
  );
}
