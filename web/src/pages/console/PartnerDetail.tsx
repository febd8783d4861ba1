import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert, Button, Card, Group, List, Modal, MultiSelect, Progress, Select, SimpleGrid, Skeleton, Stack, Text,
  TextInput, Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';
import {
  builtInPartnerRoles, invitationLink, label, resetLink, statusesFrom, typeOptions, useLevels, usePartnerRoles,
  type Partner, type PartnerStatus, type PartnerType,
} from './partnerOptions';
import { ConfirmButton, Field, NoScrollLock } from './PartnerParts';
import { PartnerHealthCard } from './PartnerHealthCard';

type User = Schemas['User'];

/** One partner organisation: its details, level, people and onboarding. */
export default function PartnerDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('partners:write');
  const canReadUsers = useCan('partner_users:read');
  const canReadHealth = useCan('health:read');
  const [editing, setEditing] = useState(false);
  const partner = useQuery({
    queryKey: ['partners', id],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id } } })),
  });

  if (partner.isPending) return <Stack><Skeleton height={36} width={320} /><Skeleton height={120} /></Stack>;
  if (partner.isError) {
    return <Stack><PageHeader title="Partner" /><ErrorAlert error={partner.error} /></Stack>;
  }
  const p = partner.data;
  return (
    <Stack>
      <PageHeader title={p.name}
        description={<>{label(p.type)} partner · level {p.level || 'none'} · {label(p.status)}</>}
        actions={canWrite && <Button variant="default" onClick={() => { setEditing(true); }}>Edit partner</Button>} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          <Field label="Type">{label(p.type)}</Field>
          <Field label="Level">{p.level || '—'}</Field>
          <Field label="Status"><StatusBadge status={p.status} /></Field>
          <Field label="Created"><DateTime value={p.createdAt} /></Field>
          <Field label="Updated"><DateTime value={p.updatedAt} /></Field>
        </SimpleGrid>
      </Card>
      <LevelCard partner={p} />
      {canReadHealth && <PartnerHealthCard partnerId={p.id} />}
      {canReadUsers && <Users partner={p} />}
      <Onboarding partner={p} />
      {editing && <EditPartner partner={p} onClose={() => { setEditing(false); }} />}
    </Stack>
  );
}

/** The partner's level and where its performance would put it at the next review. */
function LevelCard({ partner }: { partner: Partner }) {
  const evaluation = useQuery({
    queryKey: ['partners', partner.id, 'level-evaluation'],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/level-evaluation', { params: { path: { id: partner.id } } })),
  });
  const levels = useLevels();
  const e = evaluation.data;
  const rankOf = (name: string) => levels.data?.find((l) => l.name === name)?.rank;
  const target = e?.targetLevel;
  let verdict = '';
  if (e && target) {
    const from = rankOf(e.currentLevel);
    const to = rankOf(target);
    if (target === e.currentLevel) verdict = `Meets the requirements of ${target}, its current level.`;
    else if (from !== undefined && to !== undefined && to < from) verdict = `Meets only the requirements of ${target}: the next review would move it down.`;
    else verdict = `Qualifies for ${target}: the next review would move it up.`;
  }
  const volumes = Object.entries(e?.wonAmountMinor ?? {});
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={2} size="h4">Level</Title>
        {evaluation.isError && <ErrorAlert error={evaluation.error} />}
        {evaluation.isPending && <Skeleton height={48} />}
        {e && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="Current level">{e.currentLevel || '—'}</Field>
              <Field label="Won deals in the period">{e.wonDeals}</Field>
              <Field label="Won volume in the period">
                {volumes.length === 0 ? 'None' : (
                  <Stack gap={0}>{volumes.map(([cur, minor]) => <Money key={cur} minor={minor} currency={cur} />)}</Stack>
                )}
              </Field>
            </SimpleGrid>
            <Group gap="xs">
              <Text size="sm" fw={700}>{target ? `Evaluates to ${target}.` : 'No levels defined.'}</Text>
              {verdict && <Text size="sm">{verdict}</Text>}
            </Group>
          </>
        )}
      </Stack>
    </Card>
  );
}

