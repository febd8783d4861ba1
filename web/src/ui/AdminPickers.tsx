import { Select, type SelectProps } from '@mantine/core';
import { useOperatorUsers } from './AdminData';
import { PartnerSelect } from './DataPartnerSelect';

type PickerProps = Omit<SelectProps, 'data' | 'value' | 'onChange'> & { value: string; onChange: (v: string) => void };

/** Picks an operator user by name or email. */
export function AdminUserSelect({ value, onChange, ...rest }: PickerProps) {
  const users = useOperatorUsers();
  const data = (users.data ?? []).filter((u) => u.status !== 'deactivated' || u.id === value)
    .map((u) => ({ value: u.id, label: u.name ? `${u.name} (${u.email})` : u.email }));
  if (value && !data.some((d) => d.value === value)) data.push({ value, label: value });
  return <Select searchable clearable data={data} value={value || null} onChange={(v) => { onChange(v ?? ''); }}
    nothingFoundMessage={users.isPending ? 'Loading…' : 'No such user'} {...rest} />;
}

/** Picks a partner organisation by name, searched on the server. */
export function AdminPartnerSelect(props: PickerProps) {
  return <PartnerSelect {...props} />;
}
