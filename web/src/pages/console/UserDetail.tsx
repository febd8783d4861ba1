import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Anchor, Button, Card, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';
import { AdminRolePicker as RolePicker } from '../../ui/AdminRolePicker';

type User = Schemas['User'];

function EditUser({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: user.name, roles: user.roles },
    validate: { name: (v) => (v.trim() ? null : 'A user needs a name'), roles: (v) => (v.length ? null : 'Pick at least one role') },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values) => unwrap(await api.PATCH('/api/users/{id}', { params: { path: { id: user.id } }, body: { name: v.name.trim(), roles: v.roles } })),
    onSuccess: async (u) => {
      notifications.show({ color: 'green', message: `${u.email} saved` });
      queryClient.setQueryData(['users', u.id], u);
      form.resetDirty({ name: u.name, roles: u.roles });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Card withBorder component="form" onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <Title order={2} size="h4">Name and roles</Title>
        <ErrorAlert error={save.error} shownFields={['name', 'roles']} />
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <RolePicker value={form.values.roles} onChange={(v) => { form.setFieldValue('roles', v); }} error={form.errors.roles} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>Save changes</Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** One operator user: details, name and roles, password reset and deactivation. */
export default function UserDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('users:write');
  const queryClient = useQueryClient();
  const [link, setLink] = useState<string | null>(null);
  const user = useQuery({
    queryKey: ['users', id],
    queryFn: async () => unwrap(await api.GET('/api/users/{id}', { params: { path: { id } } })),
  });
  const deactivate = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/users/{id}/deactivate', { params: { path: { id } } })),
    onSuccess: async (u) => {
      notifications.show({ color: 'green', message: `${u.email} deactivated: they can no longer sign in` });
      queryClient.setQueryData(['users', id], u);
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const reset = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/users/{id}/password-reset', { params: { path: { id } } })),
    onSuccess: async (t) => {
      setLink(`${window.location.origin}/reset-password#token=${t.token}`);
      await queryClient.invalidateQueries({ queryKey: ['audit'] });
    },
  });

  if (user.isPending) return <Loader role="status" aria-label="Loading user" />;
  if (user.isError) return <Stack><PageHeader title="User" /><ErrorAlert error={user.error} /></Stack>;
  const u = user.data;
  const active = u.status !== 'deactivated';
  return (
    <Stack>
      <Anchor component={Link} to="/users" size="sm">← Users</Anchor>
      <PageHeader title={u.name || u.email} description={u.email}
        actions={canWrite && active && (
          <>
            <AdminConfirmButton color="blue" label="Create password reset link" title="Create a password reset link?"
              message="The link works once, for a day; the person's current password keeps working until they use it."
              onConfirm={() => reset.mutateAsync()} />
            <AdminConfirmButton label="Deactivate" title={`Deactivate ${u.email}?`}
              message="They are signed out and can no longer sign in. Their history stays."
              onConfirm={() => deactivate.mutateAsync()} />
          </>
        )} />
      <ErrorAlert error={deactivate.error ?? reset.error} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, sm: 4 }}>
          <Stack gap={2}><Text size="xs" c="dimmed">Status</Text><div><StatusBadge status={u.status} /></div></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Roles</Text><Text size="sm">{u.roles.join(', ')}</Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Added</Text><Text size="sm"><DateTime value={u.createdAt} /></Text></Stack>
          <Stack gap={2}><Text size="xs" c="dimmed">Deactivated</Text><Text size="sm"><DateTime value={u.deactivatedAt} /></Text></Stack>
        </SimpleGrid>
      </Card>
      {canWrite && active && <EditUser key={`${u.name}|${u.roles.join(',')}`} user={u} />}
      <SecretOnce title="Password reset link" secret={link} onClose={() => { setLink(null); }} />
    </Stack>
  );
}
