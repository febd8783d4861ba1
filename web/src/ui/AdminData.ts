import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useCan } from '../auth/useCan';

/** The tenant's operator users (the first 100), for pickers and for naming ids. */
export function useOperatorUsers() {
  const allowed = useCan('users:read');
  return useQuery({
    queryKey: ['users', 'picker'],
    queryFn: async () => unwrap(await api.GET('/api/users', { params: { query: { limit: 100 } } })).data,
    enabled: allowed,
    staleTime: 60_000,
  });
}

/** The tenant's partners (the first 100), for pickers and for naming ids. */
export function usePartners() {
  const allowed = useCan('partners:read');
  return useQuery({
    queryKey: ['partners', 'picker'],
    queryFn: async () => unwrap(await api.GET('/api/partners', { params: { query: { limit: 100 } } })).data,
    enabled: allowed,
    staleTime: 60_000,
  });
}
