import { useState, type SubmitEvent } from 'react';
import { useLocation } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Center, Group, Loader, Paper, Radio, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { ApiError, api, unwrap } from '../api/client';

/** The longest comment the API takes. */
const COMMENT_MAX = 2000;

/** What a failed survey request means to the person holding the link. */
function linkMessage(err: unknown): { title: string; text: string } {
  if (err instanceof ApiError) {
    if (err.status === 409) return { title: 'Already answered', text: 'This survey was answered already. Each link takes one answer. Thank you!' };
    if (err.problem.code === 'SURVEY_EXPIRED') return { title: 'This link has expired', text: 'The survey this link asked is closed.' };
    if (err.status === 404) return { title: 'Survey not found', text: 'This link is unknown. Open the link you were sent, whole.' };
    if (err.status === 429) return { title: 'Too many tries', text: 'Wait a while and open the link again.' };
    if (err.status === 422) return { title: 'This answer was not taken', text: err.message };
  }
  return { title: 'The survey could not be loaded', text: err instanceof Error ? err.message : 'Try again later.' };
}

/**
 * The public answer page of a CSAT or NPS survey (/survey#token=…): no login. The single-use token
 * arrives in the address's fragment, which browsers never send to a server; it travels only in the
 * API's path, and the page shows nothing but the program's name and the question.
 */
export default function Survey() {
  const { hash } = useLocation();
  const [token] = useState(() => new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '');
  const [score, setScore] = useState<string | null>(null);
  const [comment, setComment] = useState('');
  const [missing, setMissing] = useState(false);

  const survey = useQuery({
    queryKey: ['public-survey', token],
    enabled: token !== '',
    retry: false,
    refetchOnWindowFocus: false,
    staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/survey-links/{token}', { params: { path: { token } } })),
  });

  const answer = useMutation({
    mutationFn: async () => {
      unwrap(await api.POST('/api/survey-links/{token}', {
        params: { path: { token } },
        body: { score: Number(score), ...(comment.trim() ? { comment: comment.trim() } : {}) },
      }));
    },
    // The link is used up: drop it from the address and the history.
    onSuccess: () => { window.history.replaceState(null, '', '/survey'); },
  });

  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setMissing(score === null);
    if (score !== null) answer.mutate();
  };

  const s = survey.data;
  const scores = s ? Array.from({ length: s.maxScore - s.minScore + 1 }, (_, i) => s.minScore + i) : [];
  const nps = s?.kind === 'nps';
  // A 409 or 404 on submit ends the survey as loading it would have.
  const closed = answer.error instanceof ApiError && (answer.error.status === 409 || answer.error.status === 404) ? answer.error : undefined;
  const failed = survey.error ?? closed;

  let body;
  if (!token) {
    body = <Alert color="red" role="alert" title="No survey in this link">This link holds no token. Open the link you were sent, whole.</Alert>;
  } else if (survey.isPending) {
    body = <Group justify="center"><Loader aria-label="Loading the survey" /></Group>;
  } else if (failed) {
    const m = linkMessage(failed);
    body = <Alert color={failed instanceof ApiError && failed.status === 409 ? 'blue' : 'red'} role="alert" title={m.title}>{m.text}</Alert>;
  } else if (answer.isSuccess) {
    body = (
      <Alert color="green" role="status" title="Thank you!">
        Your answer was recorded. You can close this page.
      </Alert>
    );
  } else if (s) {
    body = (
      <form onSubmit={submit}><Stack gap="lg">
        <Radio.Group name="score" value={score} onChange={(v) => { setScore(v); setMissing(false); }}
          label={<Text component="span" fw={600} size="lg">{s.question}</Text>}
          error={missing ? 'Choose a score' : undefined} required>
          <SimpleGrid cols={nps ? { base: 4, xs: 6, sm: 11 } : { base: 5 }} spacing="xs" mt="sm">
            {scores.map((n) => (
              <Paper key={n} withBorder radius="md" p={0}>
                <Radio value={String(n)} label={String(n)} size="md"
                  styles={{ body: { padding: '12px 10px', minHeight: 48, alignItems: 'center', cursor: 'pointer' }, label: { fontSize: 'var(--mantine-font-size-lg)', cursor: 'pointer' } }} />
              </Paper>
            ))}
          </SimpleGrid>
        </Radio.Group>
        <Textarea label="Comment (optional)" autosize minRows={3} maxRows={10} maxLength={COMMENT_MAX}
          description={`${String(comment.length)} of ${String(COMMENT_MAX)} characters`}
          value={comment} onChange={(e) => { setComment(e.currentTarget.value); }} />
        {answer.isError && !closed && (
          <Alert color="red" role="alert" title={linkMessage(answer.error).title}>{linkMessage(answer.error).text}</Alert>
        )}
        <Button type="submit" size="md" loading={answer.isPending}>Send my answer</Button>
      </Stack></form>
    );
  }

  return (
    <Center component="main" mih="100vh" p={{ base: 'xs', sm: 'md' }}>
      <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} w="100%" maw={640}>
        <Stack>
          <div>
            <Text size="sm" c="dimmed">{nps ? 'NPS survey' : s ? 'Satisfaction survey' : 'Survey'}</Text>
            <Title order={1} size="h2">{s?.program ?? 'Survey'}</Title>
          </div>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}
