// A partner organisation's people, shared by the console's partner page (operators) and the
// portal's team page (a partner admin managing its own organisation).
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Group, Modal, MultiSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useMe } from '../auth/me';
import { useCan } from '../auth/useCan';
import { builtInPartnerRoles, invitationLink, label, resetLink, usePartnerRoles } from '../pages/console/partnerOptions';
import { ConfirmButton, NoScrollLock } from '../pages/console/PartnerParts';
import { DateTime } from './DateTime';
import { ErrorAlert } from './ErrorAlert';
import { PagedTable } from './PagedTable';
import { SecretOnce } from './SecretOnce';
import { StatusBadge } from './StatusBadge';

type User = Schemas['User'];

/** The organisation the people belong to: the partner, or what the portal knows of its own. */
export interface PeopleOf {
  id: string;
  name: string;
  status?: string;
}

/** The partner's people: invited, added, renamed, given roles, deactivated, and sent password-reset links. */
export function PartnerPeople({ partner, title = 'Users' }: { partner: PeopleOf; title?: string }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('partner_users:write');
  const me = useMe();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<User | null>(null);
  const anyUser = useQuery({
    queryKey: ['partners', partner.id, 'users', 'any'],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/users', { params: { path: { id: partner.id }, query: { limit: 1 } } })),
  });
  const [secret, setSecret] = useState<{ title: string; link: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['partners', partner.id, 'users'] });

  const deactivate = async (u: User) => {
    unwrap(await api.POST('/api/partner-users/{id}/deactivate', { params: { path: { id: u.id } } }));
    notifications.show({ color: 'green', message: `${u.name} deactivated; their sessions ended` });
    await refresh();
  };
  const reset = async (u: User) => {
    const t = unwrap(await api.POST('/api/partner-users/{id}/password-reset', { params: { path: { id: u.id } } }));
    setSecret({ title: `Password-reset link for ${u.name}`, link: resetLink(t.token) });
  };

  return (
    <Card withBorder>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">{title}</Title>
          {canWrite && partner.status !== 'offboarded' && <Button size="xs" onClick={() => { setAdding(true); }}>Add user</Button>}
        </Group>
        <PagedTable<User>
          label={`Users of ${partner.name}`}
          queryKey={['partners', partner.id, 'users']}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/partners/{id}/users', {
            params: { path: { id: partner.id }, query: { cursor, limit: 20 } },
          }))}
          rowKey={(u) => u.id}
          empty="No users yet. Add one to invite them to the partner portal."
          columns={[
            { header: 'Name', render: (u) => u.name },
            { header: 'Email', render: (u) => u.email },
            { header: 'Roles', render: (u) => u.roles.map(label).join(', ') || '—' },
            { header: 'Status', render: (u) => <StatusBadge status={u.status} /> },
            { header: 'Added', render: (u) => <DateTime value={u.createdAt} /> },
            ...(canWrite ? [{
              header: 'Actions',
              // Nobody edits, resets or deactivates themselves here: their profile is where they change their password.
              render: (u: User) => u.status === 'deactivated' || u.id === me.data?.userId ? null : (
                <Group gap={4} wrap="nowrap">
                  <Button size="xs" variant="default" aria-label={`Edit ${u.name}`} onClick={() => { setEditing(u); }}>Edit</Button>
                  <ConfirmButton size="xs" color="indigo" title={`Reset ${u.name}'s password?`}
                    message={`A one-time link lets ${u.email} choose a new password within a day. Send it to them yourself.`}
                    confirmLabel="Create reset link" onConfirm={() => reset(u)}
                    aria-label={`Reset password of ${u.name}`}>Reset password</ConfirmButton>
                  <ConfirmButton size="xs" title={`Deactivate ${u.name}?`}
                    message={`${u.email} can no longer sign in, and their open sessions end now.`}
                    confirmLabel="Deactivate" onConfirm={() => deactivate(u)}
                    aria-label={`Deactivate ${u.name}`}>Deactivate</ConfirmButton>
                </Group>
              ),
            }] : []),
          ]}
        />
      </Stack>
      {adding && <AddUser partner={partner} first={anyUser.data?.data.length === 0} onClose={() => { setAdding(false); }}
        onCreated={(u) => {
          setAdding(false);
          setSecret({ title: `Invitation link for ${u.name}`, link: invitationLink(u.invitation.token) });
          void refresh();
        }} />}
      {editing && <EditUser user={editing} onClose={() => { setEditing(null); }} onSaved={() => { setEditing(null); void refresh(); }} />}
      <NoScrollLock><SecretOnce title={secret?.title ?? ''} secret={secret?.link ?? null} onClose={() => { setSecret(null); }} /></NoScrollLock>
    </Card>
  );
}

