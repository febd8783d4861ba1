import { Stack } from '@mantine/core';
import { useMe } from '../../auth/me';
import { PageHeader } from '../../ui/PageHeader';

/** The partner's start page. */
export default function Dashboard() {
  const me = useMe();
  if (!me.data) return null;
  return (
    <Stack>
      <PageHeader title={`Welcome, ${me.data.name ?? me.data.email ?? ''}`} description={me.data.tenant.name} />
    </Stack>
  );
}
