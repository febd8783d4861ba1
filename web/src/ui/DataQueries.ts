import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { useCan } from '../auth/useCan';

/** The tenant's partners (up to 1000, by name), for pickers and for naming partners in tables. */
export function usePartnerList() {
  const allowed = useCan('partners:read');
  return useQuery({
    queryKey: ['partners', 'all-names'],
    enabled: allowed,
    staleTime: 60_000,
    queryFn: async () => {
      const out: Schemas['Partner'][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = unwrap(await api.GET('/api/partners', { params: { query: { limit: 100, cursor } } }));
        out.push(...page.data);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}

/** Every event type the service knows, with its description and payload schema. */
export function useEventTypes() {
  return useQuery({
    queryKey: ['event-types'],
    staleTime: 5 * 60_000,
    queryFn: async () => {
      const out: Schemas['EventTypeInfo'][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = unwrap(await api.GET('/api/event-types', { params: { query: { limit: 100, cursor } } }));
        out.push(...page.data);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return out;
    },
  });
}

/** One event with the description of its type (the type's, once the catalogue has loaded). */
export function useEventWithType(id: string) {
  const types = useEventTypes();
  const event = useQuery({
    queryKey: ['events', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/events/{id}', { params: { path: { id } } })),
  });
  const e = event.data;
  const about = e && types.data?.find((t) => t.name === e.type)?.description;
  return { event, about };
}
