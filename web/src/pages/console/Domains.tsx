import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Badge, Button, Code, CopyButton, Group, Modal, Paper, Radio, Stack, Text, Textarea, TextInput, Title, Tooltip } from '@mantine/core';
import { api, ApiError, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

type Domain = Schemas['Domain'];

const statusColour: Record<Domain['status'], string> = { pending: 'blue', verified: 'green', failed: 'red', unverified: 'orange' };

/** A domain's verification status as a badge. */
function DomainStatus({ d }: { d: Domain }) {
  return <Badge color={statusColour[d.status]} variant="dot">{d.status}</Badge>;
}

/** A value to copy into the DNS provider, with its copy button. */
function Copyable({ label, value }: { label: string; value: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Code style={{ wordBreak: 'break-all' }}>{value}</Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy'}>
            <Button variant="light" size="compact-xs" aria-label={`Copy ${label}`} onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

/** The TXT record that proves control of a domain's host. */
function RecordToCreate({ d }: { d: Domain }) {
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">Create this TXT record at your DNS provider:</Text>
      <Group gap="xs"><Text size="xs" w={40}>Name</Text><Copyable label={`record name for ${d.host}`} value={d.record.name} /></Group>
      <Group gap="xs"><Text size="xs" w={40}>Value</Text><Copyable label={`record value for ${d.host}`} value={d.record.value} /></Group>
    </Stack>
  );
}

interface AddValues { host: string; portal: 'tenant' | 'partner'; partnerId: string }

function AddDomain({ opened, onClose, onAdded }: { opened: boolean; onClose: () => void; onAdded: (d: Domain) => void }) {
  const queryClient = useQueryClient();
  const form = useForm<AddValues>({
    initialValues: { host: '', portal: 'tenant', partnerId: '' },
    validate: {
      host: (v) => (/^[a-z0-9.-]{3,253}$/i.test(v.trim()) && v.includes('.') ? null : 'A host name like partners.example.com'),
      partnerId: (v, all) => (all.portal === 'partner' && !v ? 'Pick the partner' : null),
    },
  });
  const add = useMutation({
    mutationFn: async (v: AddValues) => unwrap(await api.POST('/api/domains', {
      body: { host: v.host.trim().toLowerCase(), ...(v.portal === 'partner' ? { partnerId: v.partnerId } : {}) },
    })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (d) => {
      await queryClient.invalidateQueries({ queryKey: ['domains'] });
      notify('Domain added: create its TXT record');
      form.reset();
      onAdded(d);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Add a custom domain" size="lg">
      <form onSubmit={form.onSubmit((v) => { add.mutate(v); })}>
        <Stack>
          <ErrorAlert error={add.error} shownFields={['host', 'partnerId']} />
          <TextInput label="Host" required placeholder="partners.example.com" maxLength={253} {...form.getInputProps('host')} />
          <Radio.Group label="Portal" {...form.getInputProps('portal')}>
            <Stack gap={6} mt={6}>
              <Radio value="tenant" label="Your partner portal" />
              <Radio value="partner" label="One partner's co-branded portal" />
            </Stack>
          </Radio.Group>
          {form.values.portal === 'partner' && (
            <PartnerSelect label="Partner" required value={form.values.partnerId || null}
              onChange={(p) => { form.setFieldValue('partnerId', p); }} error={form.errors.partnerId} />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={add.isPending}>Add domain</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The record of a just-added domain, shown until dismissed. */
function AddedRecord({ d, onClose }: { d: Domain | null; onClose: () => void }) {
  return (
    <Modal opened={d !== null} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Verify ${d?.host ?? ''}`} size="lg">
      {d && (
        <Stack>
          <RecordToCreate d={d} />
          <Text size="sm">partnerd looks for the record for up to 72 hours and checks a verified domain daily.</Text>
          <Group justify="flex-end"><Button onClick={onClose}>Done</Button></Group>
        </Stack>
      )}
    </Modal>
  );
}

function DomainActions({ d }: { d: Domain }) {
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/domains/{id}/verify', { params: { path: { id: d.id } } })),
    onSuccess: async () => { await queryClient.invalidateQueries({ queryKey: ['domains'] }); notify(`Checking ${d.host} now`); },
    onError: (err) => { notify(err instanceof Error ? err.message : 'Verification could not start', 'red'); },
  });
  const remove = async () => {
    unwrap(await api.DELETE('/api/domains/{id}', { params: { path: { id: d.id } } }));
    await queryClient.invalidateQueries({ queryKey: ['domains'] });
    notify(`${d.host} removed`);
  };
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="compact-sm" variant="light" loading={verify.isPending} aria-label={`Verify ${d.host} now`} onClick={() => { verify.mutate(); }}>Verify now</Button>
      <ConfirmButton size="compact-sm" label="Remove" aria-label={`Remove ${d.host}`} title={`Remove ${d.host}?`}
        message="The host stops serving your portal at once." confirmLabel="Remove domain" onConfirm={remove} />
    </Group>
  );
}

/** Which lines of the origins list the API refused, and why. */
function originErrors(err: unknown, lines: string[]): string | null {
  if (!(err instanceof ApiError)) return null;
  const bad = (err.problem.errors ?? []).map((e) => {
    const i = /\[(\d+)\]/.exec(e.location ?? '')?.[1];
    return i === undefined ? e.message ?? '' : `${lines[Number(i)] ?? ''}: ${e.message ?? 'invalid'}`;
  }).filter(Boolean);
  return bad.length ? bad.join('; ') : err.message;
}

/** The origins, besides the verified domains, that may call the API from a browser. */
function AllowedOrigins({ canWrite }: { canWrite: boolean }) {
  const current = useQuery({
    queryKey: ['cors-origins'],
    queryFn: async () => unwrap(await api.GET('/api/settings/cors-origins')),
  });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="allowed-origins-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="allowed-origins-title">Allowed origins</Title>
        <Text size="sm" c="dimmed">
          Your verified domains may always call the API from a browser. List other sites of yours here, one
          origin a line (https://www.example.com; http only for localhost), at most 20.
        </Text>
        <ErrorAlert error={current.error} />
        {current.data && <OriginsForm key={current.data.origins.join(' ')} initial={current.data.origins} canWrite={canWrite} />}
      </Stack>
    </Paper>
  );
}

function OriginsForm({ initial, canWrite }: { initial: string[]; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState(initial.join('\n'));
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/settings/cors-origins', { body: { origins: lines } })),
    onSuccess: (data) => {
      queryClient.setQueryData(['cors-origins'], data);
      notify('Allowed origins saved');
    },
  });
  return (
    <>
      <Textarea label="Origins" autosize minRows={3} maxRows={12} readOnly={!canWrite}
        value={text} onChange={(e) => { setText(e.currentTarget.value); }}
        error={save.isError ? originErrors(save.error, lines) : undefined}
        placeholder="https://www.example.com" spellCheck={false} />
      {canWrite && (
        <Group justify="flex-end">
          <Button loading={save.isPending} disabled={lines.length > 20} onClick={() => { save.mutate(); }}>Save origins</Button>
        </Group>
      )}
    </>
  );
}

/** The tenant's custom domains, their verification and the DNS record each needs. */
export default function Domains() {
  const canWrite = useCan('domains:write');
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<Domain | null>(null);
  return (
    <Stack gap="md">
      <PageHeader title="Domains" description="Serve your partner portal under your own domain, once a DNS record proves you control it."
        actions={canWrite && <Button onClick={() => { setAdding(true); }}>Add domain</Button>} />
      <PagedTable<Domain>
        label="Custom domains"
        queryKey={['domains', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/domains', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(d) => d.id}
        empty="No custom domains yet."
        columns={[
          { header: 'Host', render: (d) => <Text size="sm" fw={500}>{d.host}</Text> },
          { header: 'Portal', render: (d) => (d.partnerId ? <PartnerName id={d.partnerId} /> : <Text size="sm">Yours</Text>) },
          { header: 'Status', render: (d) => (
            <Stack gap={2}>
              <DomainStatus d={d} />
              {d.lastError && <Text size="xs" c="dimmed">{d.lastError}</Text>}
              {d.checkedAt && <Text size="xs" c="dimmed">Checked <DateTime value={d.checkedAt} /></Text>}
            </Stack>
          ) },
          { header: 'TXT record', render: (d) => <RecordToCreate d={d} /> },
          ...(canWrite ? [{ header: 'Actions', render: (d: Domain) => <DomainActions d={d} /> }] : []),
        ]}
      />
      {canWrite && <AddDomain opened={adding} onClose={() => { setAdding(false); }} onAdded={(d) => { setAdding(false); setAdded(d); }} />}
      <AddedRecord d={added} onClose={() => { setAdded(null); }} />
      <AllowedOrigins canWrite={canWrite} />
    </Stack>
  );
}
