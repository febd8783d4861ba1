import { useState } from 'react';
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';

/** One choice a search offers. */
export interface Choice { value: string; label: string }

/** How many matches a search offers at a time; typing narrows them on the server. */
export const SEARCH_MATCHES = 50;

export type SearchSelectProps = Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> & {
  /** Identifies the searched collection in the query cache, e.g. 'partners'. */
  kind: string;
  /** The matches for a text (all rows when it is empty), at most SEARCH_MATCHES of them. */
  search: (text: string) => Promise<Choice[]>;
  /** The chosen value's label when the matches do not hold it. */
  labelOf: (value: string) => Promise<string>;
  enabled?: boolean;
  value: string | null;
  onChange: (value: string) => void;
};

/**
 * A choice among any number of rows: the server searches as the user types; the value is a row's
 * id, '' when none is chosen.
 */
export function SearchSelect({ kind, search, labelOf, enabled = true, value, onChange, placeholder, nothingFoundMessage, ...rest }: SearchSelectProps) {
  const [text, setText] = useState('');
  const [typed] = useDebouncedValue(text.trim(), 200);
  const chosen = useQuery({
    queryKey: [kind, 'label', value],
    enabled: enabled && !!value,
    staleTime: 60_000,
    retry: false,
    queryFn: async () => labelOf(value ?? ''),
  });
  // The chosen row's label in the box is not a search.
  const term = typed === chosen.data ? '' : typed;
  const matches = useQuery({
    queryKey: [kind, 'search', term],
    enabled,
    staleTime: 30_000,
    placeholderData: (prev) => prev,
    queryFn: async () => search(term),
  });
  const data = [...(matches.data ?? [])];
  if (value && !data.some((d) => d.value === value)) data.unshift({ value, label: chosen.data ?? value });
  return (
    <Select searchable clearable nothingFoundMessage={matches.isFetching ? 'Searching…' : nothingFoundMessage} {...rest}
      data={data} value={value || null} onChange={(v) => { onChange(v ?? ''); }} onSearchChange={setText}
      // The server has matched already: every offered row stays offered.
      filter={({ options }) => options}
      placeholder={matches.isPending && matches.fetchStatus !== 'idle' ? 'Loading…' : placeholder} />
  );
}
