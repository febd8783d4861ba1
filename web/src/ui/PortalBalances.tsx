import { Box, Card, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { usePortalBalances } from './portal';
import { ErrorAlert } from './ErrorAlert';
import { Money } from './Money';

const accounts = [
  ['available', 'Available'], ['pending', 'Pending'], ['held', 'Held'], ['paid', 'Paid out'], ['totalEarned', 'Total earned'],
] as const;

/** The partner's own balances: one row per currency, one column per account; cards on a phone. */
export function PortalBalances() {
  const q = usePortalBalances();
  if (q.isError) return <ErrorAlert error={q.error} />;
  const rows = q.data?.data ?? [];
  return (
    <>
      <Stack hiddenFrom="sm" gap="xs" aria-busy={q.isFetching}>
        {q.isPending && <Skeleton height={80} />}
        {rows.map((b) => (
          <Card key={b.currency} withBorder padding="sm" component="section" aria-label={`Balance in ${b.currency}`}>
            <Text fw={700} mb={4}>{b.currency}</Text>
            <SimpleGrid cols={2} spacing="xs" verticalSpacing={4}>
              {accounts.map(([key, label]) => (
                <Box key={key}>
                  <Text size="xs" c="dimmed">{label}</Text>
                  <Text size="sm" fw={key === 'available' ? 700 : undefined}><Money minor={b[key]} currency={b.currency} /></Text>
                </Box>
              ))}
            </SimpleGrid>
          </Card>
        ))}
        {q.isSuccess && rows.length === 0 && <Text c="dimmed" size="sm">No earnings yet: commissions show here once your deals and customers earn them.</Text>}
      </Stack>
      <Table.ScrollContainer minWidth={520} visibleFrom="sm">
        <Table aria-label="Balances" aria-busy={q.isFetching} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Currency</Table.Th>
              <Table.Th ta="right">Available</Table.Th>
              <Table.Th ta="right">Pending</Table.Th>
              <Table.Th ta="right">Held</Table.Th>
              <Table.Th ta="right">Paid out</Table.Th>
              <Table.Th ta="right">Total earned</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {q.isPending && <Table.Tr><Table.Td colSpan={6}><Skeleton height={14} /></Table.Td></Table.Tr>}
            {rows.map((b) => (
              <Table.Tr key={b.currency}>
                <Table.Td>{b.currency}</Table.Td>
                <Table.Td ta="right" fw={600}><Money minor={b.available} currency={b.currency} /></Table.Td>
                <Table.Td ta="right"><Money minor={b.pending} currency={b.currency} /></Table.Td>
                <Table.Td ta="right"><Money minor={b.held} currency={b.currency} /></Table.Td>
                <Table.Td ta="right"><Money minor={b.paid} currency={b.currency} /></Table.Td>
                <Table.Td ta="right"><Money minor={b.totalEarned} currency={b.currency} /></Table.Td>
              </Table.Tr>
            ))}
            {q.isSuccess && rows.length === 0 && (
              <Table.Tr><Table.Td colSpan={6}><Text c="dimmed" ta="center" py="md">No earnings yet: commissions show here once your deals and customers earn them.</Text></Table.Td></Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
