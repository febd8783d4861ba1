import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Badge, Button, Card, Checkbox, Group, Modal, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { decimalToMinor, minorToDecimal } from '../../ui/format';
import { Money } from '../../ui/Money';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { label, type Level } from './partnerOptions';
import { ConfirmButton, PartnerName } from './PartnerParts';

type Proposal = Schemas['LevelProposal'];

/** What a level asks of a partner, in words. */
function Requirements({ level }: { level: Level }) {
  const r = level.requirements;
  const parts: ReactNode[] = [];
  if (r.minWonDeals) parts.push(<span key="d">{r.minWonDeals} won deal{r.minWonDeals === 1 ? '' : 's'}</span>);
  if (r.minWonAmountMinor && r.currency) parts.push(<span key="a"><Money minor={r.minWonAmountMinor} currency={r.currency} /> won</span>);
  if (parts.length === 0) return <Text size="sm" c="dimmed">None</Text>;
  return (
    <Text size="sm">
      {parts.map((p, i) => <span key={i}>{i > 0 && ' and '}{p}</span>)} in {r.periodDays ?? 365} days
    </Text>
  );
}

/** The program's partner levels, what each asks, and the level changes the review proposes. */
export default function Levels() {
  const queryClient = useQueryClient();
  const canWrite = useCan('partners:write');
  const [editing, setEditing] = useState<Level | 'new' | null>(null);

  const review = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/levels/review')),
    onSuccess: async (r) => {
      notifications.show({
        color: 'green', title: 'Levels reviewed',
        message: r.changes === 0 ? 'Every partner holds the level its performance earns.'
          : `${String(r.changes)} level change${r.changes === 1 ? '' : 's'} proposed or applied, as your program's setting says.`,
      });
      await queryClient.invalidateQueries({ queryKey: ['level-proposals'] });
      await queryClient.invalidateQueries({ queryKey: ['partners'] });
    },
    onError: (err) => { notifications.show({ color: 'red', title: 'The review failed', message: err.message }); },
  });
  const remove = async (l: Level) => {
    unwrap(await api.DELETE('/api/levels/{id}', { params: { path: { id: l.id } } }));
    notifications.show({ color: 'green', message: `Level ${l.name} deleted` });
    await queryClient.invalidateQueries({ queryKey: ['levels'] });
  };

  return (
    <Stack>
      <PageHeader title="Levels" description="Partner tiers and the won business each asks for; a higher rank is a better level."
        actions={canWrite && <>
          <Button variant="default" loading={review.isPending} onClick={() => { review.mutate(); }}>Review levels</Button>
          <Button onClick={() => { setEditing('new'); }}>New level</Button>
        </>} />
      <PagedTable<Level>
        label="Levels"
        queryKey={['levels', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/levels', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(l) => l.id}
        empty="No levels yet. Partners carry no level until you add one."
        columns={[
          { header: 'Name', render: (l) => <Group gap={6}><Text size="sm" fw={600}>{l.name}</Text>{l.isDefault && <Badge size="sm" variant="light">default</Badge>}</Group> },
          { header: 'Rank', numeric: true, render: (l) => l.rank },
          { header: 'Requirements', render: (l) => <Requirements level={l} /> },
          { header: 'Benefits', render: (l) => <Text size="sm" lineClamp={2}>{l.benefits || '—'}</Text> },
          ...(canWrite ? [{
            header: 'Actions',
            render: (l: Level) => (
              <Group gap={4} wrap="nowrap">
                <Button size="xs" variant="default" aria-label={`Edit level ${l.name}`} onClick={() => { setEditing(l); }}>Edit</Button>
                <ConfirmButton size="xs" title={`Delete level ${l.name}?`} aria-label={`Delete level ${l.name}`}
                  message="A level that partners hold cannot be deleted; move them to another level first."
                  confirmLabel="Delete" onConfirm={() => remove(l)}>Delete</ConfirmButton>
              </Group>
            ),
          }] : []),
        ]}
      />
      {canWrite && <Proposals />}
      {editing && <EditLevel level={editing === 'new' ? null : editing} onClose={() => { setEditing(null); }} />}
    </Stack>
  );
}

/** The level review's proposals: applied or dismissed one by one. */
function Proposals() {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Proposal['status']>('pending');
  const decide = async (p: Proposal, apply: boolean) => {
    unwrap(await api.POST('/api/level-proposals/{id}/decide', { params: { path: { id: p.id } }, body: { apply } }));
    notifications.show({ color: 'green', message: apply ? `Moved to ${p.toLevel}` : 'Proposal dismissed' });
    await queryClient.invalidateQueries({ queryKey: ['level-proposals'] });
    await queryClient.invalidateQueries({ queryKey: ['partners'] });
  };
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">Level proposals</Title>
          <SegmentedControl size="xs" aria-label="Proposal status" value={status}
            onChange={setStatus}
            data={(['pending', 'applied', 'dismissed'] as const).map((s) => ({ value: s, label: label(s) }))} />
        </Group>
        <PagedTable<Proposal>
          label="Level proposals"
          queryKey={['level-proposals', { status }]}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/level-proposals', { params: { query: { cursor, limit: 25, status } } }))}
          rowKey={(p) => p.id}
          empty={status === 'pending' ? 'Nothing to decide. "Review levels" compares every partner with the levels.' : `No ${status} proposals.`}
          columns={[
            { header: 'Partner', render: (p) => <PartnerName id={p.partnerId} /> },
            { header: 'Change', render: (p) => `${p.fromLevel || 'none'} → ${p.toLevel}` },
            { header: 'Why', render: (p) => <Text size="sm">{p.reason}</Text> },
            { header: 'Proposed', render: (p) => <DateTime value={p.createdAt} /> },
            status === 'pending'
              ? {
                  header: 'Decision', render: (p) => (
                    <Group gap={4} wrap="nowrap">
                      <ConfirmButton size="xs" color="indigo" title={`Move the partner to ${p.toLevel}?`}
                        message={`Its level changes from ${p.fromLevel || 'none'} to ${p.toLevel} now.`}
                        confirmLabel="Apply" onConfirm={() => decide(p, true)}>Apply</ConfirmButton>
                      <ConfirmButton size="xs" color="gray" title="Dismiss this proposal?"
                        message={`The partner keeps ${p.fromLevel || 'no level'}.`}
                        confirmLabel="Dismiss" onConfirm={() => decide(p, false)}>Dismiss</ConfirmButton>
                    </Group>
                  ),
                }
              : { header: 'Decision', render: (p) => <><StatusBadge status={p.status} /> <DateTime value={p.decidedAt} /></> },
          ]}
        />
      </Stack>
    </Card>
  );
}

