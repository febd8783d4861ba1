import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Group, NumberInput, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { useAdminFilters, oneOf, orUndefined } from '../../ui/AdminFilters';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { downloadFile } from '../../ui/files';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { RejectDialog, ReviewButtons } from '../../ui/Review';
import { StatusBadge } from '../../ui/StatusBadge';
import { formKindLabel } from '../../ui/tax';

type TaxRecord = Schemas['TaxRecord'];
type Requirement = Schemas['TaxSettings']['requirement'];

/** Partners' tax records for finance's review, the rule on withdrawals and the yearly payout totals. */
export default function TaxRecords() {
  const canReview = useCan('tax:review');
  return (
    <Stack>
      <PageHeader title="Tax records" description="Partners' tax details and signed forms. Finance approves or rejects them; the tax rule decides whether withdrawals need an approved one." />
      {canReview && (
        <Group align="stretch" wrap="wrap">
          <Rule />
          <Totals />
        </Group>
      )}
      <Records canReview={canReview} />
    </Stack>
  );
}

const requirements: { value: Requirement; label: string }[] = [
  { value: 'off', label: 'Off' }, { value: 'warn', label: 'Warn' }, { value: 'block', label: 'Block' },
];

/** The tenant's tax rule on withdrawals. */
function Rule() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['tax-settings'], queryFn: async () => unwrap(await api.GET('/api/tax-settings')) });
  const [picked, setPicked] = useState<Requirement | null>(null);
  const value = picked ?? settings.data?.requirement ?? 'off';
  const save = useMutation({
    mutationFn: async (requirement: Requirement) => unwrap(await api.PUT('/api/tax-settings', { body: { requirement } })),
    onSuccess: async () => { notify('Tax rule saved'); await queryClient.invalidateQueries({ queryKey: ['tax-settings'] }); setPicked(null); },
  });
  return (
    <Card withBorder component="section" aria-labelledby="rule-title" maw={460}>
      <Stack gap="xs">
        <Title order={2} size="h4" id="rule-title">Withdrawals without an approved tax record</Title>
        <Text size="sm" c="dimmed">Warn: the withdrawal is taken with a warning. Block: it is refused, at request and at approval.</Text>
        {settings.isError && <ErrorAlert error={settings.error} />}
        {save.error && <ErrorAlert error={save.error} />}
        <SegmentedControl aria-label="Tax rule" data={requirements} value={value} onChange={(v) => { setPicked(v); }} />
        <Group>
          <Button loading={save.isPending} disabled={!settings.data || settings.data.requirement === value} onClick={() => { save.mutate(value); }}>Save the rule</Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** The yearly payout totals per partner and currency, the basis of a 1099. */
function Totals() {
  const [year, setYear] = useState<number | string>(new Date().getUTCFullYear());
  const [failed, setFailed] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Card withBorder component="section" aria-labelledby="totals-title" maw={460}>
      <Stack gap="xs">
        <Title order={2} size="h4" id="totals-title">Payout totals for a year</Title>
        <Text size="sm" c="dimmed">One line per partner and currency with what was paid in the calendar year (UTC) and the partner's tax record: the basis of a 1099.</Text>
        {failed !== null && <ErrorAlert error={failed} />}
        <Group align="flex-end">
          <NumberInput label="Year" w={120} min={2000} max={2200} value={year} onChange={setYear} />
          <Button variant="default" loading={busy} onClick={() => {
            setFailed(null);
            setBusy(true);
            downloadFile(`/api/tax-reports/payout-totals?year=${String(year)}`, `payout-totals-${String(year)}.csv`)
              .catch(setFailed).finally(() => { setBusy(false); });
          }}>Export CSV</Button>
        </Group>
      </Stack>
    </Card>
  );
}

function Records({ canReview }: { canReview: boolean }) {
  const queryClient = useQueryClient();
  const [f, setF] = useAdminFilters(['status', 'partnerId'] as const);
  const query = { status: oneOf(f.status, ['submitted', 'approved', 'rejected'] as const), partnerId: orUndefined(f.partnerId) };
  const [rejecting, setRejecting] = useState<TaxRecord | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const approve = useMutation({
    mutationFn: async (r: TaxRecord) => unwrap(await api.POST('/api/tax-records/{partnerId}/approve', { params: { path: { partnerId: r.partnerId } } })),
    onSuccess: async () => { notify('Tax record approved'); await queryClient.invalidateQueries({ queryKey: ['tax-records'] }); },
  });
  return (
    <Stack gap="xs" component="section" aria-labelledby="records-title">
      <Title order={2} size="h4" id="records-title">Records</Title>
      <Group align="flex-end" wrap="wrap">
        <Select label="Status" clearable w={170} value={f.status || null} onChange={(v) => { setF({ status: v }); }}
          data={[{ value: 'submitted', label: 'Submitted' }, { value: 'approved', label: 'Approved' }, { value: 'rejected', label: 'Rejected' }]} />
        <PartnerSelect label="Partner" clearable w={240} value={f.partnerId || null} onChange={(v) => { setF({ partnerId: v }); }} />
      </Group>
      {approve.error && <ErrorAlert error={approve.error} />}
      {failed !== null && <ErrorAlert error={failed} />}
      <PagedTable<TaxRecord>
        label="Tax records"
        queryKey={['tax-records', 'list', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/tax-records', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(r) => r.id}
        empty="No tax records match these filters."
        columns={[
          { header: 'Partner', render: (r) => <PartnerName id={r.partnerId} /> },
          { header: 'Legal name', render: (r) => r.legalName },
          { header: 'Country', render: (r) => r.country },
          { header: 'Form', render: (r) => formKindLabel(r.formKind) },
          { header: 'Tax id', render: (r) => r.taxIdMasked },
          { header: 'Status', render: (r) => <Stack gap={0}><StatusBadge status={r.status} />{r.reason && <Text size="xs" c="dimmed">{r.reason}</Text>}</Stack> },
          { header: 'Submitted', render: (r) => <DateTime value={r.submittedAt} /> },
          { header: 'Signed form', render: (r) => (r.form ? (
            <Button size="xs" variant="default" aria-label={`Download the signed form of ${r.legalName}`} onClick={() => {
              setFailed(null);
              downloadFile(`/api/tax-records/${r.partnerId}/form`, r.form?.fileName ?? 'form').catch(setFailed);
            }}>Download</Button>
          ) : '—') },
          ...(canReview ? [{ header: 'Review', render: (r: TaxRecord) => (
            <ReviewButtons subject={`the tax record of ${r.legalName}`} approving={approve.isPending && approve.variables.id === r.id}
              onApprove={r.status === 'submitted' ? () => { approve.mutate(r); } : undefined}
              onReject={r.status !== 'rejected' ? () => { setRejecting(r); } : undefined} />
          ) }] : []),
        ]}
      />
      <RejectDialog item={rejecting} title="Reject the tax record" onClose={() => { setRejecting(null); }}
        summary={(r) => <Text size="sm">{r.legalName}: the partner reads the reason and submits again.</Text>}
        reject={async (r, reason) => unwrap(await api.POST('/api/tax-records/{partnerId}/reject', { params: { path: { partnerId: r.partnerId } }, body: { reason } }))}
        rejected="Tax record rejected" queryKey={['tax-records']} />
    </Stack>
  );
}
