import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { kindLabel, usePendingAgreements } from '../../ui/agreementData';
import { AgreementText } from '../../ui/Agreements';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { Certificate } from '../../ui/AgreementCertificate';

type Acceptance = Schemas['AgreementAcceptance'];

/**
 * The agreements the partner must accept (each version's exact text, its SHA-256, and "I accept"),
 * then the acceptances its organisation gave, each with its signed certificate.
 */
export default function PortalAgreements() {
  const pending = usePendingAgreements(true);
  if (pending.isPending) return <Loader aria-label="Loading agreements" />;
  if (pending.isError) return <ErrorAlert error={pending.error} />;
  const list = pending.data.data;
  return (
    <Stack>
      <PageHeader title="Agreements" description={pending.data.blocking
        ? 'Your organisation must accept these agreements before it uses the portal, registers deals or withdraws money.'
        : 'The agreements your organisation is asked to accept.'} />
      {list.length === 0 && <Text>Your organisation has accepted every agreement asked of it.</Text>}
      {list.map((p) => <Pending key={p.versionId} pending={p} />)}
      <Accepted />
    </Stack>
  );
}

/** The acceptances of the partner's organisation, newest last, each with its certificate. */
function Accepted() {
  const [cert, setCert] = useState<Acceptance | null>(null);
  return (
    <Card withBorder component="section" aria-labelledby="accepted-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="accepted-title">Accepted agreements</Title>
        <Text size="sm" c="dimmed">Every acceptance of your organisation, with a signed certificate anyone can verify.</Text>
        <PagedTable<Acceptance>
          label="Accepted agreements"
          queryKey={['agreements', 'acceptances', 'mine']}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/agreement-acceptances', { params: { query: { cursor, limit: 25 } } }))}
          rowKey={(x) => x.id}
          empty="Your organisation has not accepted an agreement yet."
          columns={[
            { header: 'Agreement', render: (x) => <>{x.agreementTitle ?? 'Agreement'}</> },
            { header: 'Version', render: (x) => <>v{x.versionNumber}{x.onBehalf ? ' (recorded for you)' : ''}</> },
            { header: 'Accepted', render: (x) => <DateTime value={x.acceptedAt} /> },
            { header: 'Certificate', render: (x) => <Button size="compact-sm" variant="light" aria-label={`Certificate of version ${String(x.versionNumber)} accepted ${new Date(x.acceptedAt).toLocaleString()}`} onClick={() => { setCert(x); }}>Certificate</Button> },
          ]}
        />
      </Stack>
      <Modal opened={!!cert} onClose={() => { setCert(null); }} title="Acceptance certificate" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {cert && <Certificate acceptance={cert} />}
      </Modal>
    </Card>
  );
}

function Pending({ pending: p }: { pending: Schemas['PendingAgreement'] }) {
  const queryClient = useQueryClient();
  const canAccept = useCan('agreements:accept');
  const [read, setRead] = useState(false);
  const accept = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreements/{id}/versions/{versionId}/accept', {
      params: { path: { id: p.agreementId, versionId: p.versionId } }, body: { sha256: p.sha256 },
    })),
    onSuccess: async () => { notify(`${p.title} accepted`); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); },
  });
  const titleId = `agreement-${p.versionId}`;
  return (
    <Card withBorder component="section" aria-labelledby={titleId}>
      <Stack gap="sm">
        <Title order={2} size="h4" id={titleId}>{p.title}</Title>
        <Text size="sm" c="dimmed">
          {kindLabel(p.kind)} · version {p.versionNumber} · {p.blocking ? 'required now' : <>required from <DateTime value={p.from} /></>}
          {p.graceUntil && <> · grace period until <DateTime value={p.graceUntil} /></>}
        </Text>
        <AgreementText agreementId={p.agreementId} versionId={p.versionId} sha256={p.sha256} label={`Text of ${p.title}`}
          contentType={p.contentType} fileName={p.fileName} />
        {canAccept ? (
          <>
            <Checkbox label="I have read this agreement and accept it for my organisation" checked={read} onChange={(e) => { setRead(e.currentTarget.checked); }} />
            <ErrorAlert error={accept.error} />
            <Group><Button disabled={!read} loading={accept.isPending} onClick={() => { accept.mutate(); }}>I accept</Button></Group>
          </>
        ) : (
          <Alert color="yellow" title="An administrator must accept">An administrator of your organisation must accept this agreement; you cannot accept it yourself.</Alert>
        )}
      </Stack>
    </Card>
  );
}
