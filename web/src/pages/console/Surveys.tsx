import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge, Button, CloseButton, Group, Modal, MultiSelect, NativeSelect, NumberInput, Select, Skeleton, Stack, Table, Text, TextInput, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { oneOf, orUndefined, useAdminFilters } from '../../ui/AdminFilters';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { dayToISO, today } from '../../ui/portal';

type Survey = Schemas['Survey'];
type Kind = 'csat' | 'nps';
const kinds = [{ value: 'nps', label: 'NPS (0–10)' }, { value: 'csat', label: 'CSAT (1–5)' }];
const kindLabel = (k: string) => (k === 'nps' ? 'NPS' : 'CSAT');
const sourceLabel: Record<string, string> = { bulk: 'Sent in bulk', ticket: 'Resolved ticket', playbook: 'Playbook' };

/** The program's level names, for choosing recipients. */
function useLevelNames() {
  const canPartners = useCan('partners:read');
  return useQuery({
    queryKey: ['levels', 'options'],
    queryFn: async () => unwrap(await api.GET('/api/levels', { params: { query: { limit: 100 } } })).data,
    enabled: canPartners,
    staleTime: 60_000,
  });
}

/** CSAT and NPS surveys: who was asked, their answers, and the scores per partner or level. */
export default function Surveys() {
  const canSend = useCan('surveys:send');
  const [sending, setSending] = useState(false);
  return (
    <Stack>
      <PageHeader title="Surveys" description="CSAT and NPS surveys emailed to partner users as single-use links, their answers and the scores they add up to."
        actions={canSend && <Button onClick={() => { setSending(true); }}>Send a survey</Button>} />
      <Scores />
      <Invitations />
      <Modal opened={sending} onClose={() => { setSending(false); }} title="Send a survey" closeButtonProps={{ 'aria-label': 'Close' }}>
        {sending && <SendForm onDone={() => { setSending(false); }} />}
      </Modal>
    </Stack>
  );
}

