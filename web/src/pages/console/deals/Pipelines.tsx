import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import {
  ActionIcon, Badge, Button, Checkbox, Group, Modal, NumberInput, Select, Stack, Table, Text, TextInput,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../../api/client';
import { useCan } from '../../../auth/useCan';
import { DateTime } from '../../../ui/DateTime';
import { ErrorAlert } from '../../../ui/ErrorAlert';
import { PagedTable } from '../../../ui/PagedTable';
import { notify, type Pipeline } from './data';

type StageInput = Schemas['StageInput'];

/** The tenant's pipelines with their stages, and a form for a new one. */
export function Pipelines() {
  const canWrite = useCan('pipelines:write');
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">Registrations start in the default pipeline's first open stage. A won stage wins a deal, a lost stage closes it.</Text>
        {canWrite && <Button onClick={() => { setCreating(true); }}>New pipeline</Button>}
      </Group>
      <PagedTable<Pipeline>
        label="Pipelines"
        queryKey={['pipelines', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/pipelines', { params: { query: { cursor, limit: 20 } } }))}
        rowKey={(p) => p.id}
        empty="No pipeline yet."
        columns={[
          { header: 'Name', render: (p) => <Group gap={6}><Text fw={500}>{p.name}</Text>{p.isDefault && <Badge variant="light">default</Badge>}</Group> },
          {
            header: 'Stages in order',
            render: (p) => (
              <Group gap={4}>
                {[...p.stages].sort((a, b) => a.position - b.position).map((s) => (
                  <Badge key={s.id} variant="dot" color={s.outcome === 'won' ? 'green' : s.outcome === 'lost' ? 'red' : 'gray'}
                    title={`${s.outcome}, ${String(s.probability)}% likely to be won`}>
                    {s.name} · {s.probability}%
                  </Badge>
                ))}
              </Group>
            ),
          },
          { header: 'Created', render: (p) => <DateTime value={p.createdAt} /> },
        ]} />
      {canWrite && <Modal lockScroll={false} closeButtonProps={{ 'aria-label': 'Close' }} opened={creating} onClose={() => { setCreating(false); }} title="New pipeline" size="lg">
        <CreatePipeline onDone={() => { setCreating(false); }} />
      </Modal>}
    </Stack>
  );
}

const outcomes = [
  { value: 'open', label: 'Open' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
];

/** Name, default flag and stages in order: at least one open, one won and one lost. */
function CreatePipeline({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const form = useForm<{ name: string; isDefault: boolean; stages: StageInput[] }>({
    initialValues: {
      name: '',
      isDefault: false,
      stages: [
        { name: 'Registered', outcome: 'open', probability: 10 },
        { name: 'Qualified', outcome: 'open', probability: 40 },
        { name: 'Won', outcome: 'won', probability: 100 },
        { name: 'Lost', outcome: 'lost', probability: 0 },
      ],
    },
    validate: {
      name: (v) => (v.trim() ? null : 'Required'),
      stages: { name: (v) => (v.trim() ? null : 'Required') },
    },
  });
  const create = useMutation({
    mutationFn: async (body: Schemas['CreatePipelineInputBody']) => unwrap(await api.POST('/api/pipelines', { body })),
    onSuccess: async (p) => {
      notify('green', `Pipeline ${p.name} created with ${String(p.stages.length)} stages.`);
      await qc.invalidateQueries({ queryKey: ['pipelines'] });
      onDone();
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const stages = form.getValues().stages;
  const move = (i: number, to: number) => { form.reorderListItem('stages', { from: i, to }); };
  const shown = ['name', 'isDefault', ...stages.flatMap((_, i) => [`stages[${String(i)}].name`, `stages[${String(i)}].outcome`, `stages[${String(i)}].probability`]), 'stages'];

  return (
    <form onSubmit={form.onSubmit((v) => { create.mutate({ ...v, name: v.name.trim() }); })}>
      <Stack>
        <TextInput label="Name" required maxLength={200} data-autofocus {...form.getInputProps('name')} />
        <Checkbox label="Make it the default pipeline for new registrations" {...form.getInputProps('isDefault', { type: 'checkbox' })} />
        <Table aria-label="Stages">
          <Table.Thead>
            <Table.Tr><Table.Th>#</Table.Th><Table.Th>Stage</Table.Th><Table.Th>Outcome</Table.Th><Table.Th>Win chance %</Table.Th><Table.Th><Text component="span" size="sm" fw={700}>Order</Text></Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {stages.map((_, i) => (
              <Table.Tr key={form.key(`stages.${String(i)}`)}>
                <Table.Td>{i + 1}</Table.Td>
                <Table.Td><TextInput aria-label={`Stage ${String(i + 1)} name`} required maxLength={200} {...form.getInputProps(`stages.${String(i)}.name`)} /></Table.Td>
                <Table.Td w={120}>
                  <Select aria-label={`Stage ${String(i + 1)} outcome`} data={outcomes} allowDeselect={false} {...form.getInputProps(`stages.${String(i)}.outcome`)} />
                </Table.Td>
                <Table.Td w={110}>
                  <NumberInput aria-label={`Stage ${String(i + 1)} win chance in percent`} min={0} max={100} allowDecimal={false} clampBehavior="strict"
                    {...form.getInputProps(`stages.${String(i)}.probability`)} />
                </Table.Td>
                <Table.Td>
                  <Group gap={2} wrap="nowrap">
                    <ActionIcon variant="subtle" aria-label={`Move stage ${String(i + 1)} up`} disabled={i === 0} onClick={() => { move(i, i - 1); }}>↑</ActionIcon>
                    <ActionIcon variant="subtle" aria-label={`Move stage ${String(i + 1)} down`} disabled={i === stages.length - 1} onClick={() => { move(i, i + 1); }}>↓</ActionIcon>
                    <ActionIcon variant="subtle" color="red" aria-label={`Remove stage ${String(i + 1)}`} disabled={stages.length <= 3}
                      onClick={() => { form.removeListItem('stages', i); }}>×</ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {typeof form.errors.stages === 'string' && <Text c="red" size="sm">{form.errors.stages}</Text>}
        <Group>
          <Button variant="default" size="xs" disabled={stages.length >= 30}
            onClick={() => {
              const firstClosed = stages.findIndex((s) => s.outcome !== 'open');
              form.insertListItem('stages', { name: '', outcome: 'open', probability: 50 }, firstClosed < 0 ? stages.length : firstClosed);
            }}>
            Add a stage
          </Button>
        </Group>
        <ErrorAlert error={create.error} shownFields={shown} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create pipeline</Button>
        </Group>
      </Stack>
    </form>
  );
}
