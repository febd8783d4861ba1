import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert, Button, Card, Group, Image, List, Modal, Progress, Select, SimpleGrid, Skeleton, Stack, Text,
  TextInput, Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { formatBytes, uploadFile } from '../../ui/files';
import { formatDate } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { LevelCard } from '../../ui/LevelCard';
import { PartnerPeople } from '../../ui/PartnerPeople';
import { StatusBadge } from '../../ui/StatusBadge';
import {
  label, statusesFrom, typeOptions, useLevels,
  type Partner, type PartnerStatus, type PartnerType,
} from './partnerOptions';
import { ConfirmButton, Field } from './PartnerParts';
import { PartnerHealthCard } from './PartnerHealthCard';

type Brand = Schemas['Branding'];

/** One partner organisation: its details, level, people and onboarding. */
export default function PartnerDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('partners:write');
  const canReadUsers = useCan('partner_users:read');
  const canReadHealth = useCan('health:read');
  const canReadBranding = useCan('branding:read');
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
      <LevelCard partnerId={p.id} audience="operator" />
      {canReadHealth && <PartnerHealthCard partnerId={p.id} />}
      {canReadUsers && <PartnerPeople partner={p} />}
      {canReadBranding && <CoBrand partner={p} />}
      <Onboarding partner={p} />
      {editing && <EditPartner partner={p} onClose={() => { setEditing(false); }} />}
    </Stack>
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

/** The partner's co-brand: its logo, shown beside the tenant's in the portal its users see. */
function CoBrand({ partner }: { partner: Partner }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('branding:write');
  const key = ['partners', partner.id, 'branding'];
  const brand = useQuery({
    queryKey: key,
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/branding', { params: { path: { id: partner.id } } })),
  });
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: async (f: File) => uploadFile<Brand>(`/api/partners/${encodeURIComponent(partner.id)}/branding/logo`, f, 'PUT'),
    onSuccess: (b) => {
      queryClient.setQueryData(key, b);
      setFile(null);
      notifications.show({ color: 'green', message: `${partner.name}'s logo uploaded` });
    },
  });
  const remove = async () => {
    const b = unwrap(await api.DELETE('/api/partners/{id}/branding/logo', { params: { path: { id: partner.id } } }));
    queryClient.setQueryData(key, b);
    notifications.show({ color: 'green', message: `${partner.name}'s logo removed` });
  };
  const logo = brand.data?.logo;
  return (
    <Card withBorder component="section" aria-labelledby="co-brand-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="co-brand-title">Co-brand logo</Title>
        <Text size="sm" c="dimmed">Shown beside the program's logo in the portal this partner's users see.</Text>
        <ErrorAlert error={brand.error} />
        {brand.isPending ? <Skeleton height={48} width={160} /> : (
          <Group align="center">
            {logo
              ? <Image src={logo.url} alt={`${partner.name}'s logo`} h={48} w="auto" fit="contain" />
              : <Text size="sm" c="dimmed">No logo: the portal shows the program's alone.</Text>}
            {logo && <Text size="xs" c="dimmed">{logo.width}×{logo.height} px, {logo.contentType}</Text>}
          </Group>
        )}
        {canWrite && brand.isSuccess && (
          <>
            <FilePicker label="New logo" description={`PNG, JPEG or GIF (not SVG), at most ${formatBytes(512 * 1024)}, 16 to 2048 pixels a side.`}
              file={file} onChange={(f) => { upload.reset(); setFile(f); }} />
            <ErrorAlert error={upload.error} />
            <Group justify="flex-end">
              {logo && <ConfirmButton size="xs" title={`Remove ${partner.name}'s logo?`} message="The portal shows the program's logo alone until a new one is uploaded."
                confirmLabel="Remove logo" onConfirm={remove}>Remove logo</ConfirmButton>}
              <Button size="xs" disabled={!file} loading={upload.isPending} onClick={() => { if (file) upload.mutate(file); }}>Upload logo</Button>
            </Group>
          </>
        )}
      </Stack>
    </Card>
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
