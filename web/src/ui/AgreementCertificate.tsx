import { Button, Code, Group, Loader, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorAlert } from './ErrorAlert';

type Acceptance = Schemas['AgreementAcceptance'];

/** The signed certificate of one acceptance: what it attests, the JWS, and a download of both. */
export function Certificate({ acceptance }: { acceptance: Acceptance }) {
  const cert = useQuery({
    queryKey: ['agreements', 'certificate', acceptance.id], staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/agreement-acceptances/{id}/certificate', { params: { path: { id: acceptance.id } } })),
  });
  if (cert.isPending) return <Loader size="sm" aria-label="Loading certificate" />;
  if (cert.isError) return <ErrorAlert error={cert.error} />;
  const c = cert.data.certificate;
  const download = () => {
    const url = URL.createObjectURL(new Blob([JSON.stringify(cert.data, null, 2)], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `acceptance-${acceptance.id}.json`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
  };
  const rows: [string, string][] = [
    ['Agreement', `${c.agreement} · version ${String(c.versionNumber)}`], ['Partner', c.partner], ['Accepted by', c.userEmail],
    ['Accepted at', new Date(c.acceptedAt).toLocaleString()], ['From', `${c.clientAddress} · ${c.userAgent}`], ['SHA-256', c.sha256],
  ];
  return (
    <Stack gap="xs">
      {rows.map(([k, v]) => <Text key={k} size="sm" style={{ overflowWrap: 'anywhere' }}><b>{k}:</b> {v}</Text>)}
      <Text size="xs" c="dimmed">Signed (JWS, EdDSA); anyone verifies it with the public keys at /api/agreement-certificate-keys.</Text>
      <Code block style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>{cert.data.jws}</Code>
      <Group justify="flex-end"><Button onClick={download}>Download certificate</Button></Group>
    </Stack>
  );
}
