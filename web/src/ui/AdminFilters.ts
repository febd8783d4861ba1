import { useSearchParams } from 'react-router';

/**
 * A list's filters kept in the address (?status=open&…), so a filtered list can be linked,
 * bookmarked and restored with Back. Empty values are left out.
 */
export function useAdminFilters<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const set = (changes: Partial<Record<K, string | null | undefined>>) => {
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(changes) as [K, string | null | undefined][]) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      return next;
    }, { replace: true });
  };
  return [values, set] as const;
}

/** The query value of a filter: undefined when empty. */
export function orUndefined(v: string): string | undefined {
  return v || undefined;
}

/** The query value of an enumerated filter: undefined when empty or not one of allowed (a stale address). */
export function oneOf<T extends string>(v: string, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
}
