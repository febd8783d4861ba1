import { useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  Anchor, Badge, Button, Card, Code, Group, Loader, Modal, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { decimalToMinor } from '../../ui/format';
import { PlanRule } from './money/PlanRule';
import { PlanEditor } from './money/PlanEditor';
import { CurrencySelect, MoneyStatus, PartnerSelect, PersonName } from './money/shared';
import { formatBps, setPath } from './money/util';
import { Field } from '../../ui/Field';

type Plan = Schemas['CommissionPlan'];
type Version = Schemas['CommissionPlanVersion'];
type Preview = Schemas['PlanPreview'];

/** A plan's definition as a person reads it. */
function DefinitionView({ plan }: { plan: Plan }) {
  const d = plan.definition;
  const cur = d.currency;
  const amount = (m: number | undefined) => (m === undefined ? undefined : cur ? <Money minor={m} currency={cur} /> : `${String(m)} minor units`);
  const c = d.conditions;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
      <Field label="Trigger"><Code>{d.trigger}</Code></Field>
      <Field label="Pays"><PlanRule plan={plan} /></Field>
      <Field label="Holding period">{d.holdingDays} days</Field>
      <Field label="Clawback event">{d.clawbackTrigger ? <Code>{d.clawbackTrigger}</Code> : '—'}</Field>
      <Field label="Amount path"><Code>{d.amountPath || (d.trigger === 'deal.won' ? 'amountMinor' : '—')}</Code></Field>
      <Field label="Currency">from <Code>{d.currencyPath || 'currency'}</Code>{cur ? `, else ${cur}` : ''}</Field>
      <Field label="Reference path"><Code>{d.referencePath || (d.trigger === 'deal.won' ? 'dealId' : '—')}</Code></Field>
      <Field label="Recurrence">{d.recurrenceMonths ? `${String(d.recurrenceMonths)} months per customer` : 'No limit'}</Field>
      {d.calculation.kind === 'tiered' && (
        <Field label="Tiers">
          {(d.calculation.tiers ?? []).map((t, i) => <div key={i}>from {amount(t.fromVolume)}: {formatBps(t.rateBps)}</div>)}
        </Field>
      )}
      <Field label="Conditions">
        {!c || (!c.minAmount && !c.maxAmount && !c.partnerTypes?.length && !c.partnerLevels?.length && !c.payloadEquals?.length) ? 'None' : (
          <Stack gap={2}>
            {c.minAmount !== undefined && <div>amount at least {amount(c.minAmount)}</div>}
            {c.maxAmount !== undefined && <div>amount at most {amount(c.maxAmount)}</div>}
            {!!c.partnerTypes?.length && <div>partner type {c.partnerTypes.join(' or ')}</div>}
            {!!c.partnerLevels?.length && <div>partner level {c.partnerLevels.join(' or ')}</div>}
            {(c.payloadEquals ?? []).map((p, i) => <div key={i}><Code>{p.path}</Code> = <Code>{JSON.stringify(p.value)}</Code></div>)}
          </Stack>
        )}
      </Field>
    </SimpleGrid>
  );
}

