import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Badge, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { notify } from '../../ui/DataNotify';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

type Dashboard = Schemas['Dashboard'];

function NewDashboard({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({ initialValues: { name: '' } });
  const create = useMutation({
    mutationFn: async (v: { name: string }) => unwrap(await api.POST('/api/dashboards', { body: { name: v.name.trim() } })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (d) => {
      await queryClient.invalidateQueries({ queryKey: ['dashboards'] });
      notify(`Dashboard ${d.name} created; add its widgets`);
      form.reset();
      onClose();
      await navigate(`/dashboards/${d.id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="New dashboard">
      <form onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
        <Stack>
          <ErrorAlert error={create.error} shownFields={['name']} />
          <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={create.isPending}>Create dashboard</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The dashboards partners see, per level, and the default one. */
export default function Dashboards() {
  const canWrite = useCan('dashboards:write');
  const [creating, setCreating] = useState(false);
  return (
    <Stack gap="md">
      <PageHeader title="Dashboards" description="Widgets over your metrics and events; partners see their level's dashboard with their own numbers only."
        actions={canWrite && <Button onClick={() => { setCreating(true); }}>New dashboard</Button>} />
      <PagedTable<Dashboard>
        label="Dashboards"
        queryKey={['dashboards', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/dashboards', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(d) => d.id}
        empty="No dashboards yet. Create one and give it widgets."
        columns={[
          { header: 'Name', render: (d) => <Anchor component={Link} to={`/dashboards/${d.id}`} size="sm">{d.name}</Anchor> },
          { header: 'Shown to', render: (d) => (
            <Group gap={4}>
              {d.isDefault && <Badge variant="light">Default</Badge>}
              {d.levels.map((l) => <Badge key={l} variant="default">{l}</Badge>)}
              {!d.isDefault && d.levels.length === 0 && '—'}
            </Group>
          ) },
          { header: 'Widgets', render: (d) => d.widgets.length, numeric: true },
          { header: 'Updated', render: (d) => <DateTime value={d.updatedAt} /> },
        ]}
      />
      {canWrite && <NewDashboard opened={creating} onClose={() => { setCreating(false); }} />}
    </Stack>
  );
}
