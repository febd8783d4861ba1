import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { api, problemMessage } from '../api/client';

export default function Dashboard() {
  const me = useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      const { data, error } = await api.GET('/api/me');
      if (!data) throw new Error(problemMessage(error));
      return data;
    },
  });

  if (me.isPending) return <Loader aria-label="Loading" />;
  if (me.isError) return <Alert color="red" role="alert">{me.error.message}</Alert>;

  return (
    <Stack>
      <Title order={1}>Welcome, {me.data.name ?? me.data.email}</Title>
      <Text>Tenant: {me.data.tenant.name}</Text>
      <Group gap="xs" aria-label="Roles">
        {me.data.roles.map((r) => <Badge key={r}>{r}</Badge>)}
      </Group>
      <Text c="dimmed" size="sm">{me.data.permissions.length} permissions</Text>
    </Stack>
  );
}
