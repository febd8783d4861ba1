import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import {
  isPartnerStatus, label, statusOptions, typeOptions, useLevels, type Partner, type PartnerType,
} from './partnerOptions';

/** The partner organisations: searched by name, filtered by status and level, and added. */
export default function Partners() {
  const [params, setParams] = useSearchParams();
  const canWrite = useCan('partners:write');
  const levels = useLevels();
  const [creating, setCreating] = useState(false);

  const status = params.get('status') ?? '';
  const level = params.get('level') ?? '';
  const [search, setSearch] = useState(params.get('q') ?? '');
  const [q] = useDebouncedValue(search.trim(), 300);

  const setParam = (name: string, value: string) => {
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (value) next.set(name, value);
      else next.delete(name);
      return next;
    }, { replace: true });
  };
  const urlQ = params.get('q') ?? '';
  useEffect(() => {
    if (q !== urlQ) setParam('q', q);
    // Only a settled search changes the address.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [q]);

  const levelOptions = (levels.data ?? []).map((l) => ({ value: l.name, label: l.name }));
  if (level && !levelOptions.some((o) => o.value === level)) levelOptions.push({ value: level, label: level });

  return (
    <Stack>
      <PageHeader title="Partners" description="The partner organisations of your program."
        actions={canWrite && <Button onClick={() => { setCreating(true); }}>New partner</Button>} />
      <Group align="flex-end" gap="sm">
        <TextInput label="Search by name" placeholder="Name contains…" type="search" maxLength={200} w={280}
          value={search} onChange={(e) => { setSearch(e.currentTarget.value); }} />
        <Select label="Status" placeholder="Any status" clearable w={180} data={statusOptions}
          value={status || null} onChange={(v) => { setParam('status', v ?? ''); }} />
        <Select label="Level" placeholder="Any level" clearable w={180} data={levelOptions}
          value={level || null} onChange={(v) => { setParam('level', v ?? ''); }} />
      </Group>
      <PagedTable<Partner>
        label="Partners"
        queryKey={['partners', 'list', { q: urlQ, status, level }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/partners', {
          params: {
            query: {
              cursor, limit: 25,
              ...(urlQ ? { q: urlQ } : {}),
              ...(isPartnerStatus(status) ? { status } : {}),
              ...(level ? { level } : {}),
            },
          },
        }))}
        rowKey={(p) => p.id}
        empty={urlQ || status || level ? 'No partner matches these filters.' : 'No partners yet.'}
        columns={[
          { header: 'Name', render: (p) => <Anchor component={Link} to={`/partners/${p.id}`}>{p.name}</Anchor> },
          { header: 'Type', render: (p) => label(p.type) },
          { header: 'Level', render: (p) => p.level || '—' },
          { header: 'Status', render: (p) => <StatusBadge status={p.status} /> },
          { header: 'Created', render: (p) => <DateTime value={p.createdAt} /> },
        ]}
      />
      <NewPartner opened={creating} onClose={() => { setCreating(false); }} />
    </Stack>
  );
}

/** The form that adds a partner organisation and opens its page. */
function NewPartner({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const levels = useLevels();
  const form = useForm({
    initialValues: { name: '', type: '' as PartnerType | '', level: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the partner'),
      type: (v) => (v ? null : 'Choose a type'),
    },
  });
  const create = useMutation({
    mutationFn: async (v: typeof form.values) => unwrap(await api.POST('/api/partners', {
      body: { name: v.name.trim(), type: v.type as PartnerType, ...(v.level ? { level: v.level } : {}) },
    })),
    onSuccess: async (p) => {
      notifications.show({ color: 'green', message: `${p.name} added` });
      await queryClient.invalidateQueries({ queryKey: ['partners'] });
      form.reset();
      onClose();
      await navigate(`/partners/${p.id}`);
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const defaultLevel = levels.data?.find((l) => l.isDefault)?.name;
  return (
    <Modal lockScroll={false} opened={opened} onClose={onClose} title="New partner">
      <form noValidate onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
        <Stack>
          <ErrorAlert error={create.error} shownFields={['name', 'type', 'level']} />
          <TextInput label="Name" required maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <Select label="Type" required allowDeselect={false} data={typeOptions} {...form.getInputProps('type')} />
          <Select label="Level" clearable data={(levels.data ?? []).map((l) => ({ value: l.name, label: l.name }))}
            placeholder={defaultLevel ? `Default: ${defaultLevel}` : 'The default level'}
            description="Leave empty for the program's default level" {...form.getInputProps('level')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={create.isPending}>Add partner</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
