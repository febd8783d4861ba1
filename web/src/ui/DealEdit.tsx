// Changing a deal's details while it is open, shared by the console's deal page and the portal's.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Button, Grid, Group, Modal, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { dealFormField, dealValidators, type DealFormValues } from './dealForm';
import { ErrorAlert } from './ErrorAlert';
import { decimalToMinor, minorToDecimal } from './format';
import { PORTAL_CURRENCIES } from './portal';

type Deal = Schemas['Deal'];

type Values = DealFormValues;
const serverField = dealFormField;
const shownFields = ['customerCompany', 'contactName', 'contactEmail', 'amountMinor', 'currency', 'expectedCloseDate', 'notes'];

/**
 * An "Edit details" button and its form while the deal is open (submitted or approved); the caller
 * shows it only to those holding deals:write.
 */
export function EditDealButton({ deal }: { deal: Deal }) {
  const [open, setOpen] = useState(false);
  if (deal.status !== 'submitted' && deal.status !== 'approved') return null;
  return (
    <>
      <Button variant="default" onClick={() => { setOpen(true); }}>Edit details</Button>
      {open && <EditDeal deal={deal} onClose={() => { setOpen(false); }} />}
    </>
  );
}

function EditDeal({ deal, onClose }: { deal: Deal; onClose: () => void }) {
  const queryClient = useQueryClient();
  const currencies = [...new Set([deal.currency, ...PORTAL_CURRENCIES])];
  const form = useForm<Values>({
    initialValues: {
      customerCompany: deal.customerCompany, contactName: deal.contactName ?? '', contactEmail: deal.contactEmail ?? '',
      amount: minorToDecimal(deal.amountMinor, deal.currency), currency: deal.currency,
      expectedCloseDate: deal.expectedCloseDate ?? '', notes: deal.notes ?? '',
    },
    validate: dealValidators,
  });
  const save = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.PATCH('/api/deals/{id}', {
      params: { path: { id: deal.id } },
      body: {
        customerCompany: v.customerCompany.trim(),
        contactName: v.contactName.trim(),
        contactEmail: v.contactEmail.trim(),
        amountMinor: decimalToMinor(v.amount, v.currency) ?? 0,
        currency: v.currency,
        expectedCloseDate: v.expectedCloseDate,
        notes: v.notes.trim(),
      },
    })),
    onSuccess: async (d) => {
      await queryClient.invalidateQueries({ queryKey: ['deals'] });
      notifications.show({ color: 'green', message: `${d.customerCompany} saved` });
      onClose();
    },
    onError: (err) => {
      const errs = fieldErrors(err);
      form.setErrors(Object.fromEntries(Object.entries(errs).map(([k, v]) => [serverField(k), v])));
    },
  });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={`Edit ${deal.customerCompany}`} size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack>
          <ErrorAlert error={save.error} shownFields={shownFields} />
          <Grid>
            <Grid.Col span={12}>
              <TextInput label="Customer company" withAsterisk maxLength={200} data-autofocus {...form.getInputProps('customerCompany')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <TextInput label="Contact name" autoComplete="off" maxLength={200} {...form.getInputProps('contactName')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <TextInput label="Contact email" type="email" autoComplete="off" maxLength={320} {...form.getInputProps('contactEmail')} />
            </Grid.Col>
            <Grid.Col span={{ base: 7, sm: 5 }}>
              <TextInput label="Deal value" withAsterisk inputMode="decimal" {...form.getInputProps('amount')} />
            </Grid.Col>
            <Grid.Col span={{ base: 5, sm: 3 }}>
              <NativeSelect label="Currency" withAsterisk data={currencies} {...form.getInputProps('currency')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 4 }}>
              <TextInput label="Expected close date" type="date" {...form.getInputProps('expectedCloseDate')} />
            </Grid.Col>
            <Grid.Col span={12}>
              <Textarea label="Notes" autosize minRows={3} maxRows={10} maxLength={5000} {...form.getInputProps('notes')} />
            </Grid.Col>
          </Grid>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>Save details</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
