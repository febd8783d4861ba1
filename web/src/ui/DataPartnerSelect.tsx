import { useState } from 'react';
import { Link } from 'react-router';
import { Anchor, Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useCan } from '../auth/useCan';
import { usePartnerList } from './DataQueries';

/** How many matches a partner picker offers at a time; typing narrows them on the server. */
const MATCHES = 50;

/** One partner by id, for naming a chosen partner the current matches do not hold. */
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

/**
 * A choice of one partner of any number: the server searches names as the user types (the first
 * 50 matches are offered); the value is the partner's id, '' when none is chosen.
 */
export function PartnerSelect({ value, onChange, placeholder, ...rest }: Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> & {
  value: string | null;
  onChange: (id: string) => void;
}) {
  const allowed = useCan('partners:read');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 200);
  const chosen = usePartner(value || null);
  // The chosen partner's name in the box is not a search.
  const term = q === chosen.data?.name ? '' : q;
  const matches = useQuery({
    queryKey: ['partners', 'search', term],
    enabled: allowed,
    staleTime: 30_000,
    placeholderData: (prev) => prev,
    queryFn: async () => unwrap(await api.GET('/api/partners', { params: { query: { limit: MATCHES, ...(term ? { q: term } : {}) } } })).data,
  });
  const data = (matches.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  if (value && !data.some((d) => d.value === value)) data.unshift({ value, label: chosen.data?.name ?? value });
  return (
    <Select searchable clearable nothingFoundMessage={matches.isFetching ? 'Searching…' : 'No partner by that name'} {...rest}
      data={data} value={value || null} onChange={(v) => { onChange(v ?? ''); }} onSearchChange={setSearch}
      // The server has matched already: every offered partner stays offered.
      filter={({ options }) => options}
      placeholder={matches.isPending && matches.fetchStatus !== 'idle' ? 'Loading partners…' : placeholder} />
  );
}

/** A partner's name linking to the partner, or its id while names are unknown. */
export function PartnerName({ id }: { id: string | undefined | null }) {
  const partners = usePartnerList();
  const listed = partners.data?.find((p) => p.id === id)?.name;
  const one = usePartner(partners.data && !listed && id ? id : null);
  if (!id) return <span>—</span>;
  return <Anchor component={Link} to={`/partners/${id}`} size="sm">{listed ?? one.data?.name ?? id}</Anchor>;
}
