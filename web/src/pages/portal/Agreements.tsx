import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { kindLabel, usePendingAgreements } from '../../ui/agreementData';
import { AgreementText } from '../../ui/Agreements';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

/** The agreements the partner must accept: each version's exact text, its SHA-256, and "I accept". */
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
    </Stack>
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
