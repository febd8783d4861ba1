import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon, Button, Card, Checkbox, Fieldset, Group, Loader, Modal, NumberInput, Stack, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { attemptText, quizInput, useContentItem, type Certificate, type Course, type QuestionInput, type QuizAttempt } from '../../ui/certificationData';
import { VisibilityFields } from '../../ui/Content';
import { visibilityText, type Visibility } from '../../ui/contentData';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { PersonName } from './money/shared';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { SEARCH_MATCHES, SearchSelect } from '../../ui/SearchSelect';
import { StatusBadge } from '../../ui/StatusBadge';

/** One course: its content, who sees it, its quiz; publishing and archiving; attempts and certificates. */
export default function CourseDetail() {
  const { id = '' } = useParams();
  const canManage = useCan('certifications:manage');
  const course = useQuery({
    queryKey: ['courses', 'one', id], retry: false,
    queryFn: async () => unwrap(await api.GET('/api/courses/{id}', { params: { path: { id } } })),
  });
  if (course.isPending) return <Loader aria-label="Loading course" />;
  if (course.isError) return <ErrorAlert error={course.error} />;
  const c = course.data;
  return (
    <Stack>
      <PageHeader title={c.title} description={<><StatusBadge status={c.status} /> {c.description}</>}
        actions={canManage && <StatusActions course={c} />} />
      {canManage && c.status !== 'archived'
        ? <CourseEditor key={c.updatedAt} course={c} />
        : <CourseSummary course={c} />}
      <Results courseId={c.id} />
    </Stack>
  );
}

function StatusActions({ course: c }: { course: Course }) {
  const queryClient = useQueryClient();
  const [publishing, setPublishing] = useState(false);
  const done = async (what: string) => { notify(what); await queryClient.invalidateQueries({ queryKey: ['courses'] }); };
  const publish = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/courses/{id}/publish', { params: { path: { id: c.id } } })),
    onSuccess: async () => { setPublishing(false); await done('Course published'); },
  });
  return (
    <Group gap="xs">
      {c.status === 'draft' && <Button onClick={() => { publish.reset(); setPublishing(true); }}>Publish</Button>}
      {c.status === 'published' && (
        <ConfirmButton label="Archive" title="Archive this course?" confirmLabel="Archive course"
          message="Partner users can no longer enrol or take its quiz. Certificates already issued stay valid until they expire."
          onConfirm={async () => { unwrap(await api.POST('/api/courses/{id}/archive', { params: { path: { id: c.id } } })); await done('Course archived'); }} />
      )}
      <Modal opened={publishing} onClose={() => { setPublishing(false); }} title="Publish this course?" closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack>
          <Text size="sm">Partners it is visible to can take it. Once published, its quiz, pass mark, attempts and validity never change; to change them, write a new course.</Text>
          <ErrorAlert error={publish.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setPublishing(false); }}>Cancel</Button>
            <Button loading={publish.isPending} onClick={() => { publish.mutate(); }}>Publish course</Button>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}

/** A content item's title (a link is marked as such). */
function ItemTitle({ id }: { id: string }) {
  const item = useContentItem(id);
  return <Text size="sm">{item.data ? `${item.data.title}${item.data.kind === 'link' ? ' (link)' : ''}` : id}</Text>;
}

/** An archived course, or any course for whoever may not change it. */
function CourseSummary({ course: c }: { course: Course }) {
  return (
    <Card withBorder component="section" aria-labelledby="summary-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="summary-title">Course</Title>
        <Text size="sm">Pass mark {c.passMark}% · {c.maxAttempts} attempts · certificates valid {c.validityDays} days · {c.questions.length} questions</Text>
        <Text size="sm">Who sees it: {visibilityText(c.visibility, (x) => x)}</Text>
        {c.itemIds.map((i) => <ItemTitle key={i} id={i} />)}
      </Stack>
    </Card>
  );
}

const emptyQuestion = (): QuestionInput => ({ text: '', multiple: false, options: [{ text: '', correct: true }, { text: '', correct: false }] });

