import { Link, NavLink as RouterNavLink, useLocation, useNavigate } from 'react-router';
import {
  ActionIcon, AppShell, Burger, Button, Group, Loader, NavLink, ScrollArea, Stack, Text,
  useComputedColorScheme, useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { api, session } from '../api/client';
import { can, faceOf, useMe } from '../auth/me';
import { AgreementGate } from '../ui/AgreementGate';
import { ErrorAlert } from '../ui/ErrorAlert';
import { useBrand } from '../brand';
import { Busy } from './Busy';
import { pages } from './pages';

/** The app's frame: header, the menu of the pages the caller may use, and the page. */
export default function Layout() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const me = useMe();
  const [opened, { toggle, close }] = useDisclosure();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const brand = useBrand();

  const signOut = async () => {
    const refreshToken = session.refreshToken();
    if (refreshToken) await api.POST('/api/auth/logout', { body: { refreshToken } }).catch(() => undefined);
    session.clear();
    queryClient.clear();
    await navigate('/login', { replace: true });
  };

  const face = me.data ? faceOf(me.data) : undefined;
  const menu = pages.filter((p) => p.group && p.face === face && can(me.data, p.permission));
  const groups = [...new Set(menu.map((p) => p.group))];
  const home = face === 'portal' ? '/portal' : '/';

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <Busy />
      <AppShell.Header px="md" style={brand?.theme.accent ? { borderBottom: `3px solid ${brand.theme.accent}` } : undefined}>
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            {brand ? (
              <Group gap="sm" wrap="nowrap" data-testid="brand-logos">
                <Link to={home} style={{ display: 'flex' }}>
                  {brand.logo ? <img src={brand.logo.url} alt={`${brand.name}: home`} style={{ height: 32, width: 'auto' }} />
                    : <Text fw={700} span style={{ color: 'var(--mantine-color-text)' }}>{brand.name}</Text>}
                </Link>
                {brand.partnerLogo && <img src={brand.partnerLogo.url} alt="Partner logo" style={{ height: 32, width: 'auto' }} />}
              </Group>
            ) : (
              <Text fw={700} component={Link} to={home} style={{ textDecoration: 'none', color: 'inherit' }}>partnerd</Text>
            )}
            {me.data && <Text size="sm" c="dimmed" visibleFrom="xs">{brand ? brand.name : me.data.tenant.name}{face === 'portal' ? ' · Partner portal' : ''}</Text>}
          </Group>
          <Group gap="xs" wrap="nowrap">
            {me.data && <Text size="sm" visibleFrom="sm" data-testid="whoami">{me.data.name ?? me.data.email}</Text>}
            <ActionIcon variant="default" size="lg" aria-label={scheme === 'dark' ? 'Use light colours' : 'Use dark colours'}
              onClick={() => { setColorScheme(scheme === 'dark' ? 'light' : 'dark'); }}>
              <span aria-hidden>{scheme === 'dark' ? '☀' : '☾'}</span>
            </ActionIcon>
            <Button variant="subtle" onClick={() => { void signOut(); }}>Sign out</Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <ScrollArea>
          {me.isPending && <Loader role="status" size="sm" aria-label="Loading menu" />}
          <Stack gap={4}>
            {groups.map((g) => (
              <div key={g}>
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="sm" pb={4}>{g}</Text>
                {menu.filter((p) => p.group === g).map((p) => (
                  <NavLink key={p.path} label={p.title} component={RouterNavLink} to={p.path} end={p.path === home}
                    active={p.path === home ? location.pathname === home : location.pathname.startsWith(p.path)}
                    onClick={close} />
                ))}
              </div>
            ))}
          </Stack>
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        {me.isError ? <ErrorAlert error={me.error} /> : <AgreementGate portal={face === 'portal'} />}
      </AppShell.Main>
    </AppShell>
  );
}