/** Tries the active plans on a sample event and shows what each would accrue. */
function PreviewPanel({ plan }: { plan: Plan }) {
  const d = plan.definition;
  const amountPath = d.amountPath || (d.trigger === 'deal.won' ? 'amountMinor' : '');
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [type, setType] = useState(d.trigger);
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState<string | null>(d.currency ?? 'EUR');
  const [extra, setExtra] = useState('');
  const [formError, setFormError] = useState<Record<string, string>>({});

  const preview = useMutation({
    mutationFn: async (payload: Record<string, unknown>) => unwrap(await api.POST('/api/commission-plans/preview', {
      body: { type: type.trim(), partnerId: partnerId ?? undefined, payload },
    })),
  });

  const run = (e: React.SyntheticEvent) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const cur = currency ?? 'EUR';
    const minor = decimalToMinor(amount, cur);
    if (!partnerId) errs.partner = 'Pick the partner the event is attributed to';
    if (amountPath && minor === null) errs.amount = `Enter an amount in ${cur}`;
    let payload: Record<string, unknown> = {};
    if (extra.trim()) {
      try {
        const parsed: unknown = JSON.parse(extra);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
        else errs.extra = 'Enter a JSON object';
      } catch {
        errs.extra = 'Not valid JSON';
      }
    }
    setFormError(errs);
    if (Object.keys(errs).length) return;
    if (amountPath && minor !== null) setPath(payload, amountPath, minor);
    setPath(payload, d.currencyPath || 'currency', cur);
    preview.mutate(payload);
  };

  const rows = preview.data?.data ?? [];
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">Preview</Title>
      <Text size="sm" c="dimmed" mb="sm">What the active plans would pay on a sample event. Tier volumes and recurrence use the partner’s real accruals; nothing is booked.</Text>
      <form onSubmit={run} noValidate>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          <PartnerSelect label="Partner" required value={partnerId} onChange={setPartnerId} error={formError.partner} placeholder="Pick a partner" />
          <TextInput label="Event type" required value={type} onChange={(e) => { setType(e.currentTarget.value); }} />
          <TextInput label={`Amount${amountPath ? ` (${amountPath})` : ''}`} inputMode="decimal" required={!!amountPath} value={amount}
            onChange={(e) => { setAmount(e.currentTarget.value); }} error={formError.amount} />
          <CurrencySelect label="Currency" value={currency} onChange={setCurrency} allowDeselect={false} />
        </SimpleGrid>
        <Textarea mt="sm" label="Other payload fields (JSON object)" description="For conditions on the payload, e.g. {&quot;plan&quot;: &quot;pro&quot;}" autosize minRows={1}
          value={extra} onChange={(e) => { setExtra(e.currentTarget.value); }} error={formError.extra} />
        <Group mt="sm">
          <Button type="submit" loading={preview.isPending}>Preview</Button>
        </Group>
      </form>
      <ErrorAlert error={preview.error} />
      {preview.isSuccess && (
        <Table.ScrollContainer minWidth={560} mt="sm">
          <Table aria-label="Preview results">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Plan</Table.Th><Table.Th>Accrues</Table.Th><Table.Th ta="right">Source amount</Table.Th>
                <Table.Th ta="right">Rate</Table.Th><Table.Th ta="right">Commission</Table.Th><Table.Th>Available</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.length === 0 && <Table.Tr><Table.Td colSpan={6}><Text c="dimmed" ta="center">No active plan triggers on {type}.</Text></Table.Td></Table.Tr>}
              {rows.map((r: Preview) => (
                <Table.Tr key={r.planId} data-testid={r.planId === plan.id ? 'preview-this-plan' : undefined} fw={r.planId === plan.id ? 600 : undefined}>
                  <Table.Td>{r.planName} v{r.planVersion}{r.planId === plan.id && <Badge ml="xs" size="xs" variant="light">this plan</Badge>}</Table.Td>
                  <Table.Td>{r.match ? <Badge color="green" variant="light">yes</Badge> : <Text size="sm">no: {r.reason}</Text>}</Table.Td>
                  <Table.Td ta="right"><Money minor={r.sourceAmount} currency={r.currency} /></Table.Td>
                  <Table.Td ta="right">{r.rateBps ? formatBps(r.rateBps) : 'flat'}</Table.Td>
                  <Table.Td ta="right" data-testid={r.planId === plan.id ? 'preview-amount' : undefined} data-minor={r.amount}>
                    <Money minor={r.amount} currency={r.currency} />
                  </Table.Td>
                  <Table.Td><DateTime value={r.availableAt} /></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {preview.isSuccess && plan.status === 'archived' && <Text size="sm" c="dimmed" mt="xs">This plan is archived, so it is not among the plans tried.</Text>}
    </Card>
  );
}

/** One commission plan: its rule, a preview on a sample event, its versions; edit and archive. */
export default function CommissionPlanDetail() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canWrite = useCan('commissions:write');
  const [editing, setEditing] = useState(false);
  const [archiving, setArchiving] = useState(false);
  const plan = useQuery({
    queryKey: ['commission-plans', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/commission-plans/{id}', { params: { path: { id } } })),
  });
  const archive = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/commission-plans/{id}/archive', { params: { path: { id } } })),
    onSuccess: async (p) => {
      setArchiving(false);
      notifications.show({ color: 'green', message: `Archived “${p.name}”: it no longer accrues` });
      await queryClient.invalidateQueries({ queryKey: ['commission-plans'] });
    },
  });

  if (plan.isPending) return <Loader role="status" aria-label="Loading plan" />;
  if (plan.isError) return <Stack><PageHeader title="Commission plan" /><ErrorAlert error={plan.error} /></Stack>;
  const p = plan.data;
  return (
    <Stack>
      <Anchor component={Link} to="/commissions" size="sm">← Commission plans</Anchor>
      <PageHeader title={p.name}
        description={<>{p.description ? `${p.description} · ` : ''}version {p.version}, changed <DateTime value={p.updatedAt} /></>}
        actions={canWrite && p.status === 'active' && <>
          <Button variant="default" onClick={() => { setEditing(true); }}>Edit</Button>
          <Button color="red" variant="light" onClick={() => { setArchiving(true); }}>Archive</Button>
        </>} />
      <Group><MoneyStatus status={p.status} /></Group>
      <Card withBorder><DefinitionView plan={p} /></Card>
      <PreviewPanel plan={p} />
      <Title order={2} size="h4">Versions</Title>
      <PagedTable<Version>
        label="Plan versions"
        queryKey={['commission-plans', 'versions', id]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/commission-plans/{id}/versions', { params: { path: { id }, query: { cursor, limit: 20 } } }))}
        rowKey={(v) => String(v.version)}
        empty="No versions."
        columns={[
          { header: 'Version', render: (v) => `v${String(v.version)}` },
          { header: 'Name', render: (v) => v.name },
          { header: 'Pays', render: (v) => <PlanRule plan={{ ...p, definition: v.definition }} /> },
          { header: 'Holding', render: (v) => `${String(v.definition.holdingDays)} days` },
          { header: 'By', render: (v) => <PersonName id={v.createdBy} /> },
          { header: 'When', render: (v) => <DateTime value={v.createdAt} /> },
        ]}
      />
      {editing && <PlanEditor plan={p} opened onClose={() => { setEditing(false); }} onSaved={() => { setEditing(false); }} />}
      <Modal lockScroll={false} opened={archiving} onClose={() => { setArchiving(false); }} title="Archive this plan?">
        <Stack>
          <Text size="sm">“{p.name}” stops accruing on new events. Commissions it already booked stay, and clawbacks still reach them. An archived plan cannot be changed or reactivated.</Text>
          <ErrorAlert error={archive.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setArchiving(false); }}>Keep it</Button>
            <Button color="red" loading={archive.isPending} onClick={() => { archive.mutate(); }}>Archive plan</Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
