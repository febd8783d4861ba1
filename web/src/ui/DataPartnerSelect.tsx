import { Link } from 'react-router';
import { Anchor, Select, type SelectProps } from '@mantine/core';
import { usePartnerList } from './DataQueries';


/** A searchable choice of one partner by name; the value is the partner's id. */
export function PartnerSelect({ value, onChange, ...rest }: Omit<SelectProps, 'data' | 'value' | 'onChange'> & {
  value: string;
  onChange: (id: string) => void;
}) {
  const partners = usePartnerList();
  const data = (partners.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  // An id not in the list (a partner beyond the first thousand) still shows.
  if (value && !data.some((d) => d.value === value)) data.unshift({ value, label: value });
  return (
    <Select searchable clearable nothingFoundMessage="No partner by that name" {...rest}
      data={data} value={value || null} onChange={(v) => { onChange(v ?? ''); }}
      placeholder={partners.isPending && partners.fetchStatus !== 'idle' ? 'Loading partners…' : rest.placeholder} />
  );
}

/** A partner's name linking to the partner, or its id while names are unknown. */
export function PartnerName({ id }: { id: string | undefined | null }) {
  const partners = usePartnerList();
  if (!id) return <span>—</span>;
  const name = partners.data?.find((p) => p.id === id)?.name ?? id;
  return <Anchor component={Link} to={`/partners/${id}`} size="sm">{name}</Anchor>;
}
