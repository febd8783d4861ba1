import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Button, Card, Checkbox, Group, Loader, Radio, Stack, Text, Title } from '@mantine/core';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { useContentItem, type Course as CourseT, type Enrolment } from '../../ui/certificationData';
import { DownloadButton } from '../../ui/Content';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

type Result = Schemas['AttemptResultBody'];

/** One course as a learner takes it: its items to study and mark completed, then the quiz and its result. */
export default function Course() {
  const { id = '' } = useParams();
  const canLearn = useCan('certifications:learn');
  const course = useQuery({
    queryKey: ['courses', 'one', id], retry: false,
    queryFn: async () => unwrap(await api.GET('/api/courses/{id}', { params: { path: { id } } })),
  });
  const enrolment = useQuery({
    queryKey: ['courses', 'enrolment', id], retry: false, enabled: canLearn,
    // Before the first item or attempt the user is not enrolled: no progress yet.
    queryFn: async () => {
      try {
        return unwrap(await api.GET('/api/courses/{id}/enrolment', { params: { path: { id } } }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  if (course.isPending) return <Loader aria-label="Loading course" />;
  if (course.isError) return <ErrorAlert error={course.error} />;
  const c = course.data;
  const done = enrolment.data?.completedItemIds ?? [];
  const remaining = c.itemIds.filter((i) => !done.includes(i)).length;
  return (
    <Stack>
      <PageHeader title={c.title} description={c.description} />
      <Text size="sm"><Anchor component={Link} to="/portal/learning">All courses</Anchor></Text>
      <ErrorAlert error={enrolment.error} />
      <Card withBorder component="section" aria-labelledby="items-title">
        <Stack gap="xs">
          <Title order={2} size="h4" id="items-title">Study</Title>
          {c.itemIds.length === 0 && <Text size="sm">This course has no content to study: go straight to the quiz.</Text>}
          <Stack gap="xs" component="ol" m={0} pl="md" aria-label="Course items">
            {c.itemIds.map((i) => <ItemRow key={i} courseId={c.id} itemId={i} done={done.includes(i)} canLearn={canLearn} />)}
          </Stack>
        </Stack>
      </Card>
      <Card withBorder component="section" aria-labelledby="quiz-title">
        <Stack gap="sm">
          <Title order={2} size="h4" id="quiz-title">Quiz</Title>
          <Text size="sm" c="dimmed">
            {c.questions.length} questions · pass mark {c.passMark}% · {c.maxAttempts} attempts · a pass gives a certificate valid {c.validityDays} days
          </Text>
          {c.status !== 'published' && <Text size="sm">This course is {c.status}: its quiz cannot be taken.</Text>}
          {c.status === 'published' && !canLearn && <Text size="sm">Your role does not take courses.</Text>}
          {c.status === 'published' && canLearn && remaining > 0 && (
            <Text size="sm" data-testid="quiz-locked">Mark every item completed to take the quiz ({remaining} left).</Text>
          )}
          {c.status === 'published' && canLearn && remaining === 0 && enrolment.isSuccess && <Quiz course={c} enrolment={enrolment.data} />}
        </Stack>
      </Card>
    </Stack>
  );
}

function ItemRow({ courseId, itemId, done, canLearn }: { courseId: string; itemId: string; done: boolean; canLearn: boolean }) {
  const queryClient = useQueryClient();
  const item = useContentItem(itemId);
  const [error, setError] = useState<unknown>(null);
  const complete = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/courses/{id}/items/{itemId}/completion', { params: { path: { id: courseId, itemId } } })),
    onSuccess: (e) => { queryClient.setQueryData(['courses', 'enrolment', courseId], e); notify('Item marked completed'); },
  });
  const i = item.data;
  const title = i?.title ?? 'Item';
  return (
    <li>
      <Stack gap={4}>
        <Group gap="xs">
          <Text size="sm" fw={600}>{i ? i.title : item.isError ? 'An item no longer available' : 'Loading…'}</Text>
          {done && <Badge variant="light" color="green">Completed</Badge>}
          {i && (i.kind === 'file'
            ? <DownloadButton item={i} onError={setError} />
            : <Anchor href={i.url} target="_blank" rel="noopener noreferrer" size="sm" aria-label={`Open ${i.title}`}>Open link</Anchor>)}
          {canLearn && !done && (
            <Button size="compact-sm" variant="default" loading={complete.isPending} aria-label={`Mark ${title} completed`}
              onClick={() => { complete.mutate(); }}>Mark completed</Button>
          )}
        </Group>
        {i?.description && <Text size="xs" c="dimmed">{i.description}</Text>}
        <ErrorAlert error={error ?? complete.error} />
      </Stack>
    </li>
  );
}

function Quiz({ course: c, enrolment }: { course: CourseT; enrolment: Enrolment | null }) {
  const queryClient = useQueryClient();
  const [answers, setAnswers] = useState<Record<string, string[]>>({});
  const [result, setResult] = useState<Result | null>(null);
  const left = c.maxAttempts - (enrolment?.attemptsUsed ?? 0);
  const submit = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/courses/{id}/attempts', { params: { path: { id: c.id } }, body: {
      answers: c.questions.filter((q) => (answers[q.id] ?? []).length > 0).map((q) => ({ questionId: q.id, optionIds: answers[q.id] ?? [] })),
    } })),
    onSuccess: async (r) => {
      setResult(r);
      setAnswers({});
      await queryClient.invalidateQueries({ queryKey: ['courses', 'enrolment', c.id] });
      await queryClient.invalidateQueries({ queryKey: ['certificates'] });
    },
  });
  const answered = c.questions.every((q) => (answers[q.id] ?? []).length > 0);
  return (
    <Stack gap="sm">
      {result && <AttemptResult result={result} passMark={c.passMark} />}
      {left <= 0 && !result?.attempt.passed
        ? <Text size="sm">No attempts left.</Text>
        : (
          <form onSubmit={(e) => { e.preventDefault(); setResult(null); submit.mutate(); }}>
            <Stack gap="md">
              {!result && <Text size="sm">Attempts left: {left}</Text>}
              {c.questions.map((q, n) => {
                const label = `${String(n + 1)}. ${q.text}`;
                const chosen = answers[q.id] ?? [];
                const set = (ids: string[]) => { setAnswers((a) => ({ ...a, [q.id]: ids })); };
                return q.multiple
                  ? (
                    <Checkbox.Group key={q.id} label={label} description="Choose every right answer" value={chosen} onChange={set}>
                      <Stack gap={4} mt={4}>{q.options.map((o) => <Checkbox key={o.id} value={o.id} label={o.text} />)}</Stack>
                    </Checkbox.Group>
                  )
                  : (
                    <Radio.Group key={q.id} label={label} description="Choose one answer" value={chosen[0] ?? null} onChange={(x) => { set([x]); }}>
                      <Stack gap={4} mt={4}>{q.options.map((o) => <Radio key={o.id} value={o.id} label={o.text} />)}</Stack>
                    </Radio.Group>
                  );
              })}
              <ErrorAlert error={submit.error} />
              <Group><Button type="submit" disabled={!answered} loading={submit.isPending}>Submit answers</Button></Group>
            </Stack>
          </form>
        )}
    </Stack>
  );
}

/** A graded attempt: the score and whether it passed, never which answers were right. */
function AttemptResult({ result: r, passMark }: { result: Result; passMark: number }) {
  const a = r.attempt;
  return (
    <Alert role="status" color={a.passed ? 'green' : 'orange'} title={a.passed ? 'Passed' : 'Not passed'} data-testid="attempt-result">
      <Stack gap={4}>
        <Text size="sm">Score {a.score}% ({a.correct} of {a.questions} questions right); the pass mark is {passMark}%.</Text>
        {r.certificate
          ? <Text size="sm">Your certificate is valid until <DateTime value={r.certificate.expiresAt} />.</Text>
          : !a.passed && <Text size="sm">Attempts left: {r.attemptsLeft}</Text>}
      </Stack>
    </Alert>
  );
}
