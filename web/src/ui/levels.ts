import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The tenant's partner levels, best first (a tenant keeps a handful); partners read them too. */
export function useLevels(enabled = true) {
  return useQuery({
    queryKey: ['levels', 'all'],
    queryFn: async () => {
      const page = unwrap(await api.GET('/api/levels', { params: { query: { limit: 100 } } }));
      return [...page.data].sort((a, b) => b.rank - a.rank);
    },
    enabled,
  });
}
