import { useQuery } from '@tanstack/react-query';
import { Card, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { TierBadge } from '../../ui/TierBadge';
import { componentName, useHealthModel } from './healthOptions';

type Score = Schemas['HealthComponentScore'];

/** A component's raw value for people: money in major units of its currency, the rest as counted. */
function valueText(c: Score): string {
  if (c.value === undefined) return c.metricDeleted ? 'No data: the metric was deleted' : 'No data';
  const currency = c.source === 'won_revenue' ? c.currency : c.metricUnit === 'money' ? c.metricCurrency : undefined;
  if (currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(c.value / 100);
    } catch {
      return `${String(c.value)} ${currency}`;
    }
  }
  return String(c.value);
}

/** A partner's health: its tier and score, how the latest run computed them, and its history. */
export function PartnerHealthCard({ partnerId }: { partnerId: string }) {
  const model = useHealthModel();
  const explanation = useQuery({
    queryKey: ['health', 'partner', partnerId],
    queryFn: async () => {
      try {
        return unwrap(await api.GET('/api/partners/{id}/health', { params: { path: { id: partnerId } } }));
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    },
  });
  const h = explanation.data;
  const tiers = model.data?.tiers;
  return (
    <Card withBorder component="section" aria-labelledby="partner-health-title">
      <Stack>
        <Title order={2} size="h4" id="partner-health-title">Health</Title>
        {explanation.isError && <ErrorAlert error={explanation.error} />}
        {explanation.isPending && <Skeleton height={60} />}
        {h === null && <Text size="sm" c="dimmed">Not scored yet: the partner gets a score at the next health run.</Text>}
        {h && (
          <>
            <Group gap="lg">
              <TierBadge tier={h.tier} tiers={tiers} />
              <Text fw={600} aria-label="Health score">{h.score.toFixed(1)} / 100</Text>
              <Text size="sm" c="dimmed">
                {h.previousTier ? <>Was {h.previousTier.replaceAll('_', ' ')} · </> : null}in this tier since <DateTime value={h.tierSince} /> · scored <DateTime value={h.computedAt} /> (model version {h.modelVersion})
              </Text>
            </Group>
            <Table.ScrollContainer minWidth={560} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Health explanation' } }}>
              <Table striped aria-label="Health explanation">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Component</Table.Th><Table.Th ta="right">Value</Table.Th><Table.Th ta="right">Zero at → full at</Table.Th>
                    <Table.Th ta="right">Score</Table.Th><Table.Th ta="right">Weight</Table.Th><Table.Th ta="right">Contribution</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {h.components.map((c, i) => (
                    <Table.Tr key={i}>
                      <Table.Td>{componentName(c)}{c.windowDays ? <Text span size="xs" c="dimmed"> ({c.windowDays} days)</Text> : null}</Table.Td>
                      <Table.Td ta="right">{valueText(c)}</Table.Td>
                      <Table.Td ta="right">{c.zeroAt} → {c.fullAt}</Table.Td>
                      <Table.Td ta="right">{c.score === undefined ? '—' : c.score.toFixed(1)}</Table.Td>
                      <Table.Td ta="right">{c.weight}</Table.Td>
                      <Table.Td ta="right" fw={600}>{c.contribution.toFixed(1)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Title order={3} size="h5">History</Title>
            <PagedTable<Schemas['HealthSnapshot']>
              label="Health history"
              queryKey={['health', 'partner', partnerId, 'history']}
              fetchPage={async (cursor) => unwrap(await api.GET('/api/partners/{id}/health/history', { params: { path: { id: partnerId }, query: { cursor, limit: 10 } } }))}
              rowKey={(s) => s.runId}
              empty="No scores yet."
              columns={[
                { header: 'Scored at', render: (s) => <DateTime value={s.computedAt} /> },
                { header: 'Tier', render: (s) => <TierBadge tier={s.tier} tiers={tiers} /> },
                { header: 'Score', numeric: true, render: (s) => s.score.toFixed(1) },
                { header: 'Model version', numeric: true, render: (s) => s.modelVersion },
              ]}
            />
          </>
        )}
      </Stack>
    </Card>
  );
}