/** The scores of one kind per partner or level over a period, with the counts they come from. */
function Scores() {
  const [kind, setKind] = useState<Kind>('nps');
  const [groupBy, setGroupBy] = useState<'partner' | 'level'>('partner');
  const [from, setFrom] = useState(today(-90));
  const [to, setTo] = useState(today());
  const query = { kind, groupBy, from: dayToISO(from), to: dayToISO(to, true) };
  const scores = useQuery({
    queryKey: ['surveys', 'scores', query],
    queryFn: async () => unwrap(await api.GET('/api/survey-scores', { params: { query } })),
  });
  const groups = scores.data?.groups ?? [];
  const nps = kind === 'nps';
  return (
    <Stack gap="xs" component="section" aria-labelledby="scores-title">
      <Title order={2} size="h4" id="scores-title">Scores</Title>
      <Text size="sm" c="dimmed">
        {nps ? 'NPS: the percentage of promoters (9–10) minus the percentage of detractors (0–6).' : 'CSAT: the percentage of satisfied answers (4–5).'} Answers given in the period count.
      </Text>
      <Group align="flex-end" wrap="wrap">
        <NativeSelect label="Kind" w={150} data={kinds} value={kind} onChange={(e) => { setKind(e.currentTarget.value as Kind); }} />
        <NativeSelect label="Per" w={150} data={[{ value: 'partner', label: 'Partner' }, { value: 'level', label: 'Level' }]} value={groupBy}
          onChange={(e) => { setGroupBy(e.currentTarget.value as 'partner' | 'level'); }} />
        <TextInput label="From" type="date" w={170} value={from} onChange={(e) => { setFrom(e.currentTarget.value); }} />
        <TextInput label="To (through)" type="date" w={170} value={to} onChange={(e) => { setTo(e.currentTarget.value); }} />
      </Group>
      {scores.isError && <ErrorAlert error={scores.error} />}
      <Table.ScrollContainer minWidth={560} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Survey scores' } }}>
        <Table striped aria-label="Survey scores" aria-busy={scores.isFetching}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{groupBy === 'partner' ? 'Partner' : 'Level'}</Table.Th>
              <Table.Th ta="right">{nps ? 'NPS' : 'CSAT %'}</Table.Th>
              <Table.Th ta="right">Responses</Table.Th>
              {nps ? (
                <>
                  <Table.Th ta="right">Promoters</Table.Th>
                  <Table.Th ta="right">Passives</Table.Th>
                  <Table.Th ta="right">Detractors</Table.Th>
                </>
              ) : <Table.Th ta="right">Satisfied</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {scores.isPending && (
              <Table.Tr><Table.Td colSpan={nps ? 6 : 4}><Skeleton height={14} /></Table.Td></Table.Tr>
            )}
            {groups.map((g) => (
              <Table.Tr key={g.group}>
                <Table.Td>{groupBy === 'partner' ? <PartnerName id={g.group} /> : (g.group || 'No level')}</Table.Td>
                <Table.Td ta="right" fw={600}>{g.score ?? '—'}</Table.Td>
                <Table.Td ta="right">{g.responses}</Table.Td>
                {nps ? (
                  <>
                    <Table.Td ta="right">{g.promoters}</Table.Td>
                    <Table.Td ta="right">{g.passives}</Table.Td>
                    <Table.Td ta="right">{g.detractors}</Table.Td>
                  </>
                ) : <Table.Td ta="right">{g.satisfied}</Table.Td>}
              </Table.Tr>
            ))}
            {scores.isSuccess && groups.length === 0 && (
              <Table.Tr><Table.Td colSpan={nps ? 6 : 4}><Text c="dimmed" ta="center" py="md">No answers in this period.</Text></Table.Td></Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** Every invitation with its answer, filtered by kind, partner and whether it was answered. */
function Invitations() {
  const [f, setF] = useAdminFilters(['kind', 'partnerId', 'answered'] as const);
  const query = {
    kind: oneOf(f.kind, ['csat', 'nps'] as const),
    partnerId: orUndefined(f.partnerId),
    answered: oneOf(f.answered, ['true', 'false'] as const),
  };
  return (
    <Stack gap="xs" component="section" aria-labelledby="invitations-title">
      <Title order={2} size="h4" id="invitations-title">Invitations and answers</Title>
      <Group align="flex-end" wrap="wrap">
        <Select label="Kind" clearable w={150} data={kinds} value={f.kind || null} onChange={(v) => { setF({ kind: v }); }} />
        <PartnerSelect label="Partner" clearable w={240} value={f.partnerId || null} onChange={(v) => { setF({ partnerId: v }); }} />
        <Select label="Answered" clearable w={150} value={f.answered || null} onChange={(v) => { setF({ answered: v }); }}
          data={[{ value: 'true', label: 'Answered' }, { value: 'false', label: 'Not answered' }]} />
      </Group>
      <PagedTable<Survey>
        label="Survey invitations"
        queryKey={['surveys', 'list', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/surveys', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(s) => s.id}
        empty="No surveys match these filters."
        columns={[
          { header: 'Sent', render: (s) => <DateTime value={s.sentAt ?? s.createdAt} /> },
          { header: 'Kind', render: (s) => kindLabel(s.kind) },
          { header: 'Partner', render: (s) => <PartnerName id={s.partnerId} /> },
          { header: 'Level', render: (s) => s.level || '—' },
          { header: 'Source', render: (s) => sourceLabel[s.source] ?? s.source },
          { header: 'Answer', render: (s) => (s.answeredAt ? <Badge variant="light" color="green">{s.score}</Badge> : new Date(s.expiresAt) < new Date() ? <Badge variant="light" color="gray">Expired</Badge> : <Text size="sm" c="dimmed">Waiting</Text>) },
          { header: 'Comment', render: (s) => <Text size="sm" maw={320} style={{ whiteSpace: 'pre-wrap' }}>{s.comment ?? ''}</Text> },
          { header: 'Answered', render: (s) => <DateTime value={s.answeredAt} /> },
        ]}
      />
    </Stack>
  );
}

/** Sends a survey to every active user of the partners and levels chosen. */
function SendForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const levels = useLevelNames();
  const [kind, setKind] = useState<Kind>('nps');
  const [partnerIds, setPartnerIds] = useState<string[]>([]);
  const [levelNames, setLevelNames] = useState<string[]>([]);
  const [days, setDays] = useState<number | string>(14);
  const send = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/surveys', {
      body: { kind, partnerIds, levels: levelNames, expiresInDays: Number(days) || undefined },
    })),
    onSuccess: async (r) => {
      notify(`Survey sent to ${String(r.recipients)} recipient${r.recipients === 1 ? '' : 's'}`);
      await queryClient.invalidateQueries({ queryKey: ['surveys'] });
      onDone();
    },
  });
  const errs = fieldErrors(send.error);
  return (
    <form onSubmit={(e) => { e.preventDefault(); send.mutate(); }}>
      <Stack>
        <NativeSelect label="Kind" data={kinds} value={kind} onChange={(e) => { setKind(e.currentTarget.value as Kind); }} />
        <Stack gap={4}>
          <PartnerSelect label="Add a partner" value={null} error={errs.partnerIds}
            description="Every active user of the partners chosen is emailed a link"
            onChange={(id) => { if (id && !partnerIds.includes(id)) setPartnerIds([...partnerIds, id]); }} />
          {partnerIds.length > 0 && (
            <Stack gap={2} component="ul" aria-label="Partners chosen" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {partnerIds.map((id) => (
                <Group key={id} component="li" gap="xs" wrap="nowrap">
                  <PartnerName id={id} />
                  <CloseButton size="sm" aria-label="Remove partner" onClick={() => { setPartnerIds(partnerIds.filter((p) => p !== id)); }} />
                </Group>
              ))}
            </Stack>
          )}
        </Stack>
        <MultiSelect label="Levels" description="And every active user of the partners at these levels" searchable clearable
          data={(levels.data ?? []).map((l) => l.name)} value={levelNames} onChange={setLevelNames} error={errs.levels} />
        <NumberInput label="Links answer for (days)" min={1} max={90} allowDecimal={false} value={days} onChange={setDays} error={errs.expiresInDays} />
        <ErrorAlert error={send.error} shownFields={['partnerIds', 'levels', 'expiresInDays']} />
        <Group justify="flex-end">
          <Button type="submit" disabled={partnerIds.length === 0 && levelNames.length === 0} loading={send.isPending}>Send survey</Button>
        </Group>
      </Stack>
    </form>
  );
}
