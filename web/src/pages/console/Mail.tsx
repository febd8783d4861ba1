import { Link } from 'react-router';
import { Anchor, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { oneOf, orUndefined, useAdminFilters } from '../../ui/AdminFilters';
import { DateTime } from '../../ui/DateTime';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { localInputToISO } from '../../ui/format';

type Message = Schemas['MailMessage'];

/** Every email the service sent, tried to send, or kept in the outbox. */
export default function Mail() {
  const [f, setF] = useAdminFilters(['to', 'purpose', 'status', 'createdFrom', 'createdBefore'] as const);
  const query = {
    to: orUndefined(f.to.trim()),
    purpose: orUndefined(f.purpose.trim()),
    status: oneOf(f.status, ['sent', 'stored', 'failed'] as const),
    createdFrom: localInputToISO(f.createdFrom),
    createdBefore: localInputToISO(f.createdBefore),
  };
  return (
    <Stack>
      <PageHeader title="Mail outbox" description="Messages partnerd sent by SMTP, or kept here when no mail server is configured." />
      <Group align="flex-end" wrap="wrap">
        <TextInput label="To" type="email" placeholder="name@example.com" w={220} value={f.to} onChange={(e) => { setF({ to: e.currentTarget.value }); }} />
        <TextInput label="Purpose" placeholder="playbook" w={150} value={f.purpose} onChange={(e) => { setF({ purpose: e.currentTarget.value }); }} />
        <Select label="Status" clearable w={140} value={f.status || null} onChange={(v) => { setF({ status: v }); }}
          data={[{ value: 'sent', label: 'Sent' }, { value: 'stored', label: 'Stored' }, { value: 'failed', label: 'Failed' }]} />
        <TextInput label="Created from" type="datetime-local" w={200} value={f.createdFrom} onChange={(e) => { setF({ createdFrom: e.currentTarget.value }); }} />
        <TextInput label="Created before" type="datetime-local" w={200} value={f.createdBefore} onChange={(e) => { setF({ createdBefore: e.currentTarget.value }); }} />
      </Group>
      <PagedTable<Message>
        label="Mail messages"
        queryKey={['mail', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/mail/messages', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(m) => m.id}
        empty="No messages match these filters."
        columns={[
          { header: 'Created', render: (m) => <DateTime value={m.createdAt} /> },
          { header: 'To', render: (m) => <Text size="sm">{m.toName ? `${m.toName} <${m.to}>` : m.to}</Text> },
          { header: 'Subject', render: (m) => <Anchor component={Link} to={`/mail/${m.id}`} size="sm">{m.subject || '(no subject)'}</Anchor> },
          { header: 'Purpose', render: (m) => m.purpose },
          { header: 'Status', render: (m) => <StatusBadge status={m.status} /> },
          { header: 'Attempts', numeric: true, render: (m) => m.attempts },
        ]}
      />
    </Stack>
  );
}