function CourseEditor({ course: c }: { course: Course }) {
  const queryClient = useQueryClient();
  const canContent = useCan('content:read');
  const locked = c.status !== 'draft';
  const [v, setV] = useState({ title: c.title, description: c.description ?? '', passMark: c.passMark, maxAttempts: c.maxAttempts, validityDays: c.validityDays });
  const [itemIds, setItemIds] = useState(c.itemIds);
  const [vis, setVis] = useState<Visibility>(c.visibility ?? { allPartners: false, levels: [], partnerIds: [] });
  const [questions, setQuestions] = useState<QuestionInput[]>(quizInput(c.questions));
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/courses/{id}', { params: { path: { id: c.id } }, body: {
      title: v.title.trim(), description: v.description.trim(), itemIds, visibility: vis,
      ...(locked ? {} : { passMark: v.passMark, maxAttempts: v.maxAttempts, validityDays: v.validityDays, questions }),
    } })),
    onSuccess: async () => { notify('Course saved'); await queryClient.invalidateQueries({ queryKey: ['courses'] }); },
  });
  const errs = fieldErrors(save.error);
  const num = (k: 'passMark' | 'maxAttempts' | 'validityDays') => (x: string | number) => { setV((s) => ({ ...s, [k]: typeof x === 'number' ? x : 0 })); };
  const setQ = (i: number, q: QuestionInput) => { setQuestions((qs) => qs.map((x, j) => (j === i ? q : x))); };
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <Stack>
        <Card withBorder component="section" aria-labelledby="course-title">
          <Stack gap="sm">
            <Title order={2} size="h4" id="course-title">Course</Title>
            <TextInput label="Title" required maxLength={200} value={v.title} error={errs.title}
              onChange={(e) => { const title = e.currentTarget.value; setV((s) => ({ ...s, title })); }} />
            <Textarea label="Description" autosize minRows={2} maxLength={5000} value={v.description} error={errs.description}
              onChange={(e) => { const description = e.currentTarget.value; setV((s) => ({ ...s, description })); }} />
            <Group grow align="flex-start">
              <NumberInput label="Pass mark (%)" required min={1} max={100} disabled={locked} value={v.passMark} onChange={num('passMark')} error={errs.passMark} />
              <NumberInput label="Attempts" description="Before a pass; a pass gives them back" required min={1} max={100} disabled={locked} value={v.maxAttempts} onChange={num('maxAttempts')} error={errs.maxAttempts} />
              <NumberInput label="Valid for (days)" required min={1} max={3650} disabled={locked} value={v.validityDays} onChange={num('validityDays')} error={errs.validityDays} />
            </Group>
            <VisibilityFields value={vis} onChange={setVis} />
          </Stack>
        </Card>
        <Card withBorder component="section" aria-labelledby="items-title">
          <Stack gap="sm">
            <Title order={2} size="h4" id="items-title">Content to study</Title>
            <Text size="sm" c="dimmed">Items of the content library, in order. A partner sees, and must complete, only the items the library lets it see.</Text>
            {itemIds.length === 0 && <Text size="sm">No items: the course is its quiz alone.</Text>}
            <Stack gap={4} component="ol" m={0} pl="md" aria-label="Course items">
              {itemIds.map((i, n) => (
                <li key={i}>
                  <Group gap="xs">
                    <ItemTitle id={i} />
                    <Button size="compact-xs" variant="subtle" disabled={n === 0} aria-label={`Move item ${String(n + 1)} up`}
                      onClick={() => { setItemIds((ids) => [...ids.slice(0, n - 1), i, ...ids.slice(n - 1, n), ...ids.slice(n + 1)]); }}>Up</Button>
                    <Button size="compact-xs" variant="outline" color="red.9" aria-label={`Remove item ${String(n + 1)}`}
                      onClick={() => { setItemIds((ids) => ids.filter((x) => x !== i)); }}>Remove</Button>
                  </Group>
                </li>
              ))}
            </Stack>
            <SearchSelect kind="content-items" enabled={canContent} label="Add a content item" placeholder="Search the library" nothingFoundMessage="No item by that title" value=""
              search={async (q) => unwrap(await api.GET('/api/content/items', { params: { query: { limit: SEARCH_MATCHES, ...(q ? { q } : {}) } } }))
                .data.filter((x) => !itemIds.includes(x.id)).map((x) => ({ value: x.id, label: x.title }))}
              labelOf={async (x) => unwrap(await api.GET('/api/content/items/{id}', { params: { path: { id: x } } })).title}
              onChange={(x) => { if (x && !itemIds.includes(x)) setItemIds((ids) => [...ids, x]); }} />
          </Stack>
        </Card>
        <Card withBorder component="section" aria-labelledby="quiz-title">
          <Stack gap="sm">
            <Title order={2} size="h4" id="quiz-title">Quiz</Title>
            <Text size="sm" c="dimmed">{locked
              ? 'The quiz of a published course never changes.'
              : 'A question is right when exactly its right options are chosen. Publishing needs at least one question.'}</Text>
            {questions.map((q, i) => <QuestionEditor key={i} n={i + 1} q={q} disabled={locked} onChange={(x) => { setQ(i, x); }}
              onRemove={() => { setQuestions((qs) => qs.filter((_, j) => j !== i)); }} />)}
            {!locked && <Group><Button variant="default" onClick={() => { setQuestions((qs) => [...qs, emptyQuestion()]); }}>Add a question</Button></Group>}
          </Stack>
        </Card>
        <ErrorAlert error={save.error} shownFields={['title', 'description', 'passMark', 'maxAttempts', 'validityDays']} />
        <Group justify="flex-end"><Button type="submit" disabled={!v.title.trim()} loading={save.isPending}>Save course</Button></Group>
      </Stack>
    </form>
  );
}

