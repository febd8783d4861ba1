import { useState, type SubmitEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { api, fieldErrors, session, unwrap } from '../api/client';
import { ErrorAlert } from '../ui/ErrorAlert';

/**
 * Accepting an invitation (/accept-invitation) or resetting a password (/reset-password): the
 * one-time token arrives in the address's fragment (#token=…), which browsers never send to a
 * server, so it reaches no access log.
 */
export default function SetPassword() {
  const { pathname, hash } = useLocation();
  const navigate = useNavigate();
  const invitation = pathname.startsWith('/accept-invitation');
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);

  const save = useMutation({
    mutationFn: async () => {
      if (invitation) {
        const tokens = unwrap(await api.POST('/api/auth/accept-invitation', { body: { token, password } }));
        session.set(tokens.accessToken, tokens.refreshToken);
        return true;
      }
      unwrap(await api.POST('/api/auth/reset-password', { body: { token, password } }));
      return false;
    },
    onSuccess: async (signedIn) => {
      // Drop the token from the address and history.
      window.history.replaceState(null, '', pathname);
      if (signedIn) await navigate('/', { replace: true });
    },
  });

  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setMismatch(password !== repeat);
    if (password === repeat) save.mutate();
  };
  const errors = fieldErrors(save.error);
  const title = invitation ? 'Accept your invitation' : 'Choose a new password';

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={400} component="form" onSubmit={submit}>
        <Stack>
          <Title order={1} size="h2">{title}</Title>
          {!token && <Alert color="red" role="alert">This link holds no token. Open the link you were sent, whole.</Alert>}
          {save.isSuccess && !invitation ? (
            <Alert color="green" title="Password changed">
              <Anchor component={Link} to="/login">Sign in</Anchor> with your new password.
            </Alert>
          ) : (
            <>
              <Text size="sm">{invitation ? 'Choose the password you will sign in with.' : 'Your old password stops working.'} At least 12 characters.</Text>
              {save.isError && !errors.password && <ErrorAlert error={save.error} shownFields={['password']} />}
              <PasswordInput label="New password" autoComplete="new-password" required minLength={12}
                error={errors.password} value={password} onChange={(e) => { setPassword(e.currentTarget.value); }} />
              <PasswordInput label="Repeat it" autoComplete="new-password" required
                error={mismatch ? 'The two passwords differ' : undefined}
                value={repeat} onChange={(e) => { setRepeat(e.currentTarget.value); }} />
              <Button type="submit" loading={save.isPending} disabled={!token}>{invitation ? 'Accept and sign in' : 'Change password'}</Button>
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
