import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Card, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { can, useMe } from '../../auth/me';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

/** One count of work waiting for the operator, linking to where it is done. */
function Waiting({ title, to, query }: { title: string; to: string; query: () => Promise<{ data: unknown[]; nextCursor: string }> }) {
  const q = useQuery({ queryKey: ['waiting', to], queryFn: query });
  const count = q.data ? `${String(q.data.data.length)}${q.data.nextCursor ? '+' : ''}` : undefined;
  return (
    <Card withBorder padding="md">
      <Stack gap={4}>
        <Text size="sm" c="dimmed">{title}</Text>
        {q.isError && <ErrorAlert error={q.error} />}
        {q.isPending && <Skeleton height={28} width={48} />}
        {count !== undefined && <Text fz={28} fw={700} aria-label={`${title}: ${count}`}>{count}</Text>}
        <Anchor component={Link} to={to} size="sm">Open</Anchor>
      </Stack>
    </Card>
  );
}

/** The operator's start page: what waits for them across the program. */
export default function Dashboard() {
  const me = useMe();
  if (!me.data) return null;
  const limit = 50;
  return (
    <Stack>
      <PageHeader title={`Welcome, ${me.data.name ?? me.data.email ?? ''}`} description={`${me.data.tenant.name} · ${me.data.roles.join(', ')}`} />
      <Title order={2} size="h4">Waiting for you</Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        {can(me.data, 'deals:approve') && <Waiting title="Deal registrations to review" to="/deals?status=submitted"
          query={async () => unwrap(await api.GET('/api/deals', { params: { query: { status: 'submitted', limit } } }))} />}
        {can(me.data, 'applications:read') && <Waiting title="Partner applications" to="/applications"
          query={async () => unwrap(await api.GET('/api/applications', { params: { query: { status: 'pending', limit } } }))} />}
        {can(me.data, 'withdrawals:approve') && <Waiting title="Withdrawals to approve" to="/withdrawals"
          query={async () => unwrap(await api.GET('/api/withdrawals', { params: { query: { status: 'requested', limit } } }))} />}
        {can(me.data, 'tasks:read') && me.data.userId && <Waiting title="My open tasks" to="/tasks"
          query={async () => unwrap(await api.GET('/api/tasks', { params: { query: { status: 'open', assigneeUserId: me.data.userId, limit } } }))} />}
      </SimpleGrid>
      <Group gap="xs">
        <Text size="sm" c="dimmed">Signed in as {me.data.email} with {me.data.permissions.length} permissions.</Text>
      </Group>
    </Stack>
  );
}
