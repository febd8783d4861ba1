import { useState } from 'react';
import { Badge, Button, Code, Group, Modal, MultiSelect, Stack, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { ConfirmButton } from '../../ui/DataConfirm';
import { localInputToISO } from '../../ui/format';

type Key = Schemas['MachineKey'];
interface KeyValues { name: string; scopes: string[]; partnerId: string; expiresAt: string }

function KeyState({ k, now }: { k: Key; now: number }) {
  if (k.revokedAt) return <Badge variant="dot" color="gray">revoked</Badge>;
  if (k.expiresAt && new Date(k.expiresAt).getTime() <= now) return <Badge variant="dot" color="gray">expired</Badge>;
  return <Badge variant="dot" color="green">active</Badge>;
}

function MintKey({ opened, onClose, onMinted }: { opened: boolean; onClose: () => void; onMinted: (key: string) => void }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const form = useForm<KeyValues>({ initialValues: { name: '', scopes: [], partnerId: '', expiresAt: '' } });
  const mint = useMutation({
    mutationFn: async (v: KeyValues) => {
      const expiresAt = localInputToISO(v.expiresAt);
      return unwrap(await api.POST('/api/apikeys', {
        body: { name: v.name.trim(), scopes: v.scopes, ...(v.partnerId ? { partnerId: v.partnerId } : {}), ...(expiresAt ? { expiresAt } : {}) },
      }));
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (k) => {
      await queryClient.invalidateQueries({ queryKey: ['apikeys'] });
      notify(`Machine key ${k.name} minted`);
      form.reset();
      onClose();
      onMinted(k.key);
    },
  });
  const submit = (v: KeyValues) => {
    if (v.scopes.length === 0) form.setFieldError('scopes', 'Pick at least one permission');
    else mint.mutate(v);
  };
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Mint a machine key" size="lg">
      <form onSubmit={form.onSubmit(submit)}>
        <Stack>
          <ErrorAlert error={mint.error} shownFields={['name', 'scopes', 'partnerId', 'expiresAt']} />
          <TextInput label="Name" required description="What uses the key, e.g. billing-sync" {...form.getInputProps('name')} />
          <MultiSelect label="Permissions" required searchable description="Only permissions you hold yourself; give the key the fewest it needs"
            data={[...(me.data?.permissions ?? [])].sort()} {...form.getInputProps('scopes')} />
          <PartnerSelect label="Bound to partner" description="A bound key acts as that partner and sees only its data"
            placeholder="Not bound: acts for the workspace" value={form.values.partnerId}
            onChange={(v) => { form.setFieldValue('partnerId', v); }} error={form.errors.partnerId} />
          <TextInput label="Expires" type="datetime-local" description="In your time zone; empty for a key that does not expire" {...form.getInputProps('expiresAt')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={mint.isPending}>Mint key</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Keys your systems call the API with: what each may do, when it was last used, revoking it. */
export default function ApiKeys() {
  const canWrite = useCan('apikeys:write');
  const queryClient = useQueryClient();
  const [minting, setMinting] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [now] = useState(() => Date.now());
  const revoke = async (k: Key) => {
    unwrap(await api.DELETE('/api/apikeys/{id}', { params: { path: { id: k.id } } }));
    await queryClient.invalidateQueries({ queryKey: ['apikeys'] });
    notify(`Machine key ${k.name} revoked`);
  };
  return (
    <Stack gap="md">
      <PageHeader title="Machine keys" description="API keys for your systems. Each key holds only the permissions it was given."
        actions={canWrite && <Button onClick={() => { setMinting(true); }}>Mint key</Button>} />
      <PagedTable<Key>
        label="Machine keys"
        queryKey={['apikeys', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/apikeys', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(k) => k.id}
        empty="No machine keys yet."
        columns={[
          { header: 'Name', render: (k) => <Text size="sm" fw={500}>{k.name}</Text> },
          { header: 'Key starts', render: (k) => <Code>{k.prefix}…</Code> },
          { header: 'Permissions', render: (k) => <Group gap={4} maw={320}>{(k.scopes ?? []).map((s) => <Code key={s}>{s}</Code>)}</Group> },
          { header: 'Partner', render: (k) => k.partnerId ? <PartnerName id={k.partnerId} /> : '—' },
          { header: 'Last used', render: (k) => k.lastUsedAt ? <DateTime value={k.lastUsedAt} /> : 'never' },
          { header: 'Expires', render: (k) => k.expiresAt ? <DateTime value={k.expiresAt} /> : 'never' },
          { header: 'State', render: (k) => <KeyState k={k} now={now} /> },
          ...(canWrite ? [{ header: <VisuallyHidden>Actions</VisuallyHidden>, render: (k: Key) => !k.revokedAt && (
            <ConfirmButton size="xs" label="Revoke" aria-label={`Revoke ${k.name}`} title={`Revoke ${k.name}?`} confirmLabel="Revoke key"
              message="Systems using this key are refused from now on. This cannot be undone." onConfirm={() => revoke(k)} />
          ) }] : []),
        ]}
      />
      {canWrite && <MintKey opened={minting} onClose={() => { setMinting(false); }} onMinted={setSecret} />}
      <SecretOnce title="Your new machine key" secret={secret} onClose={() => { setSecret(null); }} />
    </Stack>
  );
}
