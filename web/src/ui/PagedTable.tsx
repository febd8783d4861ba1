import { useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Group, Skeleton, Table, Text } from '@mantine/core';

export interface Column<T> {
  header: ReactNode;
  render: (row: T) => ReactNode;
  /** Right-aligned (amounts). */
  numeric?: boolean;
}

export interface Page<T> {
  data: T[];
  nextCursor: string;
}

interface Props<T> {
  /** Names the rows; the page's cursor is appended. Changing it (a filter) starts again at the first page. */
  queryKey: readonly unknown[];
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  /** What an empty list says. */
  empty: ReactNode;
  /** Names the table for assistive technology. */
  label: string;
}

/** A cursor-paged table: loading rows, an empty state, errors, and Previous / Next. */
export function PagedTable<T>({ queryKey, fetchPage, columns, rowKey, empty, label }: Props<T>) {
  const key = JSON.stringify(queryKey);
  const [state, setState] = useState<{ key: string; cursors: (string | undefined)[] }>({ key, cursors: [undefined] });
  if (state.key !== key) setState({ key, cursors: [undefined] });
  const cursors = state.key === key ? state.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];

  const page = useQuery({
    queryKey: [...queryKey, { cursor }],
    queryFn: () => fetchPage(cursor),
    placeholderData: keepPreviousData,
  });

  const rows = page.data?.data ?? [];
  return (
    <>
      {page.isError && <Alert color="red" role="alert" mb="sm">{page.error.message}</Alert>}
      <Table.ScrollContainer minWidth={560}
        scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': label } }}>
        <Table striped highlightOnHover aria-label={label} aria-busy={page.isFetching}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c, i) => <Table.Th key={i} ta={c.numeric ? 'right' : undefined}>{c.header}</Table.Th>)}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {page.isPending && [0, 1, 2].map((i) => (
              <Table.Tr key={i}>
                {columns.map((_, j) => <Table.Td key={j}><Skeleton height={14} /></Table.Td>)}
              </Table.Tr>
            ))}
            {rows.map((row) => (
              <Table.Tr key={rowKey(row)}>
                {columns.map((c, j) => <Table.Td key={j} ta={c.numeric ? 'right' : undefined}>{c.render(row)}</Table.Td>)}
              </Table.Tr>
            ))}
            {page.isSuccess && rows.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={columns.length}><Text c="dimmed" ta="center" py="md">{empty}</Text></Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {(cursors.length > 1 || page.data?.nextCursor) && (
        <Group justify="flex-end" mt="sm" gap="xs">
          <Text size="sm" c="dimmed">Page {cursors.length}</Text>
          <Button variant="default" size="xs" disabled={cursors.length <= 1}
            onClick={() => { setState({ key, cursors: cursors.slice(0, -1) }); }}>Previous</Button>
          <Button variant="default" size="xs" disabled={!page.data?.nextCursor || page.isPlaceholderData}
            onClick={() => { setState({ key, cursors: [...cursors, page.data?.nextCursor] }); }}>Next</Button>
        </Group>
      )}
    </>
  );
}
