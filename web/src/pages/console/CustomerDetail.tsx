import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notify } from '../../ui/DataNotify';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PartnerName } from '../../ui/DataPartnerSelect';
import { ConfirmButton } from '../../ui/DataConfirm';
import { EventTable } from '../../ui/DataEventTable';
import { CustomerFields, type CustomerValues } from './Customers';
import { Field } from '../../ui/Field';

type Customer = Schemas['Customer'];

function EditCustomer({ customer, opened, onClose }: { customer: Customer; opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<CustomerValues>({
    initialValues: { name: customer.name ?? '', email: customer.email ?? '', externalId: customer.externalId ?? '', partnerId: customer.partnerId ?? '' },
  });
  const save = useMutation({
    mutationFn: async (v: CustomerValues) => {
      // Only what changed; an empty partner removes the attribution.
      const body: Schemas['UpdateCustomerInputBody'] = {};
      if (v.name !== (customer.name ?? '')) body.name = v.name.trim();
      if (v.email !== (customer.email ?? '')) body.email = v.email.trim();
      if (v.externalId !== (customer.externalId ?? '')) body.externalId = v.externalId.trim();
      if (v.partnerId !== (customer.partnerId ?? '')) body.partnerId = v.partnerId;
      return unwrap(await api.PATCH('/api/customers/{id}', { params: { path: { id: customer.id } }, body }));
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (c) => {
      queryClient.setQueryData(['customers', 'one', c.id], c);
      await queryClient.invalidateQueries({ queryKey: ['customers'] });
      notify('Customer saved');
      onClose();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="Edit customer">
      <form onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={['name', 'email', 'externalId', 'partnerId']} />
          <CustomerFields form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** One customer: who they are, the partner they are attributed to, and their events. */
export default function CustomerDetail() {
  const { id = '' } = useParams();
  const canWrite = useCan('customers:write');
  const canEvents = useCan('events:read');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const customer = useQuery({
    queryKey: ['customers', 'one', id],
    queryFn: async () => unwrap(await api.GET('/api/customers/{id}', { params: { path: { id } } })),
  });
  const c = customer.data;
  const remove = async () => {
    unwrap(await api.DELETE('/api/customers/{id}', { params: { path: { id } } }));
    notify('Customer deleted');
    // Leave the page first, so nothing refetches what is gone.
    await navigate('/customers');
    queryClient.removeQueries({ queryKey: ['customers', 'one', id] });
    await queryClient.invalidateQueries({ queryKey: ['customers'] });
  };
  if (customer.isError) return <Stack><PageHeader title="Customer" /><ErrorAlert error={customer.error} /></Stack>;
  return (
    <Stack gap="md">
      <PageHeader title={c ? (c.name || c.email || c.externalId || 'Customer') : 'Customer'}
        description={c?.email}
        actions={c && canWrite && (
          <>
            <Button variant="default" onClick={() => { setEditing(true); }}>Edit</Button>
            <ConfirmButton label="Delete" title="Delete this customer?" confirmLabel="Delete customer"
              message="The customer is removed; their events stay in the event log." onConfirm={remove} />
          </>
        )} />
      <Card withBorder>
        {!c ? <Skeleton height={60} /> : (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Field label="Email">{c.email ?? '—'}</Field>
            <Field label="External id">{c.externalId ?? '—'}</Field>
            <Field label="Partner">{c.partnerId ? <PartnerName id={c.partnerId} /> : 'Unattributed'}</Field>
            <Field label="Created"><DateTime value={c.createdAt} /></Field>
            <Field label="Updated"><DateTime value={c.updatedAt} /></Field>
            <Field label="Id"><Text ff="monospace" size="sm">{c.id}</Text></Field>
          </SimpleGrid>
        )}
      </Card>
      {canEvents && (
        <>
          <Title order={2} size="h4">Events</Title>
          <EventTable filters={{ customerId: id }} showCustomer={false} />
        </>
      )}
      {c && canWrite && editing && <EditCustomer customer={c} opened={editing} onClose={() => { setEditing(false); }} />}
    </Stack>
  );
}
