import { useIsFetching, useIsMutating } from '@tanstack/react-query';
import { useNavigation } from 'react-router';
import { Progress } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';

/** A bar across the top while anything (a page, a request, a save) takes longer than 300 ms. */
export function Busy() {
  const fetching = useIsFetching();
  const mutating = useIsMutating();
  const navigating = useNavigation().state !== 'idle';
  const busy = fetching + mutating > 0 || navigating;
  const [settled] = useDebouncedValue(busy, 300);
  if (!(busy && settled)) return null;
  return <Progress role="status" value={100} animated size="xs" radius={0} aria-label="Loading"
    style={{ position: 'fixed', top: 0, left: 0, right: 0, zIndex: 1000 }} />;
}
