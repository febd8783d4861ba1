import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Group, Modal, NativeSelect, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { agreementKinds, kindLabel, requiredOf, type Agreement, type AgreementKind } from '../../ui/agreementData';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { dayToISO, today } from '../../ui/portal';

/** Legal agreements partners accept, and the grace periods that let a partner act before accepting. */
export default function Agreements() {
  const canManage = useCan('agreements:manage');
  const [dialog, setDialog] = useState<'agreement' | 'grace' | null>(null);
  return (
    <Stack>
      <PageHeader title="Agreements" description="Legal documents partners accept before they register deals or withdraw money: partner agreements, NDAs, program terms."
        actions={canManage && <Button onClick={() => { setDialog('agreement'); }}>New agreement</Button>} />
      <PagedTable<Agreement>
        label="Agreements"
        queryKey={['agreements', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/agreements', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(a) => a.id}
        empty="No agreements yet."
        columns={[
          { header: 'Title', render: (a) => <Anchor component={Link} to={`/agreements/${a.id}`}>{a.title}</Anchor> },
          { header: 'Kind', render: (a) => kindLabel(a.kind) },
          { header: 'Versions', render: (a) => String(a.latestVersion) },
          { header: 'Required', render: (a) => (a.requirement ? `v${String(a.requirement.versionNumber)} · ${requiredOf(a.requirement)}` : 'Not required') },
          { header: 'Updated', render: (a) => <DateTime value={a.updatedAt} /> },
        ]}
      />
      {canManage && (
        <Stack gap="xs" component="section" aria-labelledby="graces-title">
          <Group justify="space-between">
            <Title order={2} size="h4" id="graces-title">Grace periods</Title>
            <Button variant="default" onClick={() => { setDialog('grace'); }}>Grant a grace period</Button>
          </Group>
          <Text size="sm" c="dimmed">A partner in its grace period registers deals and withdraws money without accepting; the latest grant of a partner counts.</Text>
          <PagedTable<Schemas['AgreementGrace']>
            label="Grace periods"
            queryKey={['agreements', 'graces']}
            fetchPage={async (cursor) => unwrap(await api.GET('/api/agreement-graces', { params: { query: { cursor, limit: 25 } } }))}
            rowKey={(g) => g.id}
            empty="No grace periods granted."
            columns={[
              { header: 'Partner', render: (g) => <PartnerName id={g.partnerId} /> },
              { header: 'Until', render: (g) => <DateTime value={g.until} /> },
              { header: 'Reason', render: (g) => g.reason },
              { header: 'Granted', render: (g) => <DateTime value={g.createdAt} /> },
            ]}
          />
        </Stack>
      )}
      <Modal opened={dialog === 'agreement'} onClose={() => { setDialog(null); }} title="New agreement" closeButtonProps={{ 'aria-label': 'Close' }}>
        {dialog === 'agreement' && <AgreementForm />}
      </Modal>
      <Modal opened={dialog === 'grace'} onClose={() => { setDialog(null); }} title="Grant a grace period" closeButtonProps={{ 'aria-label': 'Close' }}>
        {dialog === 'grace' && <GraceForm onDone={() => { setDialog(null); }} />}
      </Modal>
    </Stack>
  );
}

function AgreementForm() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [v, setV] = useState({ kind: 'partner_agreement' as AgreementKind, title: '', description: '' });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreements', { body: { kind: v.kind, title: v.title.trim(), description: v.description.trim() || undefined } })),
    onSuccess: async (a) => { notify('Agreement added'); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); void navigate(`/agreements/${a.id}`); },
  });
  const errs = fieldErrors(create.error);
  return (
    <form onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
      <Stack>
        <NativeSelect label="Kind" value={v.kind} data={agreementKinds}
          onChange={(e) => { const kind = e.currentTarget.value as AgreementKind; setV((s) => ({ ...s, kind })); }} />
        <TextInput label="Title" required maxLength={200} value={v.title} error={errs.title} data-autofocus
          onChange={(e) => { const title = e.currentTarget.value; setV((s) => ({ ...s, title })); }} />
        <Textarea label="Description" autosize minRows={2} maxLength={2000} value={v.description} error={errs.description}
          onChange={(e) => { const description = e.currentTarget.value; setV((s) => ({ ...s, description })); }} />
        <ErrorAlert error={create.error} shownFields={['title', 'description']} />
        <Group justify="flex-end"><Button type="submit" disabled={!v.title.trim()} loading={create.isPending}>Add agreement</Button></Group>
      </Stack>
    </form>
  );
}

function GraceForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [until, setUntil] = useState(today(30));
  const [reason, setReason] = useState('');
  const grant = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreement-graces', { body: { partnerId: partnerId ?? '', until: dayToISO(until, true) ?? '', reason: reason.trim() } })),
    onSuccess: async () => { notify('Grace period granted'); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); onDone(); },
  });
  const errs = fieldErrors(grant.error);
  return (
    <form onSubmit={(e) => { e.preventDefault(); grant.mutate(); }}>
      <Stack>
        <PartnerSelect label="Partner" required value={partnerId} onChange={setPartnerId} error={errs.partnerId} />
        <TextInput label="Until" type="date" required description="Through the end of this day; a past day ends the partner's grace period" value={until}
          onChange={(e) => { setUntil(e.currentTarget.value); }} error={errs.until} />
        <Textarea label="Reason" required autosize minRows={2} maxLength={500} value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} error={errs.reason} />
        <ErrorAlert error={grant.error} shownFields={['partnerId', 'until', 'reason']} />
        <Group justify="flex-end"><Button type="submit" disabled={!partnerId || !until || !reason.trim()} loading={grant.isPending}>Grant</Button></Group>
      </Stack>
    </form>
  );
}
