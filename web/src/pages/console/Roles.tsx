import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  Alert, Badge, Button, Checkbox, Fieldset, Group, Modal, SegmentedControl, SimpleGrid, Stack, Text, TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';

type Role = Schemas['TenantRole'];

/** The permission catalogue, grouped by the resource before the colon (deals:read → deals). */
function usePermissionGroups() {
  return useQuery({
    queryKey: ['permissions'],
    queryFn: async () => unwrap(await api.GET('/api/permissions')),
    staleTime: 5 * 60_000,
    select: (body) => {
      const groups = new Map<string, { permission: string; description: string }[]>();
      for (const e of body.data ?? []) {
        const permission = e.permission;
        const resource = permission.split(':')[0] ?? permission;
        const list = groups.get(resource) ?? [];
        list.push({ permission, description: e.description });
        groups.set(resource, list);
      }
      return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
    },
  });
}

/** Checkboxes for every permission, grouped by resource, each with what it allows. */
function PermissionPicker({ value, onChange, readOnly, error }: { value: string[]; onChange: (v: string[]) => void; readOnly?: boolean; error?: string }) {
  const groups = usePermissionGroups();
  if (groups.isPending) return <Text size="sm" c="dimmed">Loading permissions…</Text>;
  if (groups.isError) return <ErrorAlert error={groups.error} />;
  const set = new Set(value);
  const toggle = (perms: string[], on: boolean) => {
    const next = new Set(set);
    for (const p of perms) if (on) next.add(p); else next.delete(p);
    onChange([...next].sort());
  };
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>Permissions <Text span c="dimmed" size="xs">({value.length} chosen)</Text></Text>
      {error && <Text size="sm" c="red" role="alert">{error}</Text>}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
        {groups.data.map(([resource, perms]) => {
          const held = perms.filter((p) => set.has(p.permission)).length;
          return (
            <Fieldset key={resource} legend={resource.replaceAll('_', ' ')} p="sm">
              <Stack gap={6}>
                {!readOnly && perms.length > 1 && (
                  <Checkbox size="xs" label={`All ${resource.replaceAll('_', ' ')} permissions`}
                    checked={held === perms.length} indeterminate={held > 0 && held < perms.length}
                    onChange={(e) => { toggle(perms.map((p) => p.permission), e.currentTarget.checked); }} />
                )}
                {perms.map((p) => (
                  <Checkbox key={p.permission} label={p.permission} description={p.description}
                    checked={set.has(p.permission)} disabled={readOnly}
                    onChange={(e) => { toggle([p.permission], e.currentTarget.checked); }} />
                ))}
              </Stack>
            </Fieldset>
          );
        })}
      </SimpleGrid>
    </Stack>
  );
}

interface FormValues { name: string; description: string; audience: 'operator' | 'partner'; permissions: string[] }

