import { useQuery } from '@tanstack/react-query';
import { Loader, Stack } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { can, useMe } from '../../auth/me';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerPeople } from '../../ui/PartnerPeople';

/** The partner organisation's people; its admins invite, edit and deactivate them. */
export default function Team() {
  const me = useMe();
  const partnerId = me.data?.partnerId ?? '';
  const partner = useQuery({
    queryKey: ['partners', partnerId],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id: partnerId } } })),
    enabled: !!partnerId && can(me.data, 'partners:read'),
  });
  const name = partner.data?.name ?? 'your organisation';
  return (
    <Stack>
      <PageHeader title="Team" description="The people of your organisation who use this portal, and what each may do." />
      {partner.isLoading && <Loader role="status" aria-label="Loading" />}
      <ErrorAlert error={partner.error} />
      {partnerId && !partner.isLoading && (
        <PartnerPeople title="People" partner={{ id: partnerId, name, status: partner.data?.status }} />
      )}
    </Stack>
  );
}