function QuestionEditor({ n, q, disabled, onChange, onRemove }: { n: number; q: QuestionInput; disabled: boolean; onChange: (q: QuestionInput) => void; onRemove: () => void }) {
  const options = q.options ?? [];
  const setOption = (j: number, o: { text: string; correct?: boolean }) => { onChange({ ...q, options: options.map((x, k) => (k === j ? o : x)) }); };
  const markRight = (j: number, right: boolean) => {
    // Single choice has exactly one right option: marking one unmarks the others.
    onChange({ ...q, options: options.map((x, k) => (k === j ? { ...x, correct: right } : q.multiple || !right ? x : { ...x, correct: false })) });
  };
  return (
    <Fieldset legend={`Question ${String(n)}`} disabled={disabled}>
      <Stack gap="xs">
        <Textarea label={`Question ${String(n)} text`} required autosize minRows={1} maxLength={1000} value={q.text}
          onChange={(e) => { onChange({ ...q, text: e.currentTarget.value }); }} />
        <Checkbox label="Several options may be right (multiple choice)" checked={!!q.multiple}
          onChange={(e) => { const multiple = e.currentTarget.checked; onChange({ ...q, multiple, options: multiple ? options : options.map((o, k) => ({ ...o, correct: k === options.findIndex((x) => x.correct) })) }); }} />
        {options.map((o, j) => (
          <Group key={j} gap="xs" align="center" wrap="nowrap">
            <Checkbox aria-label={`Option ${String(j + 1)} of question ${String(n)} is right`} checked={!!o.correct} onChange={(e) => { markRight(j, e.currentTarget.checked); }} />
            <TextInput aria-label={`Question ${String(n)} option ${String(j + 1)}`} placeholder={`Option ${String(j + 1)}`} required maxLength={1000} style={{ flex: 1 }}
              value={o.text} onChange={(e) => { setOption(j, { ...o, text: e.currentTarget.value }); }} />
            {!disabled && options.length > 2 && (
              <ActionIcon variant="outline" color="red.9" aria-label={`Remove option ${String(j + 1)} of question ${String(n)}`}
                onClick={() => { onChange({ ...q, options: options.filter((_, k) => k !== j) }); }}>×</ActionIcon>
            )}
          </Group>
        ))}
        {!disabled && (
          <Group gap="xs">
            <Button size="compact-sm" variant="default" disabled={options.length >= 10} onClick={() => { onChange({ ...q, options: [...options, { text: '', correct: false }] }); }}>Add an option</Button>
            <Button size="compact-sm" variant="outline" color="red.9" onClick={onRemove}>Remove question {n}</Button>
          </Group>
        )}
      </Stack>
    </Fieldset>
  );
}

/** A course's attempts and certificates, per partner. */
function Results({ courseId }: { courseId: string }) {
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const filter = { courseId, partnerId: partnerId || undefined };
  return (
    <Card withBorder component="section" aria-labelledby="results-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="results-title">Attempts and certificates</Title>
        <PartnerSelect label="Partner" clearable value={partnerId} onChange={(p) => { setPartnerId(p || null); }} />
        <PagedTable<Certificate>
          label="Certificates"
          queryKey={['courses', 'certificates', filter]}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/certificates', { params: { query: { ...filter, cursor, limit: 25 } } }))}
          rowKey={(x) => x.id}
          empty="No certificate issued yet."
          columns={[
            { header: 'Partner', render: (x) => <PartnerName id={x.partnerId} /> },
            { header: 'User', render: (x) => <PersonName id={x.userId} /> },
            { header: 'Score', render: (x) => `${String(x.score)}%` },
            { header: 'Status', render: (x) => <StatusBadge status={x.status} /> },
            { header: 'Issued', render: (x) => <DateTime value={x.issuedAt} /> },
            { header: 'Expires', render: (x) => <DateTime value={x.expiresAt} /> },
          ]}
        />
        <PagedTable<QuizAttempt>
          label="Quiz attempts"
          queryKey={['courses', 'attempts', filter]}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/quiz-attempts', { params: { query: { ...filter, cursor, limit: 25 } } }))}
          rowKey={(x) => x.id}
          empty="Nobody has taken the quiz yet."
          columns={[
            { header: 'Partner', render: (x) => (x.partnerId ? <PartnerName id={x.partnerId} /> : 'Operator preview') },
            { header: 'User', render: (x) => <PersonName id={x.userId} /> },
            { header: 'Attempt', render: (x) => `#${String(x.number)}` },
            { header: 'Result', render: (x) => attemptText(x) },
            { header: 'Taken', render: (x) => <DateTime value={x.createdAt} /> },
          ]}
        />
      </Stack>
    </Card>
  );
}
