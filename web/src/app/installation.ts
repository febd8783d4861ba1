import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** What the installation offers people who are not signed in (whether sign-up is open). */
export function useInstallation() {
  return useQuery({
    queryKey: ['installation'],
    queryFn: async () => unwrap(await api.GET('/api/installation')),
    retry: false,
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });
}
