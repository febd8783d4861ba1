import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { Anchor, Badge, Button, Group, NativeSelect, Stack, Text, VisuallyHidden } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDate, formatDateTime } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';

type Task = Schemas['Task'];

function About({ t }: { t: Task }) {
  if (!t.linkId) return <>—</>;
  if (t.linkType === 'deal') return <Anchor component={Link} to={`/portal/deals/${t.linkId}`} size="sm">Deal</Anchor>;
  if (t.linkType === 'customer') return <Anchor component={Link} to={`/portal/customers/${t.linkId}`} size="sm">Customer</Anchor>;
  return <Text size="sm">Your organisation</Text>;
}

/** The partner's onboarding steps and other tasks; completing and reopening them. */
export default function Tasks() {
  const canWrite = useCan('tasks:write');
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? 'open') as '' | 'open' | 'done';
  const source = (params.get('source') ?? '') as '' | 'onboarding' | 'manual';
  const set = (key: string, value: string) => {
    setParams((p) => { p.set(key, value); return p; }, { replace: true });
  };

  const toggle = useMutation({
    mutationFn: async (t: Task) => t.status === 'open'
      ? unwrap(await api.POST('/api/tasks/{id}/complete', { params: { path: { id: t.id } } }))
      : unwrap(await api.POST('/api/tasks/{id}/reopen', { params: { path: { id: t.id } } })),
    onSuccess: async (t) => {
      notifications.show({ color: 'green', message: t.status === 'done' ? `Done: ${t.title}` : `Reopened: ${t.title}` });
      await queryClient.invalidateQueries({ queryKey: ['tasks'] });
    },
  });

  const query = { status: status || undefined, source: source || undefined };
  return (
    <Stack>
      <PageHeader title="Tasks" description="Your onboarding checklist and the tasks the program shares with you." />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NativeSelect label="Status" value={status} onChange={(e) => { set('status', e.currentTarget.value); }}
          data={[{ value: 'open', label: 'Open' }, { value: 'done', label: 'Done' }, { value: '', label: 'All' }]} />
        <NativeSelect label="Kind" value={source} onChange={(e) => { set('source', e.currentTarget.value); }}
          data={[{ value: '', label: 'All tasks' }, { value: 'onboarding', label: 'Onboarding' }, { value: 'manual', label: 'Other tasks' }]} />
      </Group>
      <ErrorAlert error={toggle.error} />
      <PagedTable<Task>
        label="Tasks"
        queryKey={['tasks', 'mine', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/tasks', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(t) => t.id}
        empty={status === 'open' ? 'Nothing open: you are all caught up.' : 'No tasks here.'}
        columns={[
          { header: 'Task', render: (t) => (
            <Stack gap={2}>
              <Group gap={6}><Text size="sm" fw={500}>{t.title}</Text>{t.source === 'onboarding' && <Badge size="xs" variant="outline">Onboarding</Badge>}</Group>
              {t.description && <Text size="xs" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>{t.description}</Text>}
            </Stack>
          ) },
          { header: 'About', render: (t) => <About t={t} /> },
          { header: 'Due', render: (t) => formatDate(t.dueDate) },
          { header: 'Status', render: (t) => (
            <Stack gap={0} miw="max-content">
              <StatusBadge status={t.status} />
              {t.completedAt && <Text size="xs" c="dimmed">{formatDateTime(t.completedAt)}</Text>}
            </Stack>
          ) },
          ...(canWrite ? [{ header: <VisuallyHidden>Action</VisuallyHidden>, render: (t: Task) => (
            <Button size="xs" variant={t.status === 'open' ? 'light' : 'default'}
              loading={toggle.isPending && toggle.variables.id === t.id}
              aria-label={`${t.status === 'open' ? 'Mark done' : 'Reopen'}: ${t.title}`}
              onClick={() => { toggle.mutate(t); }}>
              {t.status === 'open' ? 'Mark done' : 'Reopen'}
            </Button>
          ) }] : []),
        ]}
      />
    </Stack>
  );
}
