import { Skeleton, Table, Text } from '@mantine/core';
import { usePortalBalances } from './portal';
import { ErrorAlert } from './ErrorAlert';
import { Money } from './Money';

/** The partner's own balances: one row per currency, one column per account. */
export function PortalBalances() {
  const q = usePortalBalances();
  if (q.isError) return <ErrorAlert error={q.error} />;
  const rows = q.data?.data ?? [];
  return (
    <Table.ScrollContainer minWidth={520}>
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
  );
}
