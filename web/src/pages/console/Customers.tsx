import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Button, Checkbox, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';

type Customer = Schemas['Customer'];

/** The form of a customer's fields, shared by creating and editing. */
export interface CustomerValues { name: string; email: string; externalId: string; partnerId: string }

export function CustomerFields({ form }: { form: ReturnType<typeof useForm<CustomerValues>> }) {
  return (
    <>
      <TextInput label="Name" {...form.getInputProps('name')} />
      <TextInput label="Email" type="email" {...form.getInputProps('email')} />
      <TextInput label="External id" description="Your own id of the customer, unique in your workspace" {...form.getInputProps('externalId')} />
      <PartnerSelect label="Attributed to partner" description="Leave empty while no partner brought the customer"
        value={form.values.partnerId} onChange={(v) => { form.setFieldValue('partnerId', v); }} error={form.errors.partnerId} />
    </>
  );
}

function CreateCustomer({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<CustomerValues>({ initialValues: { name: '', email: '', externalId: '', partnerId: '' } });
  const create = useMutation({
    mutationFn: async (v: CustomerValues) => unwrap(await api.POST('/api/customers', {
      body: {
        ...(v.name.trim() ? { name: v.name.trim() } : {}),
        ...(v.email.trim() ? { email: v.email.trim() } : {}),
        ...(v.externalId.trim() ? { externalId: v.externalId.trim() } : {}),
        ...(v.partnerId ? { partnerId: v.partnerId } : {}),
      },
    })),
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (c) => {
      await queryClient.invalidateQueries({ queryKey: ['customers'] });
      notify(`Customer ${c.name ?? c.email ?? c.id} created`);
      form.reset();
      onClose();
      await navigate(`/customers/${c.id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="New customer">
      <form onSubmit={form.onSubmit((v) => { create.mutate(v); })}>
        <Stack>
          <ErrorAlert error={create.error} shownFields={['name', 'email', 'externalId', 'partnerId']} />
          <CustomerFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={create.isPending}>Create customer</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The customers partners brought (or nobody yet), filtered by partner, email or attribution. */
export default function Customers() {
  const canWrite = useCan('customers:write');
  const [partnerId, setPartnerId] = useState('');
  const [email, setEmail] = useState('');
  const [unattributed, setUnattributed] = useState(false);
  const [creating, setCreating] = useState(false);
  const [emailQuery] = useDebouncedValue(email.trim(), 300);
  const query = {
    ...(partnerId && !unattributed ? { partnerId } : {}),
    ...(emailQuery ? { email: emailQuery } : {}),
    ...(unattributed ? { unattributed: true } : {}),
  };
  return (
    <Stack gap="md">
      <PageHeader title="Customers" description="The customers your partners brought, and those no partner brought yet."
        actions={canWrite && <Button onClick={() => { setCreating(true); }}>New customer</Button>} />
      <Group align="flex-end" wrap="wrap">
        <PartnerSelect label="Partner" placeholder="Any partner" w={240} value={partnerId} onChange={setPartnerId} disabled={unattributed} />
        <TextInput label="Email" placeholder="Exact email" w={260} value={email} onChange={(e) => { setEmail(e.currentTarget.value); }} />
        <Checkbox label="Only unattributed" checked={unattributed} onChange={(e) => { setUnattributed(e.currentTarget.checked); }} mb={8} />
      </Group>
      <PagedTable<Customer>
        label="Customers"
        queryKey={['customers', 'list', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/customers', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty={partnerId || emailQuery || unattributed ? 'No customer matches these filters.' : 'No customers yet.'}
        columns={[
          { header: 'Customer', render: (c) => <Anchor component={Link} to={`/customers/${c.id}`} size="sm">{c.name || c.email || c.externalId || c.id}</Anchor> },
          { header: 'Email', render: (c) => c.email ?? '—' },
          { header: 'External id', render: (c) => c.externalId ?? '—' },
          { header: 'Partner', render: (c) => c.partnerId ? <PartnerName id={c.partnerId} /> : 'Unattributed' },
          { header: 'Created', render: (c) => <DateTime value={c.createdAt} /> },
        ]}
      />
      {canWrite && <CreateCustomer opened={creating} onClose={() => { setCreating(false); }} />}
    </Stack>
  );
}
