// Adding a customer of the partner's own, or changing one: the portal's form (customers:write).
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { notify } from '../../ui/DataNotify';
import { ErrorAlert } from '../../ui/ErrorAlert';

type Customer = Schemas['Customer'];
interface Values { name: string; email: string; externalId: string }

/** The customer's name, email and the partner's own reference; a new customer is attributed to the partner. */
export function CustomerDialog({ customer, onClose }: { customer?: Customer; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<Values>({
    initialValues: { name: customer?.name ?? '', email: customer?.email ?? '', externalId: customer?.externalId ?? '' },
    validate: {
      email: (v) => (!v.trim() || /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v.trim()) ? null : 'Enter an email address like name@company.com'),
      name: (v, values) => (v.trim() || values.email.trim() || values.externalId.trim() ? null : 'Give a name, an email or a reference'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: Values) => {
      if (!customer) {
        return unwrap(await api.POST('/api/customers', { body: {
          ...(v.name.trim() ? { name: v.name.trim() } : {}),
          ...(v.email.trim() ? { email: v.email.trim() } : {}),
          ...(v.externalId.trim() ? { externalId: v.externalId.trim() } : {}),
        } }));
      }
      // Only what changed.
      const body: Schemas['UpdateCustomerInputBody'] = {};
      if (v.name !== (customer.name ?? '')) body.name = v.name.trim();
      if (v.email !== (customer.email ?? '')) body.email = v.email.trim();
      if (v.externalId !== (customer.externalId ?? '')) body.externalId = v.externalId.trim();
      return unwrap(await api.PATCH('/api/customers/{id}', { params: { path: { id: customer.id } }, body }));
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
    onSuccess: async (c) => {
      queryClient.setQueryData(['customers', c.id], c);
      await queryClient.invalidateQueries({ queryKey: ['customers'] });
      notify(customer ? 'Customer saved' : `Customer ${c.name ?? c.email ?? c.externalId ?? ''} added`);
      onClose();
      if (!customer) await navigate(`/portal/customers/${c.id}`);
    },
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={customer ? 'Edit customer' : 'Add a customer'}>
      <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={['name', 'email', 'externalId']} />
          <TextInput label="Name" maxLength={200} data-autofocus {...form.getInputProps('name')} />
          <TextInput label="Email" type="email" maxLength={320} {...form.getInputProps('email')} />
          <TextInput label="Your reference" description="Your own id of the customer, unique in the program" maxLength={200} {...form.getInputProps('externalId')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>{customer ? 'Save' : 'Add customer'}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
