import { useQueries } from '@tanstack/react-query';
import { Badge, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

type Survey = Schemas['Survey'];
type Score = Schemas['SurveyScore'];

/** The periods the page scores, ending now. */
const periods = [{ days: 30, label: 'Last 30 days' }, { days: 90, label: 'Last 90 days' }, { days: 365, label: 'Last 365 days' }];
const kinds = ['csat', 'nps'] as const;

function scoreText(kind: 'csat' | 'nps', s: Score | undefined): string {
  if (!s || s.score === null) return '—';
  if (kind === 'csat') return `${String(s.score)} %`;
  return s.score > 0 ? `+${String(s.score)}` : String(s.score);
}

/**
 * The partner's own CSAT and NPS: the scores of its users' answers over recent periods, and the
 * answers themselves. The service scopes every number to the partner's organisation.
 */
export default function PortalSurveyScores() {
  const now = new Date();
  const to = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000).toISOString();
  const asks = periods.flatMap((p) => kinds.map((kind) => ({ period: p, kind, from: new Date(Date.parse(to) - p.days * 86_400_000).toISOString() })));
  const results = useQueries({
    queries: asks.map((a) => ({
      queryKey: ['surveys', 'scores', 'mine', a.kind, a.period.days],
      queryFn: async () => unwrap(await api.GET('/api/survey-scores', { params: { query: { kind: a.kind, groupBy: 'partner', from: a.from, to } } })).groups[0],
    })),
  });
  const at = (days: number, kind: 'csat' | 'nps') => results[asks.findIndex((a) => a.period.days === days && a.kind === kind)];
  const error = results.find((r) => r.isError)?.error;
  return (
    <Stack gap="md">
      <PageHeader title="Survey scores" description="How your organisation's users rated the program: CSAT (the percentage of answers scoring 4 or 5) and NPS (the percentage of promoters, 9–10, minus that of detractors, 0–6)." />
      {error && <ErrorAlert error={error} />}
      <Table.ScrollContainer minWidth={480} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Your scores' } }}>
        <Table striped aria-label="Your scores">
          <Table.Thead>
            <Table.Tr><Table.Th>Period</Table.Th><Table.Th ta="right">CSAT</Table.Th><Table.Th ta="right">CSAT answers</Table.Th><Table.Th ta="right">NPS</Table.Th><Table.Th ta="right">NPS answers</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {periods.map((p) => {
              const c = at(p.days, 'csat');
              const n = at(p.days, 'nps');
              const cell = (r: typeof c, kind: 'csat' | 'nps') => r?.isPending ? <Skeleton height={14} width={40} ml="auto" /> : scoreText(kind, r?.data);
              return (
                <Table.Tr key={p.days}>
                  <Table.Th scope="row" fw={400}>{p.label}</Table.Th>
                  <Table.Td ta="right" fw={600} data-testid={`csat-${String(p.days)}`}>{cell(c, 'csat')}</Table.Td>
                  <Table.Td ta="right">{c?.data?.responses ?? 0}</Table.Td>
                  <Table.Td ta="right" fw={600} data-testid={`nps-${String(p.days)}`}>{cell(n, 'nps')}</Table.Td>
                  <Table.Td ta="right">{n?.data?.responses ?? 0}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="xs" c="dimmed">A dash means no answers in the period. Answers count on the day they were given.</Text>
      <Stack gap="xs" component="section" aria-labelledby="answers-title">
        <Title order={2} size="h4" id="answers-title">Your organisation's answers</Title>
        <PagedTable<Survey>
          label="Your organisation's answers"
          queryKey={['surveys', 'answers', 'mine']}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/surveys', { params: { query: { answered: 'true', cursor, limit: 25 } } }))}
          rowKey={(s) => s.id}
          empty="No answers yet."
          columns={[
            { header: 'Survey', render: (s) => <Badge variant="default">{s.kind.toUpperCase()}</Badge> },
            { header: 'Score', render: (s) => s.score ?? '—', numeric: true },
            { header: 'Answered', render: (s) => s.answeredAt ? <DateTime value={s.answeredAt} /> : '—' },
            { header: 'Comment', render: (s) => <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{s.comment || '—'}</Text> },
          ]}
        />
      </Stack>
    </Stack>
  );
}
