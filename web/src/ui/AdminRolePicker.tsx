import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MultiSelect } from '@mantine/core';
import { api, unwrap } from '../api/client';

/** The roles an operator user can hold: built-in and custom roles for operators. */
function useOperatorRoles() {
  return useQuery({
    queryKey: ['roles', 'operator'],
    queryFn: async () => unwrap(await api.GET('/api/roles', { params: { query: { limit: 100 } } })).data
      .filter((r) => r.audience === 'operator'),
    staleTime: 60_000,
  });
}

/** A multi-select of operator roles, each with its description. */
export function AdminRolePicker({ value, onChange, error }: { value: string[]; onChange: (v: string[]) => void; error?: ReactNode }) {
  const roles = useOperatorRoles();
  const data = (roles.data ?? []).map((r) => ({ value: r.name, label: r.builtIn ? r.name : `${r.name} (custom)` }));
  for (const v of value) if (!data.some((d) => d.value === v)) data.push({ value: v, label: v });
  return <MultiSelect label="Roles" required searchable data={data} value={value} onChange={onChange} error={error}
    description="You can grant only roles whose permissions you hold yourself."
    nothingFoundMessage={roles.isPending ? 'Loading…' : 'No such role'} />;
}

