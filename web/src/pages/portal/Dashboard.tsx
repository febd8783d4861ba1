import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Anchor, Button, Card, Group, SimpleGrid, Skeleton, Stack, Table, Text, Title,
} from '@mantine/core';
import { api, ApiError, unwrap } from '../../api/client';
import { DashboardView } from '../../ui/dash/DashboardView';
import { can, useMe } from '../../auth/me';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { LevelCard } from '../../ui/LevelCard';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PortalBalances } from '../../ui/PortalBalances';
import { StatusBadge } from '../../ui/StatusBadge';

/** The widgets of the dashboard the program set up for the partner's level. */
function Widgets() {
  const q = useQuery({
    queryKey: ['dashboards', 'mine'],
    queryFn: async () => unwrap(await api.GET('/api/dashboards/mine')),
  });
  if (q.isError) {
    // No dashboard set up yet is not a failure of the partner's page.
    if (q.error instanceof ApiError && q.error.status === 404) return null;
    return <ErrorAlert error={q.error} />;
  }
  if (q.isPending) return <Skeleton height={120} />;
  if (q.data.widgets.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">{q.data.dashboard.name}</Title>
      <DashboardView widgets={q.data.widgets} />
    </Stack>
  );
}

/** Open onboarding steps, counted, with a link to them. */
function Onboarding() {
  const q = useQuery({
    queryKey: ['tasks', 'open-onboarding'],
    queryFn: async () => unwrap(await api.GET('/api/tasks', { params: { query: { status: 'open', source: 'onboarding', limit: 100 } } })),
  });
  const count = q.data ? `${String(q.data.data.length)}${q.data.nextCursor ? '+' : ''}` : undefined;
  return (
    <Card withBorder padding="md">
      <Stack gap={4}>
        <Text size="sm" c="dimmed">Open onboarding steps</Text>
        {q.isError && <ErrorAlert error={q.error} />}
        {q.isPending && <Skeleton height={28} width={48} />}
        {count !== undefined && <Text fz={28} fw={700} aria-label={`Open onboarding steps: ${count}`} data-testid="open-onboarding">{count}</Text>}
        <Anchor component={Link} to="/portal/tasks" size="sm">{count === '0' ? 'See your tasks' : 'Carry on with onboarding'}</Anchor>
      </Stack>
    </Card>
  );
}

/** The partner's latest deal registrations. */
function RecentDeals() {
  const q = useQuery({
    queryKey: ['deals', 'recent'],
    queryFn: async () => unwrap(await api.GET('/api/deals', { params: { query: { limit: 5 } } })),
  });
  if (q.isError) return <ErrorAlert error={q.error} />;
  const rows = q.data?.data ?? [];
  return (
    <Table.ScrollContainer minWidth={420}
      scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Recent deals, scrolls sideways' } }}>
      <Table aria-label="Recent deals" aria-busy={q.isFetching}>
        <Table.Thead>
          <Table.Tr><Table.Th>Customer</Table.Th><Table.Th>Status</Table.Th><Table.Th ta="right">Amount</Table.Th><Table.Th>Registered</Table.Th></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {q.isPending && <Table.Tr><Table.Td colSpan={4}><Skeleton height={14} /></Table.Td></Table.Tr>}
          {rows.map((d) => (
            <Table.Tr key={d.id}>
              <Table.Td><Anchor component={Link} to={`/portal/deals/${d.id}`}>{d.customerCompany}</Anchor></Table.Td>
              <Table.Td><StatusBadge status={d.status} /></Table.Td>
              <Table.Td ta="right"><Money minor={d.amountMinor} currency={d.currency} /></Table.Td>
              <Table.Td><DateTime value={d.createdAt} /></Table.Td>
            </Table.Tr>
          ))}
          {q.isSuccess && rows.length === 0 && (
            <Table.Tr><Table.Td colSpan={4}><Text c="dimmed" ta="center" py="md">No deals yet. Register your first one to protect it.</Text></Table.Td></Table.Tr>
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The partner's start page: its dashboard, onboarding, level and progress toward the next, money and latest deals. */
export default function Dashboard() {
  const me = useMe();
  const partner = useQuery({
    queryKey: ['partners', me.data?.partnerId],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id: me.data?.partnerId ?? '' } } })),
    enabled: !!me.data?.partnerId && can(me.data, 'partners:read'),
  });
  if (!me.data) return null;
  const description = partner.data
    ? `${partner.data.name} · ${partner.data.level ? `${partner.data.level} level · ` : ''}${me.data.tenant.name} partner program`
    : `${me.data.tenant.name} partner program`;
  return (
    <Stack>
      <PageHeader title={`Welcome, ${me.data.name ?? me.data.email ?? ''}`} description={description}
        actions={can(me.data, 'deals:write') && <Button component={Link} to="/portal/deals/new">Register a deal</Button>} />
      {can(me.data, 'dashboards:read') && <Widgets />}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {can(me.data, 'tasks:read') && <Onboarding />}
      </SimpleGrid>
      {me.data.partnerId && can(me.data, 'partners:read') && <LevelCard partnerId={me.data.partnerId} audience="partner" />}
      {can(me.data, 'ledger:read') && (
        <Stack gap="xs">
          <Group justify="space-between">
            <Title order={2} size="h4">Your balances</Title>
            <Anchor component={Link} to="/portal/money" size="sm">Money and withdrawals</Anchor>
          </Group>
          <PortalBalances />
        </Stack>
      )}
      {can(me.data, 'deals:read') && (
        <Stack gap="xs">
          <Group justify="space-between">
            <Title order={2} size="h4">Recent deals</Title>
            <Anchor component={Link} to="/portal/deals" size="sm">All deals</Anchor>
          </Group>
          <RecentDeals />
        </Stack>
      )}
    </Stack>
  );
}
