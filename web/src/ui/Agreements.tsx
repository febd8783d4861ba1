// A legal agreement version's exact document, as partners and operators read it.
import { useState } from 'react';
import { Button, Code, Group, Loader, ScrollArea, Stack, Text } from '@mantine/core';
import { useAgreementDocument } from './agreementData';
import { ErrorAlert } from './ErrorAlert';
import { downloadFile } from './files';

/** The media type of a version uploaded as a PDF. */
export const agreementPDF = 'application/pdf';

/**
 * A version's exact document with its SHA-256. Markdown is shown as written (preformatted), never
 * turned into HTML, so what the partner reads is the very text its hash covers; a PDF is offered
 * for download, byte for byte the file its hash covers.
 */
export function AgreementText({ agreementId, versionId, sha256, label, contentType, fileName }: {
  agreementId: string; versionId: string; sha256: string; label: string; contentType?: string; fileName?: string;
}) {
  if (contentType === agreementPDF) {
    return <AgreementPDF agreementId={agreementId} versionId={versionId} sha256={sha256} fileName={fileName || 'agreement.pdf'} />;
  }
  return <AgreementMarkdown agreementId={agreementId} versionId={versionId} sha256={sha256} label={label} />;
}

function AgreementMarkdown({ agreementId, versionId, sha256, label }: { agreementId: string; versionId: string; sha256: string; label: string }) {
  const doc = useAgreementDocument(agreementId, versionId);
  return (
    <Stack gap="xs">
      {doc.isPending && <Loader size="sm" aria-label="Loading the document" />}
      <ErrorAlert error={doc.error} />
      {doc.data !== undefined && (
        <ScrollArea.Autosize mah={480} type="auto" role="region" aria-label={label} tabIndex={0}>
          <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'inherit', margin: 0 }}>{doc.data}</Text>
        </ScrollArea.Autosize>
      )}
      <Text size="xs" c="dimmed">SHA-256 of this text: <Code data-testid="agreement-sha256" style={{ overflowWrap: 'anywhere' }}>{sha256}</Code></Text>
    </Stack>
  );
}

function AgreementPDF({ agreementId, versionId, sha256, fileName }: { agreementId: string; versionId: string; sha256: string; fileName: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await downloadFile(`/api/agreements/${encodeURIComponent(agreementId)}/versions/${encodeURIComponent(versionId)}/document`, fileName);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs">
      <Text size="sm">This agreement is a PDF document: <b>{fileName}</b>. Download it and read it before you accept.</Text>
      <Group><Button variant="light" loading={busy} onClick={() => { void download(); }}>Download {fileName}</Button></Group>
      <ErrorAlert error={error} />
      <Text size="xs" c="dimmed">SHA-256 of this PDF: <Code data-testid="agreement-sha256" style={{ overflowWrap: 'anywhere' }}>{sha256}</Code></Text>
    </Stack>
  );
}
