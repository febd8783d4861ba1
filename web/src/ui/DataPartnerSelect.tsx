import { Link } from 'react-router';
import { Anchor } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useCan } from '../auth/useCan';
import { usePartnerList } from './DataQueries';
import { SEARCH_MATCHES, SearchSelect, type SearchSelectProps } from './SearchSelect';

/** One partner by id, for naming a partner the loaded names do not hold. */
function usePartner(id: string | null) {
  const allowed = useCan('partners:read');
  return useQuery({
    queryKey: ['partners', 'one', id],
    enabled: allowed && !!id,
    staleTime: 60_000,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id: id ?? '' } } })),
  });
}

/** A choice of one partner of any number, searched by name on the server; the value is its id. */
export function PartnerSelect(props: Omit<SearchSelectProps, 'kind' | 'search' | 'labelOf'>) {
  return (
    <SearchSelect kind="partners" enabled={useCan('partners:read')} nothingFoundMessage="No partner by that name" {...props}
      search={async (q) => unwrap(await api.GET('/api/partners', { params: { query: { limit: SEARCH_MATCHES, ...(q ? { q } : {}) } } }))
        .data.map((p) => ({ value: p.id, label: p.name }))}
      labelOf={async (id) => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id } } })).name} />
  );
}

/** A partner's name linking to the partner, or its id while names are unknown. */
export function PartnerName({ id }: { id: string | undefined | null }) {
  const partners = usePartnerList();
  const listed = partners.data?.find((p) => p.id === id)?.name;
  const one = usePartner(partners.data && !listed && id ? id : null);
  const canRead = useCan('partners:read');
  if (!id) return <span>—</span>;
  if (!canRead) return <span>{id}</span>;
  return <Anchor component={Link} to={`/partners/${id}`} size="sm">{listed ?? one.data?.name ?? id}</Anchor>;
}
