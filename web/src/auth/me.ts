import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Me } from '../api/client';

/** Who is signed in and what they may do; every menu item, page and button asks it. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => unwrap(await api.GET('/api/me')),
    staleTime: 60_000,
  });
}

/** The face a person gets: operators the console, partner users the portal. */
export type Face = 'console' | 'portal';

export function faceOf(me: Me): Face {
  return me.kind === 'partner_user' ? 'portal' : 'console';
}

/** Whether me holds the permission. */
export function can(me: Me | undefined, permission: string): boolean {
  return !!me && me.permissions.includes(permission);
}
