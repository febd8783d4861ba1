import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Group, Progress, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorAlert } from './ErrorAlert';
import { formatMoney } from './format';
import { useLevels } from './levels';
import { Money } from './Money';

type Level = Schemas['Level'];
type Evaluation = Schemas['LevelEvaluation'];

/** Who reads the card: an operator about a partner, or the partner about itself. */
export type LevelAudience = 'operator' | 'partner';

/** One requirement of a level beside what the partner has. */
interface Requirement {
  kind: 'deals' | 'volume' | 'certified';
  label: string;
  need: number;
  /** undefined when the evaluation did not count it. */
  have: number | undefined;
  /** Set for money: need and have are minor units of it. */
  currency?: string;
}

/** What the partner is measured on for a level: only the requirements the level sets. */
function requirementsOf(level: Level, e: Evaluation): Requirement[] {
  const r = level.requirements;
  const out: Requirement[] = [];
  if (r.minWonDeals) out.push({ kind: 'deals', label: 'Won deals', need: r.minWonDeals, have: e.wonDeals });
  if (r.minWonAmountMinor && r.currency) {
    out.push({ kind: 'volume', label: `Won volume in ${r.currency}`, need: r.minWonAmountMinor, have: e.wonAmountMinor[r.currency] ?? 0, currency: r.currency });
  }
  if (r.minCertifiedUsers) {
    out.push({
      kind: 'certified', label: r.certificationCourseId ? 'Certified people (the level\'s course)' : 'Certified people',
      need: r.minCertifiedUsers, have: e.certifiedUsers?.[r.certificationCourseId ?? ''],
    });
  }
  return out;
}

/**
 * The level a partner is measured toward next: the lowest level ranked above its current one
 * (the lowest level of all when it holds none); undefined at the top. levels are best first.
 */
function nextLevel(levels: Level[], current: string): Level | undefined {
  const here = levels.find((l) => l.name === current);
  const above = here ? levels.filter((l) => l.rank > here.rank) : levels;
  return above.at(-1);
}

/**
 * The look-back window, in days, of the evaluation's numbers: the target level's, or the lowest
 * level's when no level's requirements are met (as the evaluation counts them).
 */
function evaluatedPeriod(levels: Level[], e: Evaluation): number | undefined {
  const level = e.targetLevel ? levels.find((l) => l.name === e.targetLevel) : levels.at(-1);
  return level?.requirements.periodDays;
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>{label}</Text>
      <div>{children}</div>
    </Stack>
  );
}

function amount(n: number, currency: string | undefined) {
  return currency ? formatMoney(n, currency) : String(n);
}

/** Progress toward the next level: each requirement, what the partner has of it, a bar. */
function NextLevel({ next, e, levels, audience }: { next: Level; e: Evaluation; levels: Level[]; audience: LevelAudience }) {
  const reqs = requirementsOf(next, e);
  const period = evaluatedPeriod(levels, e);
  const nextPeriod = next.requirements.periodDays;
  const you = audience === 'partner';
  return (
    <Stack gap="xs" data-testid="next-level">
      <Title order={3} size="h5">Progress toward {next.name}</Title>
      {reqs.length === 0 && <Text size="sm">{next.name} sets no requirement{you ? ': the next review can move you there.' : '.'}</Text>}
      {reqs.map((r) => {
        const met = r.have !== undefined && r.have >= r.need;
        const pct = r.have === undefined ? 0 : Math.min(100, Math.floor((Math.max(0, r.have) * 100) / r.need));
        const have = r.have === undefined ? 'not counted yet' : amount(r.have, r.currency);
        return (
          <Stack key={r.label} gap={4}>
            <Group justify="space-between" gap="xs">
              <Text size="sm">{r.label}</Text>
              <Text size="sm" fw={met ? 700 : undefined}>
                {r.currency ? <><Money minor={r.have} currency={r.currency} /> of <Money minor={r.need} currency={r.currency} /></> : `${have} of ${String(r.need)}`}
                {met && ' ✓'}
              </Text>
            </Group>
            <Progress value={pct} color={met ? 'green' : undefined} size="sm"
              aria-label={`${r.label}: ${have} of ${amount(r.need, r.currency)}`} />
          </Stack>
        );
      })}
      {reqs.some((r) => r.kind !== 'certified') && (
        <Text size="xs" c="dimmed">
          {period === undefined || period === nextPeriod
            ? `Deals won in the last ${String(nextPeriod)} days count.`
            : `Counted over the last ${String(period)} days; ${next.name} counts deals won in the last ${String(nextPeriod)} days.`}
        </Text>
      )}
      {next.benefits && <Text size="sm"><Text span fw={700}>Benefits of {next.name}: </Text>{next.benefits}</Text>}
    </Stack>
  );
}