/** The partner roles a person may be given: the tenant's (for those who read roles) or the built-in ones. */
function useRoleOptions() {
  const roles = usePartnerRoles();
  const canReadRoles = useCan('roles:read');
  return canReadRoles
    ? (roles.data ?? []).map((r) => ({ value: r.name, label: r.description ? `${label(r.name)} — ${r.description}` : label(r.name) }))
    : builtInPartnerRoles.map((r) => ({ value: r, label: label(r) }));
}

/** Invites a person to the partner organisation with partner roles. */
function AddUser({ partner, first, onClose, onCreated }: {
  partner: PeopleOf; first: boolean; onClose: () => void; onCreated: (u: Schemas['CreatedUserOutputBody']) => void;
}) {
  const roleOptions = useRoleOptions();
  const form = useForm({
    // A partner's first user runs its account (payout methods, withdrawals, its other users).
    initialValues: { name: '', email: '', roles: [first ? 'partner_admin' : 'partner_user'] },
    validate: {
      name: (v) => (v.trim() ? null : 'Enter their name'),
      email: (v) => (/^\S+@\S+$/.test(v.trim()) ? null : 'Enter an email address'),
      roles: (v) => (v.length ? null : 'Give them at least one role'),
    },
  });
  const create = useMutation({
    mutationFn: async (v: typeof form.values) => unwrap(await api.POST('/api/partners/{id}/users', {
      params: { path: { id: partner.id } },
      body: { name: v.name.trim(), email: v.email.trim(), roles: v.roles },
    })),
    onSuccess: (u) => {
      notifications.show({ color: 'green', message: `${u.name} invited` });
      onCreated(u);
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={`Add a user to ${partner.name}`}>
      <form noValidate onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
        <Stack>
          <ErrorAlert error={create.error} shownFields={['name', 'email', 'roles']} />
          <TextInput label="Name" required maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <TextInput label="Email" type="email" required maxLength={320} {...form.getInputProps('email')} />
          <MultiSelect label="Roles" required data={roleOptions} {...form.getInputProps('roles')}
            description="What they may do in the partner portal" />
          <Text size="xs" c="dimmed">They get an invitation link, shown once, to choose a password.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={create.isPending}>Add and invite</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Renames a partner user or changes their roles. */
function EditUser({ user, onClose, onSaved }: { user: User; onClose: () => void; onSaved: () => void }) {
  const options = useRoleOptions();
  // A role the list does not offer (a custom role, to someone who cannot read roles) stays choosable.
  const roleOptions = [...options, ...user.roles.filter((r) => !options.some((o) => o.value === r)).map((r) => ({ value: r, label: label(r) }))];
  const form = useForm({
    initialValues: { name: user.name, roles: user.roles },
    validate: {
      name: (v) => (v.trim() ? null : 'Enter their name'),
      roles: (v) => (v.length ? null : 'Give them at least one role'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values) => unwrap(await api.PATCH('/api/partner-users/{id}', {
      params: { path: { id: user.id } },
      body: { name: v.name.trim(), roles: v.roles },
    })),
    onSuccess: (u) => {
      notifications.show({ color: 'green', message: `${u.name} saved` });
      onSaved();
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={`Edit ${user.name}`}>
      <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={['name', 'roles']} />
          <TextInput label="Name" required maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <MultiSelect label="Roles" required data={roleOptions} {...form.getInputProps('roles')}
            description="What they may do in the partner portal" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
