import { Link } from 'react-router';
import { Anchor, Badge, Group, List, Stack, Table, Text, TextInput } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { orUndefined, useAdminFilters } from '../../ui/AdminFilters';
import { useOperatorUsers } from '../../ui/AdminData';
import { AdminUserSelect } from '../../ui/AdminPickers';
import { DateTime } from '../../ui/DateTime';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { localInputToISO } from '../../ui/format';

type Entry = Schemas['AuditEntry'];

const targetPaths: Record<string, string> = {
  user: '/users', partner: '/partners', deal: '/deals', customer: '/customers', playbook: '/playbooks', playbook_run: '/playbook-runs',
};

/** What an entry holds beyond its row: the fields it changed and where the request came from. */
function EntryDetails({ e }: { e: Entry }) {
  const fields = e.changedFields ?? [];
  return (
    <details>
      <summary style={{ cursor: 'pointer' }}>
        <Text span size="sm">{fields.length ? `${String(fields.length)} field${fields.length === 1 ? '' : 's'}` : 'Details'}</Text>
      </summary>
      <Stack gap={4} mt={6}>
        {fields.length > 0 && (
          <>
            <Text size="xs" c="dimmed">Changed fields</Text>
            <List size="sm" spacing={0}>{fields.map((f) => <List.Item key={f}><code>{f}</code></List.Item>)}</List>
          </>
        )}
        <Table withRowBorders={false} fz="xs" verticalSpacing={0}>
          <Table.Tbody>
            <Table.Tr><Table.Th>Actor</Table.Th><Table.Td>{e.actorKind} <code>{e.actorId}</code></Table.Td></Table.Tr>
            <Table.Tr><Table.Th>Target</Table.Th><Table.Td>{e.targetType} <code>{e.targetId}</code></Table.Td></Table.Tr>
            <Table.Tr><Table.Th>Request</Table.Th><Table.Td><code>{e.requestId || '—'}</code></Table.Td></Table.Tr>
            <Table.Tr><Table.Th>Client address</Table.Th><Table.Td>{e.clientAddress || '—'}</Table.Td></Table.Tr>
            <Table.Tr><Table.Th>Entry</Table.Th><Table.Td><code>{e.id}</code></Table.Td></Table.Tr>
          </Table.Tbody>
        </Table>
      </Stack>
    </details>
  );
}

/** Who changed what and when, across the tenant. */
export default function Audit() {
  const [f, setF] = useAdminFilters(['action', 'actorId', 'targetType', 'targetId', 'from', 'to'] as const);
  const users = useOperatorUsers();
  const actor = (e: Entry) => {
    const u = e.actorKind === 'user' ? users.data?.find((x) => x.id === e.actorId) : undefined;
    return u ? (u.name || u.email) : `${e.actorKind}${e.actorId ? ` …${e.actorId.slice(-8)}` : ''}`;
  };
  const query = {
    action: orUndefined(f.action.trim()),
    actorId: orUndefined(f.actorId.trim()),
    targetType: orUndefined(f.targetType.trim()),
    targetId: orUndefined(f.targetId.trim()),
    from: localInputToISO(f.from),
    to: localInputToISO(f.to),
  };
  return (
    <Stack>
      <PageHeader title="Audit log" description="Every change made in this tenant, by whom, from where. Newest first." />
      <Group align="flex-end" wrap="wrap">
        <TextInput label="Action" placeholder="role.created" w={170} value={f.action} onChange={(e) => { setF({ action: e.currentTarget.value }); }} />
        <AdminUserSelect label="Actor" w={220} value={f.actorId} onChange={(v) => { setF({ actorId: v }); }}
          description="A user; or paste any actor id" />
        <TextInput label="Target type" placeholder="user" w={130} value={f.targetType} onChange={(e) => { setF({ targetType: e.currentTarget.value }); }} />
        <TextInput label="Target id" w={200} value={f.targetId} onChange={(e) => { setF({ targetId: e.currentTarget.value }); }} />
        <TextInput label="From" type="datetime-local" w={200} value={f.from} onChange={(e) => { setF({ from: e.currentTarget.value }); }} />
        <TextInput label="Before" type="datetime-local" w={200} value={f.to} onChange={(e) => { setF({ to: e.currentTarget.value }); }} />
      </Group>
      <PagedTable<Entry>
        label="Audit log"
        queryKey={['audit', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/audit-log', { params: { query: { ...query, cursor, limit: 50 } } }))}
        rowKey={(e) => e.id}
        empty="No entries match these filters."
        columns={[
          { header: 'When', render: (e) => <DateTime value={e.createdAt} /> },
          { header: 'Action', render: (e) => <Badge variant="light" tt="none">{e.action}</Badge> },
          { header: 'Actor', render: (e) => actor(e) },
          {
            header: 'Target', render: (e) => {
              const base = targetPaths[e.targetType];
              const label = `${e.targetType} …${e.targetId.slice(-8)}`;
              return base && e.targetId && !e.action.endsWith('.deleted')
                ? <Anchor component={Link} to={`${base}/${e.targetId}`} size="sm">{label}</Anchor>
                : <Text size="sm">{e.targetId ? label : e.targetType}</Text>;
            },
          },
          { header: 'Details', render: (e) => <EntryDetails e={e} /> },
        ]}
      />
    </Stack>
  );
}
