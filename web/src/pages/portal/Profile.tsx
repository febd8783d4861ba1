import { useMutation } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Badge, Button, Card, Group, Paper, PasswordInput, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

function PasswordForm() {
  const form = useForm({
    initialValues: { currentPassword: '', newPassword: '', repeat: '' },
    validate: {
      currentPassword: (v) => (v ? null : 'Enter your current password'),
      newPassword: (v) => (v.length >= 12 ? null : 'At least 12 characters'),
      repeat: (v, values) => (v === values.newPassword ? null : 'The two passwords differ'),
    },
  });
  const change = useMutation({
    mutationFn: async (v: typeof form.values) => {
      unwrap(await api.POST('/api/me/password', { body: { currentPassword: v.currentPassword, newPassword: v.newPassword } }));
    },
    onSuccess: () => {
      form.reset();
      notifications.show({ color: 'green', title: 'Password changed', message: 'Use the new password next time you sign in.' });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Paper withBorder p={{ base: 'sm', sm: 'lg' }} maw={480} component="form" noValidate
      onSubmit={form.onSubmit((v) => { change.mutate(v); })}>
      <Stack>
        <Title order={2} size="h4">Change password</Title>
        <ErrorAlert error={change.error} shownFields={['currentPassword', 'newPassword']} />
        <PasswordInput label="Current password" autoComplete="current-password" withAsterisk {...form.getInputProps('currentPassword')} />
        <PasswordInput label="New password" description="At least 12 characters" autoComplete="new-password" withAsterisk {...form.getInputProps('newPassword')} />
        <PasswordInput label="Repeat the new password" autoComplete="new-password" withAsterisk {...form.getInputProps('repeat')} />
        <Group justify="flex-end"><Button type="submit" loading={change.isPending}>Change password</Button></Group>
      </Stack>
    </Paper>
  );
}

/** Who the partner user is, and changing their password. */
export default function Profile() {
  const me = useMe();
  const canWrite = useCan('profile:write');
  if (!me.data) return null;
  const rows: [string, React.ReactNode][] = [
    ['Name', me.data.name ?? '—'], ['Email', me.data.email ?? '—'], ['Program', me.data.tenant.name],
    ['Roles', <Group key="r" gap={4}>{me.data.roles.map((r) => <Badge key={r} variant="light">{r.replaceAll('_', ' ')}</Badge>)}</Group>],
  ];
  return (
    <Stack>
      <PageHeader title="Profile" description="Your sign-in details. Ask your organisation's admin to change your name or roles." />
      <Card withBorder maw={720}>
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          {rows.map(([label, value]) => (
            <Stack gap={0} key={label}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{label}</Text>
              <Text component="div" style={{ wordBreak: 'break-word' }}>{value}</Text>
            </Stack>
          ))}
        </SimpleGrid>
      </Card>
      {canWrite && <PasswordForm />}
    </Stack>
  );
}