/**
 * A partner's level, where its performance would put it at the next review, and its progress
 * toward the next level. Both faces use it: the console's partner page about the partner, the
 * portal's dashboard to the partner about itself. Needs partners:read.
 */
export function LevelCard({ partnerId, audience }: { partnerId: string; audience: LevelAudience }) {
  const evaluation = useQuery({
    queryKey: ['partners', partnerId, 'level-evaluation'],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}/level-evaluation', { params: { path: { id: partnerId } } })),
    // Deals another session wins move the progress: showing the card again reads it afresh.
    staleTime: 0,
  });
  const levels = useLevels();
  const e = evaluation.data;
  const all = levels.data ?? [];
  const you = audience === 'partner';
  const rankOf = (name: string) => all.find((l) => l.name === name)?.rank;
  const target = e?.targetLevel;
  let verdict = '';
  if (e && target) {
    const from = rankOf(e.currentLevel);
    const to = rankOf(target);
    if (target === e.currentLevel) verdict = you ? `You meet the requirements of ${target}, your current level.` : `Meets the requirements of ${target}, its current level.`;
    else if (from !== undefined && to !== undefined && to < from) {
      verdict = you ? `You meet only the requirements of ${target}: the next review would move you down.` : `Meets only the requirements of ${target}: the next review would move it down.`;
    } else verdict = you ? `You qualify for ${target}: the next review would move you up.` : `Qualifies for ${target}: the next review would move it up.`;
  }
  if (e && !target && all.length > 0) verdict = you ? 'You meet no level\'s requirements yet.' : 'Meets no level\'s requirements yet.';
  const volumes = Object.entries(e?.wonAmountMinor ?? {});
  const next = e && levels.data ? nextLevel(all, e.currentLevel) : undefined;
  return (
    <Card withBorder component="section" aria-label={you ? 'Your level' : 'Level'}>
      <Stack gap="sm">
        <Title order={2} size="h4">{you ? 'Your level' : 'Level'}</Title>
        {evaluation.isError && <ErrorAlert error={evaluation.error} />}
        {levels.isError && <ErrorAlert error={levels.error} />}
        {evaluation.isPending && <Skeleton height={48} />}
        {e && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Field label="Current level">{e.currentLevel || '—'}</Field>
              <Field label="Won deals in the period">{e.wonDeals}</Field>
              <Field label="Won volume in the period">
                {volumes.length === 0 ? 'None' : (
                  <Stack gap={0}>{volumes.map(([cur, minor]) => <Money key={cur} minor={minor} currency={cur} />)}</Stack>
                )}
              </Field>
            </SimpleGrid>
            <Group gap="xs">
              <Text size="sm" fw={700}>{target ? `Evaluates to ${target}.` : !levels.data ? '' : all.length > 0 ? 'Evaluates to no level.' : 'No levels defined.'}</Text>
              {verdict && <Text size="sm">{verdict}</Text>}
            </Group>
            {levels.isSuccess && all.length > 0 && (next
              ? <NextLevel next={next} e={e} levels={all} audience={audience} />
              : <Text size="sm">{you ? `${e.currentLevel} is the highest level: keep it by meeting its requirements.` : `${e.currentLevel} is the highest level.`}</Text>)}
          </>
        )}
      </Stack>
    </Card>
  );
}
