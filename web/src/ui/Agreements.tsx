// A legal agreement version's exact text, as partners and operators read it.
import { Code, Loader, ScrollArea, Stack, Text } from '@mantine/core';
import { useAgreementDocument } from './agreementData';
import { ErrorAlert } from './ErrorAlert';

/**
 * A version's exact text with its SHA-256. The Markdown is shown as written (preformatted), never
 * turned into HTML, so what the partner reads is the very text its hash covers.
 */
export function AgreementText({ agreementId, versionId, sha256, label }: { agreementId: string; versionId: string; sha256: string; label: string }) {
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