/** Creates a custom role, edits one (description and permissions), or shows a built-in one. */
function RoleForm({ role, readOnly, onDone }: { role?: Role; readOnly: boolean; onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<FormValues>({
    initialValues: {
      name: role?.name ?? '', description: role?.description ?? '',
      audience: role?.audience === 'partner' ? 'partner' : 'operator', permissions: role?.permissions ?? [],
    },
    validate: {
      name: (v) => (/^[a-z0-9_]+$/.test(v) ? null : 'Lower-case letters, digits and underscores'),
      permissions: (v) => (v.length ? null : 'Pick at least one permission'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: FormValues) => role?.id
      ? unwrap(await api.PATCH('/api/roles/{id}', { params: { path: { id: role.id } }, body: { description: v.description, permissions: v.permissions } }))
      : unwrap(await api.POST('/api/roles', { body: { name: v.name, description: v.description, audience: v.audience, permissions: v.permissions } })),
    onSuccess: async (r) => {
      notifications.show({ color: 'green', message: role ? `Role ${r.name} saved` : `Role ${r.name} created` });
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      onDone();
    },
    onError: (err) => {
      const errs = fieldErrors(err);
      // Problems about single permissions (permissions.3) are shown beside the picker.
      const perm = Object.entries(errs).find(([k]) => k.startsWith('permissions'));
      form.setErrors({ ...errs, ...(perm ? { permissions: perm[1] } : {}) });
    },
  });
  return (
    <form onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        {role?.builtIn && <Alert color="blue">Built-in roles come with partnerd and cannot be changed. Create a custom role to grant a different set.</Alert>}
        <ErrorAlert error={save.error} shownFields={['name', 'description', 'audience', 'permissions']} />
        <Group grow align="flex-start">
          <TextInput label="Name" required disabled={!!role} description="Lower-case letters, digits and underscores; it cannot change later"
            data-autofocus {...form.getInputProps('name')} />
          <TextInput label="Description" disabled={readOnly} {...form.getInputProps('description')} />
        </Group>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="role-audience">Who holds it</Text>
          <SegmentedControl aria-labelledby="role-audience" disabled={!!role} value={form.values.audience}
            data={[{ value: 'operator', label: 'Operators' }, { value: 'partner', label: 'Partner users' }]}
            onChange={(v) => { form.setFieldValue('audience', v === 'partner' ? 'partner' : 'operator'); }} />
        </Stack>
        <PermissionPicker value={form.values.permissions} readOnly={readOnly} error={form.errors.permissions as string | undefined}
          onChange={(v) => { form.setFieldValue('permissions', v); }} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>{readOnly ? 'Close' : 'Cancel'}</Button>
          {!readOnly && <Button type="submit" loading={save.isPending}>{role ? 'Save role' : 'Create role'}</Button>}
        </Group>
      </Stack>
    </form>
  );
}

/** Built-in and custom roles, and the permissions each grants. */
export default function Roles() {
  const canWrite = useCan('roles:write');
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<Role | 'new' | null>(null);
  const remove = useMutation({
    mutationFn: async (r: Role) => { unwrap(await api.DELETE('/api/roles/{id}', { params: { path: { id: r.id ?? '' } } })); return r; },
    onSuccess: async (r) => {
      notifications.show({ color: 'green', message: `Role ${r.name} deleted` });
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
    },
    onError: (err) => { notifications.show({ color: 'red', title: 'Role not deleted', message: err.message }); },
  });
  const title = open === 'new' ? 'New role' : open?.builtIn || !canWrite ? `Role ${open?.name ?? ''}` : `Edit role ${open?.name ?? ''}`;
  return (
    <Stack>
      <PageHeader title="Roles" description="What operators and partner users may do. Built-in roles are fixed; custom roles grant the permissions you pick."
        actions={canWrite && <Button onClick={() => { setOpen('new'); }}>New role</Button>} />
      <PagedTable<Role>
        label="Roles"
        queryKey={['roles', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/roles', { params: { query: { cursor, limit: 50 } } }))}
        rowKey={(r) => r.id ?? r.name}
        empty="No roles."
        columns={[
          { header: 'Role', render: (r) => <Text size="sm" fw={500}>{r.name}</Text> },
          { header: 'Kind', render: (r) => <Badge variant="light" color={r.builtIn ? 'gray' : 'grape'}>{r.builtIn ? 'built-in' : 'custom'}</Badge> },
          { header: 'Holders', render: (r) => (r.audience === 'partner' ? 'Partner users' : 'Operators') },
          { header: 'Description', render: (r) => <Text size="sm" lineClamp={2}>{r.description || '—'}</Text> },
          { header: 'Permissions', numeric: true, render: (r) => (r.permissions ?? []).length },
          {
            header: <VisuallyHidden>Actions</VisuallyHidden>, render: (r) => (
              <Group gap={4} wrap="nowrap" justify="flex-end">
                <Button size="xs" variant="default" aria-label={`${!r.builtIn && canWrite ? 'Edit' : 'View'} role ${r.name}`}
                  onClick={() => { setOpen(r); }}>{!r.builtIn && canWrite ? 'Edit' : 'View'}</Button>
                {!r.builtIn && canWrite && (
                  <AdminConfirmButton size="xs" label="Delete" aria-label={`Delete role ${r.name}`} title={`Delete role ${r.name}?`}
                    message="Users holding only this role lose its permissions at once. A role still held may be refused."
                    onConfirm={() => remove.mutateAsync(r)} />
                )}
              </Group>
            ),
          },
        ]}
      />
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={open !== null} onClose={() => { setOpen(null); }} title={title} size="xl">
        {open !== null && <RoleForm role={open === 'new' ? undefined : open} readOnly={open !== 'new' && (open.builtIn || !canWrite)} onDone={() => { setOpen(null); }} />}
      </Modal>
    </Stack>
  );
}
