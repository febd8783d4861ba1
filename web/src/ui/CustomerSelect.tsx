import { Link } from 'react-router';
import { Anchor, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { customerLabel } from './format';
import { SEARCH_MATCHES, SearchSelect, type SearchSelectProps } from './SearchSelect';

/** A choice among the customers the caller may read (a partner's: its own), searched on the server. */
export function CustomerSelect(props: Omit<SearchSelectProps, 'kind' | 'search' | 'labelOf'>) {
  return (
    <SearchSelect kind="customers" nothingFoundMessage="No such customer" {...props}
      search={async (q) => unwrap(await api.GET('/api/customers', { params: { query: { limit: SEARCH_MATCHES, ...(q ? { q } : {}) } } }))
        .data.map((c) => ({ value: c.id, label: customerLabel(c) }))}
      labelOf={async (id) => customerLabel(unwrap(await api.GET('/api/customers/{id}', { params: { path: { id } } })))} />
  );
}

/** One customer's name (else email) linking to its page under `base`; the end of its id while it loads or when it is gone. */
export function CustomerName({ id, base }: { id: string; base: string }) {
  const c = useQuery({
    queryKey: ['customers', id],
    staleTime: 60_000,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/api/customers/{id}', { params: { path: { id } } })),
  });
  if (c.isError) return <Text size="sm" ff="monospace" title={id}>…{id.slice(-8)}</Text>;
  return (
    <Anchor component={Link} to={`${base}/${id}`} size="sm" title={id} ff={c.data ? undefined : 'monospace'}>
      {c.data ? c.data.name || customerLabel(c.data) : `…${id.slice(-8)}`}
    </Anchor>
  );
}
