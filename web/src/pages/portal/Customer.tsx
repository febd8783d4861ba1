import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Card, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { CustomerDialog } from './CustomerForm';

/** One customer attributed to the partner, with the tasks about it. */
export default function CustomerPage() {
  const { id = '' } = useParams();
  const canTasks = useCan('tasks:read');
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
