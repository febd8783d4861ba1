// The deal pages' data: pipelines and their stages, users, and which deals can move.
import { useQuery } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { api, unwrap, type Schemas } from '../../../api/client';
import { useCan } from '../../../auth/useCan';

export type Deal = Schemas['Deal'];
export type Pipeline = Schemas['Pipeline'];
export type Stage = Schemas['Stage'];

/** The tenant's pipelines (the first hundred: a tenant keeps a handful). */
export function usePipelines(enabled = true) {
  return useQuery({
    queryKey: ['pipelines', 'all'],
    queryFn: async () => unwrap(await api.GET('/api/pipelines', { params: { query: { limit: 100 } } })).data,
    enabled,
    staleTime: 60_000,
  });
}

/** A stage by id across the pipelines. */
export function findStage(pipelines: Pipeline[] | undefined, stageId: string | undefined): Stage | undefined {
  for (const p of pipelines ?? []) {
    const s = p.stages.find((x) => x.id === stageId);
    if (s) return s;
  }
  return undefined;
}

/** The tenant's users (the first hundred), operators and partner users, for names. */
export function useUsers() {
  const allowed = useCan('users:read');
  return useQuery({
    queryKey: ['users', 'names'],
    queryFn: async () => unwrap(await api.GET('/api/users', { params: { query: { limit: 100 } } })).data,
    enabled: allowed,
    staleTime: 300_000,
  });
}

/** The tenant's operator users who are not deactivated (deal owners). */
export function useOperatorUsers() {
  const users = useUsers();
  return { ...users, data: users.data?.filter((u) => !u.partnerId && u.status !== 'deactivated') };
}

/** Whether a deal can move through its pipeline: approved deals only; closed ones stay. */
export function movable(deal: Deal): boolean {
  return deal.status === 'approved';
}

/** The list filters the deals page keeps in its address. */
export const filterKeys = ['status', 'partnerId', 'level', 'stageId', 'ownerUserId', 'currency', 'from', 'to', 'min', 'max'] as const;

/** Whether the address holds a list filter. */
export const hasListFilter = (params: URLSearchParams) => filterKeys.some((k) => params.has(k));

/** Tells the person what happened; the notification's close button is labelled. */
export function notify(color: 'green' | 'red', message: string, title?: string) {
  notifications.show({ color, title, message, autoClose: color === 'red' ? 10_000 : 4_000, closeButtonProps: { 'aria-label': 'Close the notification' } });
}