// Problem locations of the requirements that the form holds under other names.
const renamed: Record<string, string> = { 'requirements.minWonAmountMinor': 'requirements.minWonAmount' };

/** Adds a level or changes one, with its requirements. */
function EditLevel({ level, onClose }: { level: Level | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const r = level?.requirements;
  // NumberInput holds '' while its box is empty.
  const num = (n: number): number | string => n;
  const form = useForm({
    initialValues: {
      name: level?.name ?? '',
      rank: num(level?.rank ?? 1),
      isDefault: level?.isDefault ?? false,
      benefits: level?.benefits ?? '',
      requirements: {
        minWonDeals: num(r?.minWonDeals ?? 0),
        minWonAmount: r?.minWonAmountMinor && r.currency ? minorToDecimal(r.minWonAmountMinor, r.currency) : '',
        currency: r?.currency ?? '',
        periodDays: num(r?.periodDays ?? 365),
      },
    },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the level'),
      requirements: {
        currency: (v, values) => (values.requirements.minWonAmount.trim() && !/^[A-Z]{3}$/.test(v) ? 'A three-letter currency code, such as EUR' : null),
        minWonAmount: (v, values) => (v.trim() && decimalToMinor(v, values.requirements.currency || 'EUR') === null ? 'An amount, such as 50000.00' : null),
      },
    },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values) => {
      const rq = v.requirements;
      const minor = rq.minWonAmount.trim() ? decimalToMinor(rq.minWonAmount, rq.currency) ?? 0 : 0;
      const body = {
        name: v.name.trim(), rank: Number(v.rank), isDefault: v.isDefault, benefits: v.benefits,
        requirements: {
          minWonDeals: Number(rq.minWonDeals) || 0,
          minWonAmountMinor: minor,
          ...(minor > 0 ? { currency: rq.currency } : {}),
          periodDays: Number(rq.periodDays) || 365,
        },
      };
      if (level) return unwrap(await api.PATCH('/api/levels/{id}', { params: { path: { id: level.id } }, body }));
      return unwrap(await api.POST('/api/levels', { body }));
    },
    onSuccess: async (l) => {
      notifications.show({ color: 'green', message: `Level ${l.name} saved` });
      await queryClient.invalidateQueries({ queryKey: ['levels'] });
      onClose();
    },
    onError: (err) => {
      const errors = fieldErrors(err);
      form.setErrors(Object.fromEntries(Object.entries(errors).map(([k, m]) => [renamed[k] ?? k, m])));
    },
  });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={level ? `Edit level ${level.name}` : 'New level'} size="lg">
      <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={['name', 'rank', 'isDefault', 'benefits', 'requirements.minWonDeals', 'requirements.minWonAmountMinor', 'requirements.currency', 'requirements.periodDays']} />
          <SimpleGrid cols={2}>
            <TextInput label="Name" required maxLength={64} data-autofocus {...form.getInputProps('name')} />
            <NumberInput label="Rank" required description="Higher is better" allowDecimal={false} min={-1000000} max={1000000} {...form.getInputProps('rank')} />
          </SimpleGrid>
          <Checkbox label="New partners start at this level" {...form.getInputProps('isDefault', { type: 'checkbox' })} />
          <Textarea label="Benefits" maxLength={5000} autosize minRows={2} {...form.getInputProps('benefits')} />
          <Title order={3} size="h5">Requirements</Title>
          <Text size="xs" c="dimmed">What a partner must reach within the period to hold this level. Leave at zero for none.</Text>
          <SimpleGrid cols={2}>
            <NumberInput label="Won deals at least" allowDecimal={false} min={0} max={1000000} {...form.getInputProps('requirements.minWonDeals')} />
            <NumberInput label="Period in days" allowDecimal={false} min={1} max={3650} {...form.getInputProps('requirements.periodDays')} />
            <TextInput label="Won volume at least" inputMode="decimal" placeholder="0.00" {...form.getInputProps('requirements.minWonAmount')} />
            <TextInput label="Currency of the volume" placeholder="EUR" maxLength={3}
              {...form.getInputProps('requirements.currency')}
              onChange={(e) => { form.setFieldValue('requirements.currency', e.currentTarget.value.toUpperCase()); }} />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>{level ? 'Save' : 'Add level'}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
