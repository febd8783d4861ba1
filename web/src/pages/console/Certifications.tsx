import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Group, Modal, NativeSelect, NumberInput, Stack, TextInput, Textarea } from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { oneOf, useAdminFilters } from '../../ui/AdminFilters';
import { courseStatuses, type Course } from '../../ui/certificationData';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';

/** Certification courses: content to study and a quiz; partner users who pass get a certificate. */
export default function Certifications() {
  const canManage = useCan('certifications:manage');
  const [f, set] = useAdminFilters(['status'] as const);
  const [creating, setCreating] = useState(false);
  const status = oneOf(f.status, courseStatuses);
  return (
    <Stack>
      <PageHeader title="Certifications" description="Courses partner users take: content items to study and a quiz. A pass issues a certificate valid for the course's days."
        actions={canManage && <Button onClick={() => { setCreating(true); }}>New course</Button>} />
      <Group gap="sm" align="flex-end">
        <NativeSelect label="Status" value={f.status} onChange={(e) => { set({ status: e.currentTarget.value }); }}
          data={[{ value: '', label: 'All statuses' }, ...courseStatuses.map((s) => ({ value: s, label: s.charAt(0).toUpperCase() + s.slice(1) }))]} />
      </Group>
      <PagedTable<Course>
        label="Courses"
        queryKey={['courses', 'list', { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/courses', { params: { query: { status, cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty={status ? 'No course has this status.' : 'No courses yet.'}
        columns={[
          { header: 'Title', render: (c) => <Anchor component={Link} to={`/certifications/${c.id}`}>{c.title}</Anchor> },
          { header: 'Status', render: (c) => <StatusBadge status={c.status} /> },
          { header: 'Items', render: (c) => String(c.itemIds.length) },
          { header: 'Questions', render: (c) => String(c.questions.length) },
          { header: 'Pass mark', render: (c) => `${String(c.passMark)}%` },
          { header: 'Valid for', render: (c) => `${String(c.validityDays)} days` },
          { header: 'Updated', render: (c) => <DateTime value={c.updatedAt} /> },
        ]}
      />
      <Modal opened={creating} onClose={() => { setCreating(false); }} title="New course" closeButtonProps={{ 'aria-label': 'Close' }}>
        {creating && <CourseForm />}
      </Modal>
    </Stack>
  );
}

function CourseForm() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [v, setV] = useState({ title: '', description: '', passMark: 80, maxAttempts: 3, validityDays: 365 });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/courses', { body: {
      title: v.title.trim(), description: v.description.trim() || undefined, passMark: v.passMark, maxAttempts: v.maxAttempts, validityDays: v.validityDays,
    } })),
    onSuccess: async (c) => { notify('Course added'); await queryClient.invalidateQueries({ queryKey: ['courses'] }); void navigate(`/certifications/${c.id}`); },
  });
  const errs = fieldErrors(create.error);
  const num = (k: 'passMark' | 'maxAttempts' | 'validityDays') => (x: string | number) => { setV((s) => ({ ...s, [k]: typeof x === 'number' ? x : 0 })); };
  return (
    <form onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
      <Stack>
        <TextInput label="Title" required maxLength={200} value={v.title} error={errs.title} data-autofocus
          onChange={(e) => { const title = e.currentTarget.value; setV((s) => ({ ...s, title })); }} />
        <Textarea label="Description" autosize minRows={2} maxLength={5000} value={v.description} error={errs.description}
          onChange={(e) => { const description = e.currentTarget.value; setV((s) => ({ ...s, description })); }} />
        <Group grow align="flex-start">
          <NumberInput label="Pass mark (%)" required min={1} max={100} value={v.passMark} onChange={num('passMark')} error={errs.passMark} />
          <NumberInput label="Attempts" required min={1} max={100} value={v.maxAttempts} onChange={num('maxAttempts')} error={errs.maxAttempts} />
          <NumberInput label="Valid for (days)" required min={1} max={3650} value={v.validityDays} onChange={num('validityDays')} error={errs.validityDays} />
        </Group>
        <ErrorAlert error={create.error} shownFields={['title', 'description', 'passMark', 'maxAttempts', 'validityDays']} />
        <Group justify="flex-end"><Button type="submit" disabled={!v.title.trim()} loading={create.isPending}>Add course</Button></Group>
      </Stack>
    </form>
  );
}
