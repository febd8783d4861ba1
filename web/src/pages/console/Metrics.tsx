import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Badge, Button, Code, Group, Modal, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { MetricFields } from '../../ui/DataMetricForm';
import { metricBody, metricFields, metricValues, type MetricValues } from '../../ui/DataValues';
import { metricKindLabels } from '../../ui/dash/widgets';

type Metric = Schemas['Metric'];

function DefineMetric({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<MetricValues>({ initialValues: metricValues() });
  const create = useMutation({
    mutationFn: async (v: MetricValues) => unwrap(await api.POST('/api/metrics', { body: metricBody(v) })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (m) => {
      await queryClient.invalidateQueries({ queryKey: ['metrics'] });
      notify(`Metric ${m.name} defined`);
      form.reset();
      onClose();
      await navigate(`/metrics/${m.id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Define a metric" size="lg">
      <form onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
        <Stack>
          <ErrorAlert error={create.error} shownFields={metricFields(form.values.filters.length)} />
          <MetricFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={create.isPending}>Define metric</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The metrics defined over the event log, for dashboards and reports. */
export default function Metrics() {
  const canWrite = useCan('metrics:write');
  const [defining, setDefining] = useState(false);
  return (
    <Stack gap="md">
      <PageHeader title="Metrics" description="Counts, sums and distinct values over your events, CSAT and NPS from survey answers, and the return on market development funds; dashboards show them, partners see their own share."
        actions={canWrite && <Button onClick={() => { setDefining(true); }}>Define metric</Button>} />
      <PagedTable<Metric>
        label="Metrics"
        queryKey={['metrics', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/metrics', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(m) => m.id}
        empty="No metrics yet. Define one to count or add up events."
        columns={[
          { header: 'Name', render: (m) => <Anchor component={Link} to={`/metrics/${m.id}`} size="sm">{m.name}</Anchor> },
          { header: 'Kind', render: (m) => <Badge variant="default">{metricKindLabels[m.kind]}</Badge> },
          { header: 'Event type', render: (m) => <Code>{m.eventType}</Code> },
          { header: 'Field', render: (m) => m.field ? <Code>{m.field}</Code> : '—' },
          { header: 'Filters', render: (m) => m.filters.length || '—', numeric: true },
          { header: 'Updated', render: (m) => <DateTime value={m.updatedAt} /> },
        ]}
      />
      {canWrite && <DefineMetric opened={defining} onClose={() => { setDefining(false); }} />}
    </Stack>
  );
}