/** Changes a partner's name, type, level or status (along its lifecycle). */
function EditPartner({ partner, onClose }: { partner: Partner; onClose: () => void }) {
  const queryClient = useQueryClient();
  const levels = useLevels();
  const [confirmOffboard, setConfirmOffboard] = useState(false);
  const form = useForm({
    initialValues: { name: partner.name, type: partner.type, level: partner.level, status: partner.status },
    validate: { name: (v) => (v.trim() ? null : 'Name the partner') },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values) => {
      const body: { name?: string; type?: PartnerType; level?: string; status?: PartnerStatus } = {};
      if (v.name.trim() !== partner.name) body.name = v.name.trim();
      if (v.type !== partner.type) body.type = v.type as PartnerType;
      if (v.level && v.level !== partner.level) body.level = v.level;
      if (v.status !== partner.status) body.status = v.status as PartnerStatus;
      return unwrap(await api.PATCH('/api/partners/{id}', { params: { path: { id: partner.id } }, body }));
    },
    onSuccess: async (p) => {
      queryClient.setQueryData(['partners', p.id], p);
      await queryClient.invalidateQueries({ queryKey: ['partners'] });
      notifications.show({ color: 'green', message: `${p.name} saved` });
      onClose();
    },
    onError: (err) => { setConfirmOffboard(false); form.setErrors(fieldErrors(err)); },
  });
  const submit = form.onSubmit((v) => {
    if (v.status === 'offboarded' && partner.status !== 'offboarded' && !confirmOffboard) {
      setConfirmOffboard(true);
      return;
    }
    save.mutate(v);
  });
  const levelOptions = (levels.data ?? []).map((l) => ({ value: l.name, label: `${l.name} (rank ${String(l.rank)})` }));
  if (partner.level && !levelOptions.some((o) => o.value === partner.level)) levelOptions.push({ value: partner.level, label: partner.level });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={`Edit ${partner.name}`}>
      <form noValidate onSubmit={submit}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={['name', 'type', 'level', 'status']} />
          <TextInput label="Name" required maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <Select label="Type" required allowDeselect={false} data={typeOptions} {...form.getInputProps('type')} />
          <Select label="Level" allowDeselect={false} data={levelOptions} {...form.getInputProps('level')} />
          <Select label="Status" allowDeselect={false} description="Onboarding → active ⇄ suspended; offboarded is for good"
            data={statusesFrom(partner.status).map((s) => ({ value: s, label: label(s) }))} {...form.getInputProps('status')} />
          {confirmOffboard && (
            <Alert color="red.9" title="Offboard this partner?">
              An offboarded partner cannot be made active again. Save once more to offboard {partner.name}.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" color={confirmOffboard ? 'red.9' : undefined} loading={save.isPending}>
              {confirmOffboard ? 'Offboard partner' : 'Save'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The partner's people: invited, added, deactivated, and sent password-reset links. */
function Users({ partner }: { partner: Partner }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('partner_users:write');
  const [adding, setAdding] = useState(false);
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
          <Title order={2} size="h4">Users</Title>
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
              render: (u: User) => u.status === 'deactivated' ? null : (
                <Group gap={4} wrap="nowrap">
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
      <NoScrollLock><SecretOnce title={secret?.title ?? ''} secret={secret?.link ?? null} onClose={() => { setSecret(null); }} /></NoScrollLock>
    </Card>
  );
}

/** Invites a person to the partner organisation with partner roles. */
function AddUser({ partner, first, onClose, onCreated }: {
  partner: Partner; first: boolean; onClose: () => void; onCreated: (u: Schemas['CreatedUserOutputBody']) => void;
}) {
  const roles = usePartnerRoles();
  const canReadRoles = useCan('roles:read');
  const roleOptions = canReadRoles
    ? (roles.data ?? []).map((r) => ({ value: r.name, label: r.description ? `${label(r.name)} — ${r.description}` : label(r.name) }))
    : builtInPartnerRoles.map((r) => ({ value: r, label: label(r) }));
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

/** The partner's onboarding checklist: started once, its tasks and progress. */
function Onboarding({ partner }: { partner: Partner }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('partners:write');
  const key = ['partners', partner.id, 'onboarding'];
  const progress = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/onboarding', { params: { path: { id: partner.id } } })),
  });
  const start = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/partners/{id}/onboarding', { params: { path: { id: partner.id } } })),
    onSuccess: async (p) => {
      queryClient.setQueryData(key, p);
      notifications.show({ color: 'green', message: `Onboarding started with ${String(p.total)} tasks` });
      await queryClient.invalidateQueries({ queryKey: ['tasks'] });
    },
  });
  const o = progress.data;
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">Onboarding</Title>
          {canWrite && o?.total === 0 && partner.status !== 'offboarded' && (
            <Button size="xs" loading={start.isPending} onClick={() => { start.mutate(); }}>Start onboarding</Button>
          )}
        </Group>
        {progress.isError && <ErrorAlert error={progress.error} />}
        <ErrorAlert error={start.error} />
        {progress.isPending && <Skeleton height={40} />}
        {o?.total === 0 && <Text size="sm" c="dimmed">Not started. Starting it creates the tasks of your onboarding checklist for this partner.</Text>}
        {o && o.total > 0 && (
          <>
            <Group gap="sm" wrap="nowrap">
              <Progress role="status" value={o.percent} flex={1} size="lg" aria-label={`Onboarding ${String(o.percent)}% done`} />
              <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>{o.done} of {o.total} done ({o.percent}%)</Text>
            </Group>
            <List spacing={6} listStyleType="none" aria-label="Onboarding tasks">
              {o.tasks.map((t) => (
                <List.Item key={t.id}>
                  <Group gap="xs" wrap="nowrap">
                    <StatusBadge status={t.status} />
                    <Text size="sm" td={t.status === 'done' ? 'line-through' : undefined}>{t.title}</Text>
                    {t.dueDate && <Text size="xs" c="dimmed">due {formatDate(t.dueDate)}</Text>}
                    {t.completedAt && <Text size="xs" c="dimmed">done <DateTime value={t.completedAt} /></Text>}
                  </Group>
                </List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </Card>
  );
}
