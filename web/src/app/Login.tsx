import { useState, type SubmitEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { Alert, Anchor, Button, Center, Group, Image, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { api, session, unwrap } from '../api/client';
import { useBrand } from '../brand';
import { useInstallation } from './installation';

export default function Login() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState('');
  // On a tenant's custom domain the host names the tenant: no field for it.
  const brand = useBrand();
  // Sign-up opens a program of one's own: offered on the installation's own host when it is open.
  const installation = useInstallation();
  const signupOpen = !brand && installation.data?.signup === true;

  const login = useMutation({
    mutationFn: async () => {
      return unwrap(await api.POST('/api/auth/login', {
        body: { email, password, ...(tenant && !brand ? { tenant } : {}) },
      }));
    },
    onSuccess: async (data) => {
      session.set(data.accessToken, data.refreshToken);
      const next = params.get('next');
      await navigate(next?.startsWith('/') ? next : '/', { replace: true });
    },
  });

  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    login.mutate();
  };

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="form" onSubmit={submit} noValidate={false}
        style={brand?.theme.accent ? { borderTop: `4px solid ${brand.theme.accent}` } : undefined}>
        <Stack>
          {brand && (brand.logo ?? brand.partnerLogo) && (
            <Group gap="md" wrap="nowrap" data-testid="brand-logos">
              {brand.logo && <Image src={brand.logo.url} alt={brand.name} h={48} w="auto" fit="contain" />}
              {brand.partnerLogo && <Image src={brand.partnerLogo.url} alt="Partner logo" h={48} w="auto" fit="contain" />}
            </Group>
          )}
          <Title order={1} size="h2">Sign in to {brand?.name ?? 'partnerd'}</Title>
          {params.get('expired') && !login.isError && (
            <Alert color="yellow" title="Your session ended">Sign in again to carry on where you were.</Alert>
          )}
          {login.isError && (
            <Alert color="red" role="alert" title="Sign-in failed">{login.error.message}</Alert>
          )}
          <TextInput label="Email" type="email" autoComplete="username" required
            value={email} onChange={(e) => { setEmail(e.currentTarget.value); }} />
          <PasswordInput label="Password" autoComplete="current-password" required
            value={password} onChange={(e) => { setPassword(e.currentTarget.value); }} />
          {!brand && (
            <TextInput label="Tenant" description="Only if your email belongs to several tenants"
              value={tenant} onChange={(e) => { setTenant(e.currentTarget.value); }} />
          )}
          <Button type="submit" loading={login.isPending}>Sign in</Button>
          {signupOpen && (
            <Text size="sm">New here? <Anchor component={Link} to="/signup">Open a partner program</Anchor></Text>
          )}
          {brand?.supportEmail && (
            <Text size="sm">Need help? <Anchor href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</Anchor></Text>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
