import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Button, Loader, Paper, Stack } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatDateTime } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';

/** One document: shown in a sandbox (no scripts, no forms), printable, downloadable. */
export default function DocumentPage() {
  const { id = '' } = useParams();
  const q = useQuery({
    queryKey: ['documents', id],
    queryFn: async () => unwrap(await api.GET('/api/documents/{id}', { params: { path: { id } } })),
  });
  if (q.isPending) return <Loader role="status" aria-label="Loading" />;
  if (q.isError) {
    return (
      <Stack>
        <PageHeader title="Document" />
        <ErrorAlert error={q.error} />
        <Anchor component={Link} to="/portal/documents">Back to documents</Anchor>
      </Stack>
    );
  }
  const doc = q.data;
  const download = () => {
    const url = URL.createObjectURL(new Blob([doc.body], { type: 'text/html' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${doc.title.replace(/[^\w.-]+/g, '-') || 'document'}.html`;
    a.click();
    setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
  };
  return (
    <Stack>
      <PageHeader title={doc.title} description={`Created ${formatDateTime(doc.createdAt)}`}
        actions={<>
          <Button variant="default" onClick={download}>Download</Button>
          <Button variant="subtle" component={Link} to="/portal/documents">All documents</Button>
        </>} />
      <Paper withBorder p={0} style={{ overflow: 'hidden' }}>
        <iframe title={doc.title} sandbox="" srcDoc={doc.body}
          style={{ display: 'block', width: '100%', minHeight: '70vh', border: 0, background: 'white' }} />
      </Paper>
    </Stack>
  );
}
