import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import {
  ActionIcon, Anchor, Badge, Button, Card, Checkbox, Code, CopyButton, Group, Modal, NumberInput, SegmentedControl, Stack, TagsInput, Text,
  TextInput, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { label } from './partnerOptions';

type Application = Schemas['Application'];
type ApplicationForm = Schemas['ApplicationFormBody'];
interface QuestionRow { key: string; label: string; required: boolean; options: string[] }
interface FormValues { questions: QuestionRow[]; reapplyAfterDays: number | string; autoApproveDomains: string[] }
const statuses = ['pending', 'approved', 'rejected'] as const;
type Status = (typeof statuses)[number];

/** Applications to join the program, pending ones first. */
export default function Applications() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('status') ?? 'pending';
  const status: Status = (statuses as readonly string[]).includes(raw) ? raw as Status : 'pending';
  return (
    <Stack>
      <PageHeader title="Applications" description="Organisations that applied to become partners through your public application form."
        actions={<ApplicationFormButton />} />
      <PublicLink />
      <SegmentedControl aria-label="Status" w="fit-content" value={status}
        data={statuses.map((s) => ({ value: s, label: label(s) }))}
        onChange={(v) => { setParams(v === 'pending' ? {} : { status: v }, { replace: true }); }} />
      <PagedTable<Application>
        label={`${label(status)} applications`}
        queryKey={['applications', 'list', { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/applications', { params: { query: { cursor, limit: 25, status } } }))}
        rowKey={(a) => a.id}
        empty={status === 'pending' ? 'No application waits for a decision.' : `No ${status} applications.`}
        columns={[
          { header: 'Organisation', render: (a) => <Anchor component={Link} to={`/applications/${a.id}`}>{a.organisation}</Anchor> },
          { header: 'Contact', render: (a) => <><Text size="sm">{a.contactName}</Text><Text size="xs" c="dimmed">{a.contactEmail}</Text></> },
          { header: 'Type', render: (a) => label(a.partnerType) },
          { header: 'Status', render: (a) => <>
            <StatusBadge status={a.status} />{a.autoApproved && <Badge ml={4} variant="outline" size="sm">auto</Badge>}
          </> },
          { header: 'Received', render: (a) => <DateTime value={a.createdAt} /> },
          ...(status === 'pending' ? [] : [{ header: 'Decided', render: (a: Application) => <DateTime value={a.decidedAt} /> }]),
        ]}
      />
    </Stack>
  );
}

/** Where organisations apply: the program's public application page, to link from its website. */
function PublicLink() {
  const me = useMe();
  if (!me.data) return null;
  const link = `${location.origin}/apply/${me.data.tenant.slug}`;
  return (
    <Group gap="xs">
      <Text size="sm">Public application page:</Text>
      <Code>{link}</Code>
      <CopyButton value={link}>
        {({ copied, copy }) => <Button variant="light" size="compact-xs" onClick={copy} aria-label="Copy the application page's address">{copied ? 'Copied' : 'Copy'}</Button>}
      </CopyButton>
      <Anchor href={link} target="_blank" rel="noopener noreferrer" size="sm">Open</Anchor>
    </Group>
  );
}

const KEY = /^[a-z0-9_]{1,64}$/;
const MAX_QUESTIONS = 50;

function valuesOf(f: ApplicationForm): FormValues {
  return {
    questions: f.questions.map((q) => ({ key: q.key, label: q.label, required: q.required ?? false, options: q.options ?? [] })),
    reapplyAfterDays: f.reapplyAfterDays,
    autoApproveDomains: f.autoApproveDomains,
  };
}

/** Opens the public application form's questions and rules: to change them, or only to read them. */
function ApplicationFormButton() {
  const canWrite = useCan('applications:write');
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="default" onClick={() => { setOpen(true); }}>{canWrite ? 'Edit the application form' : 'The application form'}</Button>
      {open && <ApplicationFormDialog canWrite={canWrite} onClose={() => { setOpen(false); }} />}
    </>
  );
}

/** The questions applicants answer beyond their organisation and contact, who is approved at once, and when the rejected may apply again. */
function ApplicationFormDialog({ canWrite, onClose }: { canWrite: boolean; onClose: () => void }) {
  const current = useQuery({ queryKey: ['application-form'], queryFn: async () => unwrap(await api.GET('/api/application-form')) });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title="Application form" size="xl" closeButtonProps={{ 'aria-label': 'Close' }}>
      <ErrorAlert error={current.error} />
      {current.data && <ApplicationFormEditor form={current.data} canWrite={canWrite} onDone={onClose} />}
    </Modal>
  );
}

function ApplicationFormEditor({ form: initial, canWrite, onDone }: { form: ApplicationForm; canWrite: boolean; onDone: () => void }) {
  const queryClient = useQueryClient();
  const ro = !canWrite;
  const form = useForm<FormValues>({
    initialValues: valuesOf(initial),
    validate: {
      questions: {
        key: (v, values) => {
          if (!KEY.test(v)) return 'Lower-case letters, digits and _ only, at most 64';
          return values.questions.filter((q) => q.key === v).length > 1 ? 'Another question has this key' : null;
        },
        label: (v) => (v.trim() ? null : 'Write the question'),
      },
    },
  });
  const save = useMutation({
    mutationFn: async (v: FormValues) => unwrap(await api.PUT('/api/application-form', { body: {
      questions: v.questions.map((q) => ({ key: q.key, label: q.label.trim(), required: q.required, options: q.options.length ? q.options : null })),
      reapplyAfterDays: typeof v.reapplyAfterDays === 'number' ? v.reapplyAfterDays : Number(v.reapplyAfterDays) || 0,
      autoApproveDomains: v.autoApproveDomains.map((d) => d.trim().toLowerCase()).filter(Boolean),
    } })),
    onSuccess: (f) => { queryClient.setQueryData(['application-form'], f); notify('Application form saved'); onDone(); },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const rows = form.values.questions;
  const shown = ['reapplyAfterDays', 'autoApproveDomains', ...rows.flatMap((_, i) => ['key', 'label', 'options'].map((k) => `questions[${String(i)}].${k}`))];
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <Text size="sm" c="dimmed">Every applicant gives their organisation, partner type and contact; these questions come after.</Text>
        <ErrorAlert error={save.error} shownFields={shown} />
        {rows.length === 0 && <Text size="sm">No questions of your own.</Text>}
        {rows.map((_, i) => (
          <Card key={i} withBorder component="fieldset" aria-label={`Question ${String(i + 1)}`} style={{ margin: 0 }}>
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={3} size="h5">Question {i + 1}</Title>
                {canWrite && (
                  <Group gap={4}>
                    <ActionIcon variant="subtle" aria-label={`Move question ${String(i + 1)} up`} disabled={i === 0}
                      onClick={() => { form.reorderListItem('questions', { from: i, to: i - 1 }); }}>↑</ActionIcon>
                    <ActionIcon variant="subtle" aria-label={`Move question ${String(i + 1)} down`} disabled={i === rows.length - 1}
                      onClick={() => { form.reorderListItem('questions', { from: i, to: i + 1 }); }}>↓</ActionIcon>
                    <ActionIcon variant="subtle" color="red.9" aria-label={`Remove question ${String(i + 1)}`}
                      onClick={() => { form.removeListItem('questions', i); }}>×</ActionIcon>
                  </Group>
                )}
              </Group>
              <Group align="flex-start" grow>
                <TextInput label="Question" required maxLength={500} readOnly={ro} {...form.getInputProps(`questions.${String(i)}.label`)} />
                <TextInput label="Key" description="Names the answer: a-z, 0-9 and _" required maxLength={64} readOnly={ro} maw={220}
                  {...form.getInputProps(`questions.${String(i)}.key`)} />
              </Group>
              <TagsInput label="Choices" description="Leave empty for a free answer; otherwise the answer is one of these" maxTags={50} readOnly={ro}
                {...form.getInputProps(`questions.${String(i)}.options`)} />
              <Checkbox label="Required" disabled={ro} {...form.getInputProps(`questions.${String(i)}.required`, { type: 'checkbox' })} />
            </Stack>
          </Card>
        ))}
        {canWrite && (
          <Group>
            <Button variant="default" size="xs" disabled={rows.length >= MAX_QUESTIONS}
              onClick={() => { form.insertListItem('questions', { key: `question_${String(rows.length + 1)}`, label: '', required: false, options: [] }); }}>Add a question</Button>
          </Group>
        )}
        <NumberInput label="Reapply after (days)" description="How long a rejected applicant waits before applying again" min={0} max={3650}
          allowDecimal={false} readOnly={ro} maw={260} {...form.getInputProps('reapplyAfterDays')} />
        <TagsInput label="Approve at once from these email domains" description="An applicant whose contact email is at one of these domains becomes a partner without review"
          maxTags={100} readOnly={ro} {...form.getInputProps('autoApproveDomains')} />
        {canWrite && (
          <Group justify="flex-end">
            <Button variant="default" onClick={onDone}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save the form</Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
