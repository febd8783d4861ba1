import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Card, Code, Loader, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';

/** One message of the outbox: its headers and its body, as plain text or as sandboxed HTML. */
export default function MailMessage() {
  const { id = '' } = useParams();
  const [view, setView] = useState<'text' | 'html' | 'source'>('text');
  const msg = useQuery({
    queryKey: ['mail', id],
    queryFn: async () => unwrap(await api.GET('/api/mail/messages/{id}', { params: { path: { id } } })),
  });
  if (msg.isPending) return <Loader role="status" aria-label="Loading message" />;
  if (msg.isError) return <Stack><PageHeader title="Message" /><ErrorAlert error={msg.error} /></Stack>;
  const m = msg.data;
  const rows: [string, ReactNode][] = [
    ['From', m.from],
    ['To', m.toName ? `${m.toName} <${m.to}>` : m.to],
    ['Subject', m.subject],
    ['Status', <StatusBadge key="s" status={m.status} />],
    ['Transport', m.transport === 'outbox' ? 'Outbox only (no mail server)' : 'SMTP'],
    ['Purpose', m.purpose],
    ['Reference', m.reference ? (m.purpose === 'playbook'
      ? <Anchor key="r" component={Link} to={`/playbook-runs/${m.reference}`} size="sm">Playbook run {m.reference}</Anchor>
      : m.reference) : '—'],
    ['Created', <DateTime key="c" value={m.createdAt} />],
    ['Sent', <DateTime key="d" value={m.sentAt} />],
    ['Attempts', m.attempts],
    ['Message-ID', m.messageId ? <code key="i">{m.messageId}</code> : '—'],
  ];
  return (
    <Stack>
      <Anchor component={Link} to="/mail" size="sm">← Mail outbox</Anchor>
      <PageHeader title={m.subject || '(no subject)'} description={`To ${m.to}`} />
      {m.error && <ErrorAlert error={new Error(m.error)} />}
      <Card withBorder>
        <Table withRowBorders={false} verticalSpacing={4} aria-label="Headers">
          <Table.Tbody>
            {rows.map(([k, v]) => <Table.Tr key={k}><Table.Th w={140}>{k}</Table.Th><Table.Td>{v}</Table.Td></Table.Tr>)}
          </Table.Tbody>
        </Table>
      </Card>
      <Card withBorder>
        <Stack>
          <Title order={2} size="h4">Body</Title>
          {m.html && (
            <SegmentedControl aria-label="Show the body as" value={view} onChange={(v) => { setView(v === 'html' || v === 'source' ? v : 'text'); }}
              data={[{ value: 'text', label: 'Plain text' }, { value: 'html', label: 'HTML' }, { value: 'source', label: 'HTML source' }]} />
          )}
          {(view === 'text' || !m.html) && (m.text
            ? <Code block data-testid="mail-text" style={{ whiteSpace: 'pre-wrap' }}>{m.text}</Code>
            : <Text c="dimmed" size="sm">This message has no plain-text body.</Text>)}
          {/* The HTML runs in an empty sandbox: no scripts, no same-origin access, no forms. */}
          {view === 'html' && m.html && <iframe title="HTML body" sandbox="" srcDoc={m.html} referrerPolicy="no-referrer"
            style={{ width: '100%', minHeight: 420, border: '1px solid var(--mantine-color-default-border)', background: 'white' }} />}
          {view === 'source' && m.html && <Code block style={{ whiteSpace: 'pre-wrap' }}>{m.html}</Code>}
        </Stack>
      </Card>
    </Stack>
  );
}
