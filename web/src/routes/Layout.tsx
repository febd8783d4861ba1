import { Outlet, useNavigate } from 'react-router';
import { AppShell, Button, Group, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { api, session } from '../api/client';

export default function Layout() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = async () => {
    const refreshToken = session.refreshToken();
    if (refreshToken) await api.POST('/api/auth/logout', { body: { refreshToken } }).catch(() => undefined);
    session.clear();
    queryClient.clear();
    await navigate('/login', { replace: true });
  };
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Text fw={700} component="span">partnerd</Text>
          <Button variant="subtle" onClick={() => { void signOut(); }}>Sign out</Button>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
