import { can, useMe } from './me';

/** Whether the signed-in person holds the permission (false until /api/me answers). */
export function useCan(permission: string): boolean {
  const me = useMe();
  return can(me.data, permission);
}
