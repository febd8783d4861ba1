import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  Anchor, Box, Button, Group, Modal, SegmentedControl, Select, Stack, Text, TextInput, Textarea, VisuallyHidden,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { AdminConfirmButton } from '../../ui/AdminConfirmButton';
import { oneOf, useAdminFilters } from '../../ui/AdminFilters';
import { useOperatorUsers } from '../../ui/AdminData';
import { PartnerName } from '../../ui/DataPartnerSelect';
import { SEARCH_MATCHES, SearchSelect } from '../../ui/SearchSelect';
import { CustomerSelect } from '../../ui/CustomerSelect';
import { AdminPartnerSelect, AdminUserSelect } from '../../ui/AdminPickers';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable, type Page } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDate } from '../../ui/format';

type Task = Schemas['Task'];

const linkTypes = ['deal', 'customer', 'partner'] as const;
// Playbooks also create tasks linked to their run (link type playbook_run).
const linkPaths: Record<string, string | undefined> = { deal: '/deals', customer: '/customers', partner: '/partners', playbook_run: '/playbook-runs' };

/** Picks what a task is about: a deal, a customer or a partner, searched on the server. */
function LinkTarget({ linkType, value, onChange, error }: { linkType: string; value: string; onChange: (v: string) => void; error?: string }) {
  const canDeals = useCan('deals:read');
  const canCustomers = useCan('customers:read');
  if (linkType === 'partner') return <AdminPartnerSelect label="Linked partner" value={value} onChange={onChange} error={error} />;
  if (linkType === 'deal') {
    return (
      <SearchSelect kind="deals" enabled={canDeals} label="Linked deal" description="Type part of the customer's company or the contact"
        nothingFoundMessage="No such deal" value={value} onChange={onChange} error={error}
        search={async (q) => unwrap(await api.GET('/api/deals', { params: { query: { limit: SEARCH_MATCHES, ...(q ? { q } : {}) } } }))
          .data.map((d) => ({ value: d.id, label: `${d.customerCompany} (${d.status})` }))}
        labelOf={async (id) => { const d = unwrap(await api.GET('/api/deals/{id}', { params: { path: { id } } })); return `${d.customerCompany} (${d.status})`; }} />
    );
  }
  return (
    <CustomerSelect enabled={canCustomers} label="Linked customer" description="Type part of the name, email or external id"
      value={value} onChange={onChange} error={error} />
  );
}

interface FormValues {
  title: string;
  description: string;
  dueDate: string;
  assigneeUserId: string;
  partnerId: string;
  linkType: string;
  linkId: string;
}

