import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Anchor, Button, Center, Group, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { ApiError, api, fieldErrors, session, unwrap } from '../api/client';
import { ErrorAlert } from '../ui/ErrorAlert';
import { useInstallation } from './installation';

interface Values {
  organisationName: string;
  slug: string;
  name: string;
  email: string;
  password: string;
}

const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A slug proposed from the program's name: "Acme Software GmbH" → "acme-software-gmbh". */
function slugFrom(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').slice(0, 63).replace(/^-+|-+$/g, '');
}

/** What a refused sign-up means to the person, when no field explains it. */
function refusal(err: unknown): { title: string; text: string } | null {
  if (!(err instanceof ApiError)) return null;
  if (err.problem.code === 'SIGNUP_DISABLED') return { title: 'Sign-up is closed', text: 'This installation opens no new partner programs. Ask its operators for an invitation.' };
  if (err.status === 429) return { title: 'Too many sign-ups', text: err.problem.detail ?? 'Too many sign-ups came from your address. Try again later.' };
  return null;
}

/**
 * Self-service sign-up (/signup): no login. A person opens a partner program, a tenant of its
 * own with them as its owner, and is signed in to its console.
 */
export default function Signup() {
  const navigate = useNavigate();
  const installation = useInstallation();
  // The slug follows the name until the person edits it.
  const [slugEdited, setSlugEdited] = useState(false);
  const form = useForm<Values>({
    initialValues: { organisationName: '', slug: '', name: '', email: '', password: '' },
    validate: {
      organisationName: (v) => (v.trim() ? null : 'Name your partner program'),
      slug: (v) => (slugPattern.test(v) ? null : 'Use lower-case letters, digits and hyphens inside, at most 63'),
      name: (v) => (v.trim() ? null : 'Give your name'),
      email: (v) => (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v.trim()) ? null : 'Enter an email address like name@company.com'),
      password: (v) => (v.length >= 12 ? null : 'Use at least 12 characters'),
    },
  });
  const signup = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.POST('/api/signup', {
      body: { organisationName: v.organisationName.trim(), slug: v.slug, name: v.name.trim(), email: v.email.trim(), password: v.password },
    })),
    onSuccess: async (data) => {
      session.set(data.accessToken, data.refreshToken);
      await navigate('/', { replace: true });
    },
    onError: (err) => {
      const errs = fieldErrors(err);
      if (err instanceof ApiError && err.problem.code === 'TENANT_SLUG_TAKEN') errs.slug = 'Another program has this address: choose another';
      form.setErrors(errs);
    },
  });
  const slugTaken = signup.error instanceof ApiError && signup.error.problem.code === 'TENANT_SLUG_TAKEN';
  const refused = refusal(signup.error);

  let body;
  if (installation.isPending) {
    body = <Group justify="center"><Loader aria-label="Loading" /></Group>;
  } else if (installation.data && !installation.data.signup) {
    body = (
      <Alert color="blue" title="Sign-up is closed">
        This installation opens no new partner programs. Ask its operators for an invitation.
      </Alert>
    );
  } else {
    const nameProps = form.getInputProps('organisationName');
    body = (
      <form noValidate onSubmit={form.onSubmit((v) => { signup.mutate(v); })}>
        <Stack>
          {refused
            ? <Alert color="red" role="alert" title={refused.title}>{refused.text}</Alert>
            : !slugTaken && <ErrorAlert error={signup.error} shownFields={['organisationName', 'slug', 'name', 'email', 'password']} />}
          <TextInput label="Program name" description="Your company or the program's name, as partners see it" required maxLength={200}
            autoComplete="organization" {...nameProps}
            onChange={(e) => {
              const v = e.currentTarget.value;
              form.setFieldValue('organisationName', v);
              if (!slugEdited) form.setFieldValue('slug', slugFrom(v));
            }} />
          <TextInput label="Address" description="Names your program in links and at sign-in: lower-case letters, digits and hyphens" required maxLength={63}
            autoCapitalize="none" spellCheck={false} {...form.getInputProps('slug')}
            onChange={(e) => { setSlugEdited(true); form.setFieldValue('slug', e.currentTarget.value.toLowerCase()); }} />
          <TextInput label="Your name" required maxLength={200} autoComplete="name" {...form.getInputProps('name')} />
          <TextInput label="Email" type="email" required maxLength={320} autoComplete="email" {...form.getInputProps('email')} />
          <PasswordInput label="Password" description="At least 12 characters" required minLength={12} maxLength={1024}
            autoComplete="new-password" {...form.getInputProps('password')} />
          <Button type="submit" loading={signup.isPending}>Open the program</Button>
        </Stack>
      </form>
    );
  }

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={480}>
        <Stack>
          <div>
            <Title order={1} size="h2">Open a partner program</Title>
            <Text size="sm" c="dimmed">You become its owner and are signed in to its console.</Text>
          </div>
          {body}
          <Text size="sm">Have an account? <Anchor component={Link} to="/login">Sign in</Anchor></Text>
        </Stack>
      </Paper>
    </Center>
  );
}
