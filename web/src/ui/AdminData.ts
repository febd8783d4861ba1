import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { useCan } from '../auth/useCan';

/** The tenant's operator users (up to 2000), for pickers and for naming ids. */
export function useOperatorUsers() {
  const allowed = useCan('users:read');
  return useQuery({
    queryKey: ['users', 'picker'],
    queryFn: async () => {
      const out: Schemas['User'][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = unwrap(await api.GET('/api/users', { params: { query: { limit: 100, cursor } } }));
        out.push(...page.data);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return out;
    },
    enabled: allowed,
    staleTime: 60_000,
  });
}