/** Creates a task, or edits one (its title, description, due date and assignee). */
function TaskForm({ task, onDone }: { task?: Task; onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<FormValues>({
    initialValues: {
      title: task?.title ?? '', description: task?.description ?? '', dueDate: task?.dueDate ?? '',
      assigneeUserId: task?.assigneeUserId ?? '', partnerId: task?.partnerId ?? '', linkType: task?.linkType ?? '', linkId: task?.linkId ?? '',
    },
    validate: {
      title: (v) => (v.trim() ? null : 'A task needs a title'),
      linkId: (v, vals) => (vals.linkType && !v ? 'Pick what the task is about' : null),
    },
  });
  const save = useMutation({
    mutationFn: async (v: FormValues) => {
      if (task) {
        return unwrap(await api.PATCH('/api/tasks/{id}', {
          params: { path: { id: task.id } },
          body: { title: v.title.trim(), description: v.description, dueDate: v.dueDate, assigneeUserId: v.assigneeUserId },
        }));
      }
      return unwrap(await api.POST('/api/tasks', {
        body: {
          title: v.title.trim(),
          description: v.description || undefined,
          dueDate: v.dueDate || undefined,
          assigneeUserId: v.assigneeUserId || undefined,
          partnerId: v.partnerId || undefined,
          linkType: oneOf(v.linkType, linkTypes),
          linkId: v.linkType ? v.linkId : undefined,
        },
      }));
    },
    onSuccess: async (t) => {
      notifications.show({ color: 'green', message: task ? `Task “${t.title}” saved` : `Task “${t.title}” created` });
      await queryClient.invalidateQueries({ queryKey: ['tasks'] });
      await queryClient.invalidateQueries({ queryKey: ['waiting'] });
      onDone();
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const shown = ['title', 'description', 'dueDate', 'assigneeUserId', 'partnerId', 'linkType', 'linkId'];
  return (
    <form onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <ErrorAlert error={save.error} shownFields={shown} />
        <TextInput label="Title" required data-autofocus {...form.getInputProps('title')} />
        <Textarea label="Description" autosize minRows={2} {...form.getInputProps('description')} />
        <TextInput label="Due date" type="date" {...form.getInputProps('dueDate')} />
        <AdminUserSelect label="Assignee" value={form.values.assigneeUserId} onChange={(v) => { form.setFieldValue('assigneeUserId', v); }}
          error={form.errors.assigneeUserId} />
        {!task && (
          <>
            <AdminPartnerSelect label="Partner organisation" description="The partner the task belongs to; partner users see it"
              value={form.values.partnerId} onChange={(v) => { form.setFieldValue('partnerId', v); }} error={form.errors.partnerId} />
            <Select label="About" clearable data={[{ value: 'deal', label: 'A deal' }, { value: 'customer', label: 'A customer' }, { value: 'partner', label: 'A partner' }]}
              value={form.values.linkType || null} onChange={(v) => { form.setValues({ linkType: v ?? '', linkId: '' }); }} error={form.errors.linkType} />
            {form.values.linkType && <LinkTarget linkType={form.values.linkType} value={form.values.linkId}
              onChange={(v) => { form.setFieldValue('linkId', v); }} error={form.errors.linkId as string | undefined} />}
          </>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>{task ? 'Save task' : 'Create task'}</Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Marks a task done or open again; the row changes at once (both calls are no-ops when repeated). */
function useToggleTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (t: Task) => t.status === 'open'
      ? unwrap(await api.POST('/api/tasks/{id}/complete', { params: { path: { id: t.id } } }))
      : unwrap(await api.POST('/api/tasks/{id}/reopen', { params: { path: { id: t.id } } })),
    onMutate: async (t) => {
      await queryClient.cancelQueries({ queryKey: ['tasks'] });
      const before = queryClient.getQueriesData<Page<Task>>({ queryKey: ['tasks'] });
      const status = t.status === 'open' ? 'done' : 'open';
      queryClient.setQueriesData<Page<Task>>({ queryKey: ['tasks'] }, (page) => page && Array.isArray(page.data)
        ? { ...page, data: page.data.map((r) => (r.id === t.id ? { ...r, status } : r)) }
        : page);
      return { before };
    },
    onError: (err, _t, ctx) => {
      for (const [key, data] of ctx?.before ?? []) queryClient.setQueryData(key, data);
      notifications.show({ color: 'red', title: 'Task not changed', message: err.message });
    },
    onSuccess: (t) => {
      notifications.show({ color: 'green', message: t.status === 'done' ? `“${t.title}” done` : `“${t.title}” open again` });
    },
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['tasks'] });
      await queryClient.invalidateQueries({ queryKey: ['waiting'] });
    },
  });
}

/** Follow-ups across the program: filter, create, complete, reopen, edit and delete tasks. */
export default function Tasks() {
  const me = useMe();
  const canWrite = useCan('tasks:write');
  const queryClient = useQueryClient();
  const [f, setF] = useAdminFilters(['status', 'partnerId', 'assigneeUserId', 'linkType', 'source'] as const);
  const [editing, setEditing] = useState<Task | 'new' | null>(null);
  const toggle = useToggleTask();
  const users = useOperatorUsers();
  const myId = me.data?.userId ?? '';
  const mine = !!myId && f.assigneeUserId === myId;

  const remove = useMutation({
    mutationFn: async (t: Task) => { unwrap(await api.DELETE('/api/tasks/{id}', { params: { path: { id: t.id } } })); return t; },
    onSuccess: async (t) => {
      notifications.show({ color: 'green', message: `Task “${t.title}” deleted` });
      await queryClient.invalidateQueries({ queryKey: ['tasks'] });
    },
    onError: (err) => { notifications.show({ color: 'red', title: 'Task not deleted', message: err.message }); },
  });

  const userName = (id?: string) => {
    if (!id) return '—';
    const u = users.data?.find((x) => x.id === id);
    return u ? (u.name || u.email) : id;
  };
  const query = {
    status: oneOf(f.status, ['open', 'done'] as const),
    partnerId: f.partnerId || undefined,
    assigneeUserId: f.assigneeUserId || undefined,
    linkType: oneOf(f.linkType, linkTypes),
    source: oneOf(f.source, ['manual', 'onboarding'] as const),
  };

  return (
    <Stack>
      <PageHeader title="Tasks" description="Follow-ups for your team and your partners: onboarding steps and manual to-dos."
        actions={canWrite && <Button onClick={() => { setEditing('new'); }}>New task</Button>} />
      <Group align="flex-end" wrap="wrap">
        {myId && (
          <SegmentedControl aria-label="Whose tasks" value={mine ? 'mine' : 'all'}
            data={[{ value: 'all', label: 'All' }, { value: 'mine', label: 'Mine' }]}
            onChange={(v) => { setF({ assigneeUserId: v === 'mine' ? myId : '' }); }} />
        )}
        <Select label="Status" clearable w={130} data={[{ value: 'open', label: 'Open' }, { value: 'done', label: 'Done' }]}
          value={f.status || null} onChange={(v) => { setF({ status: v }); }} />
        <AdminPartnerSelect label="Partner" w={200} value={f.partnerId} onChange={(v) => { setF({ partnerId: v }); }} />
        <AdminUserSelect label="Assignee" w={220} value={f.assigneeUserId} onChange={(v) => { setF({ assigneeUserId: v }); }} />
        <Select label="About" clearable w={140} data={[{ value: 'deal', label: 'Deals' }, { value: 'customer', label: 'Customers' }, { value: 'partner', label: 'Partners' }]}
          value={f.linkType || null} onChange={(v) => { setF({ linkType: v }); }} />
        <Select label="Source" clearable w={150} data={[{ value: 'manual', label: 'Manual' }, { value: 'onboarding', label: 'Onboarding' }]}
          value={f.source || null} onChange={(v) => { setF({ source: v }); }} />
      </Group>
      <PagedTable<Task>
        label="Tasks"
        queryKey={['tasks', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/tasks', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(t) => t.id}
        empty="No tasks match these filters."
        columns={[
          {
            header: 'Task', render: (t) => (
              <Stack gap={0}>
                <Text size="sm" fw={500} td={t.status === 'done' ? 'line-through' : undefined}>{t.title}</Text>
                {t.description && <Text size="xs" c="dimmed" lineClamp={2}>{t.description}</Text>}
              </Stack>
            ),
          },
          { header: 'Status', render: (t) => <Box miw={64}><StatusBadge status={t.status} /></Box> },
          { header: 'Due', render: (t) => <Text size="sm" style={{ whiteSpace: 'nowrap' }}>{formatDate(t.dueDate)}</Text> },
          { header: 'Assignee', render: (t) => userName(t.assigneeUserId) },
          { header: 'Partner', render: (t) => t.partnerId ? <PartnerName id={t.partnerId} /> : '—' },
          {
            header: 'About', render: (t) => t.linkType && t.linkId
              ? (linkPaths[t.linkType]
                ? <Anchor component={Link} to={`${linkPaths[t.linkType] ?? ''}/${t.linkId}`} size="sm">{t.linkType.replaceAll('_', ' ')}</Anchor>
                : t.linkType.replaceAll('_', ' '))
              : '—',
          },
          { header: 'Source', render: (t) => t.source },
          {
            header: <VisuallyHidden>Actions</VisuallyHidden>, render: (t) => canWrite && (
              <Group gap={4} wrap="nowrap">
                <Button size="xs" variant="light" color={t.status === 'open' ? 'green' : 'blue'}
                  aria-label={`${t.status === 'open' ? 'Complete' : 'Reopen'} ${t.title}`}
                  onClick={() => { toggle.mutate(t); }}>{t.status === 'open' ? 'Complete' : 'Reopen'}</Button>
                <Button size="xs" variant="default" aria-label={`Edit ${t.title}`} onClick={() => { setEditing(t); }}>Edit</Button>
                <AdminConfirmButton size="xs" label="Delete" aria-label={`Delete ${t.title}`} title="Delete this task?"
                  message={`“${t.title}” is removed for everyone. This cannot be undone.`}
                  onConfirm={() => remove.mutateAsync(t)} />
              </Group>
            ),
          },
        ]}
      />
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={editing !== null} onClose={() => { setEditing(null); }} title={editing === 'new' ? 'New task' : 'Edit task'} size="lg">
        {editing !== null && <TaskForm task={editing === 'new' ? undefined : editing} onDone={() => { setEditing(null); }} />}
      </Modal>
    </Stack>
  );
}
