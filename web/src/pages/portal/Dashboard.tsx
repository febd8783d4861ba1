import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Alert, Anchor, Button, Card, Group, ScrollArea, SimpleGrid, Skeleton, Stack, Table, Text, Title,
} from '@mantine/core';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { can, useMe } from '../../auth/me';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PortalBalances } from '../../ui/PortalBalances';
import { StatusBadge } from '../../ui/StatusBadge';

const rangeLabels: Record<string, string> = {
  last_24_hours: 'Last 24 hours', last_7_days: 'Last 7 days', last_30_days: 'Last 30 days', last_90_days: 'Last 90 days',
  last_365_days: 'Last 365 days', month_to_date: 'This month', year_to_date: 'This year',
};

const numberFormat = new Intl.NumberFormat();

/** One widget of the partner's dashboard as data: a number, a series as a table, or the latest events. */
function Widget({ w }: { w: Schemas['RenderedWidget'] }) {
  const title = w.widget.title || (w.widget.kind === 'event-list' ? `Latest ${w.widget.eventType ?? 'events'}` : 'Metric');
  const range = rangeLabels[w.widget.range ?? 'last_30_days'];
  return (
    <Card withBorder padding="md" data-testid="widget">
      <Stack gap={6}>
        <Title order={3} size="h5">{title}</Title>
        {w.error && <Alert color="yellow" title="Not available">{w.error.detail}</Alert>}
        {w.widget.kind === 'metric' && w.value && (
          <>
            <Text fz={28} fw={700}>{numberFormat.format(w.value.value)}</Text>
            <Text size="xs" c="dimmed">{range}</Text>
          </>
        )}
        {w.widget.kind === 'time-series' && w.value && (
          <>
            <Text size="xs" c="dimmed">{range}, per {w.value.interval ?? w.widget.interval ?? 'day'} · total {numberFormat.format(w.value.value)}</Text>
            <ScrollArea.Autosize mah={220} type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `${title} by period` }}>
              <Table aria-label={title} withRowBorders={false} verticalSpacing={2}>
                <Table.Thead><Table.Tr><Table.Th>From</Table.Th><Table.Th ta="right">Value</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {(w.value.series ?? []).map((p) => (
                    <Table.Tr key={p.start}>
                      <Table.Td><DateTime value={p.start} /></Table.Td>
                      <Table.Td ta="right">{numberFormat.format(p.value)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea.Autosize>
            {(w.value.series ?? []).length === 0 && <Text size="sm" c="dimmed">Nothing in this period.</Text>}
          </>
        )}
        {w.widget.kind === 'event-list' && !w.error && (
          (w.events ?? []).length === 0
            ? <Text size="sm" c="dimmed">No events yet.</Text>
            : (
              <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {(w.events ?? []).map((e) => (
                  <Group key={e.id} component="li" justify="space-between" gap="xs" wrap="wrap">
                    <Text size="sm" style={{ wordBreak: 'break-word' }}>{e.type}</Text>
                    <Text size="xs" c="dimmed"><DateTime value={e.occurredAt} /></Text>
                  </Group>
                ))}
              </Stack>
            )
        )}
      </Stack>
    </Card>
  );
}

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
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {q.data.widgets.map((w, i) => <Widget key={i} w={w} />)}
      </SimpleGrid>
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

/** The partner's start page: its dashboard, money, onboarding and latest deals. */
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
