import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Anchor, Badge, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { AdminRolePicker as RolePicker } from '../../ui/AdminRolePicker';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';

type User = Schemas['User'];

function InviteForm({ onDone }: { onDone: (link: string | null) => void }) {
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { email: '', name: '', roles: [] as string[] },
    validate: { roles: (v) => (v.length ? null : 'Pick at least one role') },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values) => unwrap(await api.POST('/api/users', { body: { email: v.email.trim(), name: v.name.trim(), roles: v.roles } })),
    onSuccess: async (u) => {
      notifications.show({ color: 'green', message: `${u.email} invited` });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      onDone(`${window.location.origin}/accept-invitation#token=${u.invitation.token}`);
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <form onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <ErrorAlert error={save.error} shownFields={['email', 'name', 'roles']} />
        <TextInput label="Email" type="email" required autoComplete="off" data-autofocus {...form.getInputProps('email')} />
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <RolePicker value={form.values.roles} onChange={(v) => { form.setFieldValue('roles', v); }} error={form.errors.roles} />
        <Text size="xs" c="dimmed">The invitation link works once and for a week; you give it to the person yourself.</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => { onDone(null); }}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>Invite user</Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The tenant's operator users: who they are, their roles, and inviting new ones. */
export default function Users() {
  const canWrite = useCan('users:write');
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<string | null>(null);
  return (
    <Stack>
      <PageHeader title="Users" description="The people who run your partner program in this console."
        actions={canWrite && <Button onClick={() => { setInviting(true); }}>Invite user</Button>} />
      <PagedTable<User>
        label="Users"
        queryKey={['users', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/users', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(u) => u.id}
        empty="No users yet."
        columns={[
          { header: 'Name', render: (u) => <Anchor component={Link} to={`/users/${u.id}`} size="sm">{u.name || u.email}</Anchor> },
          { header: 'Email', render: (u) => u.email },
          { header: 'Roles', render: (u) => <Group gap={4}>{u.roles.map((r) => <Badge key={r} variant="outline" tt="none">{r}</Badge>)}</Group> },
          { header: 'Status', render: (u) => <StatusBadge status={u.status} /> },
          { header: 'Added', render: (u) => <DateTime value={u.createdAt} /> },
        ]}
      />
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={inviting} onClose={() => { setInviting(false); }} title="Invite a user" size="lg">
        {inviting && <InviteForm onDone={(l) => { setInviting(false); setLink(l); }} />}
      </Modal>
      <SecretOnce title="Invitation link" secret={link} onClose={() => { setLink(null); }} />
    </Stack>
  );
}
