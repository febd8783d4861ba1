import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Anchor, Button, Grid, Group, NativeSelect, Paper, Stack, Textarea, TextInput } from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../api/client';
import { dealFormField, dealValidators, type DealFormValues } from '../../ui/dealForm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { currencyDigits, decimalToMinor } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PORTAL_CURRENCIES, usePortalBalances } from '../../ui/portal';

interface Values extends DealFormValues {
  customerDomain: string;
}

const serverField = dealFormField;
const shownFields = ['customerCompany', 'customerDomain', 'contactName', 'contactEmail', 'amountMinor', 'currency', 'expectedCloseDate', 'notes'];

/** Registering a deal: the customer, a contact, the expected value and close date. */
export default function DealNew() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const balances = usePortalBalances();
  const currencies = [...new Set([...(balances.data?.data ?? []).map((b) => b.currency), ...PORTAL_CURRENCIES])];

  const form = useForm<Values>({
    initialValues: {
      customerCompany: '', customerDomain: '', contactName: '', contactEmail: '',
      amount: '', currency: balances.data?.data[0]?.currency ?? 'EUR', expectedCloseDate: '', notes: '',
    },
    validate: dealValidators,
  });

  const register = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.POST('/api/deals', {
      body: {
        customerCompany: v.customerCompany.trim(),
        customerDomain: v.customerDomain.trim() || undefined,
        contactName: v.contactName.trim() || undefined,
        contactEmail: v.contactEmail.trim() || undefined,
        amountMinor: decimalToMinor(v.amount, v.currency) ?? 0,
        currency: v.currency,
        expectedCloseDate: v.expectedCloseDate || undefined,
        notes: v.notes.trim() || undefined,
      },
    })),
    onSuccess: async (deal) => {
      await queryClient.invalidateQueries({ queryKey: ['deals'] });
      notifications.show({
        color: 'green', title: 'Deal registered',
        message: deal.reviewRequired
          ? `${deal.customerCompany} overlaps other registrations; the program reviews it before approving.`
          : `${deal.customerCompany} is submitted for approval.`,
      });
      await navigate(`/portal/deals/${deal.id}`);
    },
    onError: (err) => {
      const errs = fieldErrors(err);
      form.setErrors(Object.fromEntries(Object.entries(errs).map(([k, v]) => [serverField(k), v])));
    },
  });

  return (
    <Stack maw={760}>
      <PageHeader title="Register a deal" description="Register an opportunity early: once approved it is protected for you against other partners."
        actions={<Anchor component={Link} to="/portal/deals" size="sm">Back to deals</Anchor>} />
      <Paper withBorder p={{ base: 'sm', sm: 'lg' }} component="form" noValidate
        onSubmit={form.onSubmit((v) => { register.mutate(v); })}>
        <Stack>
          <ErrorAlert error={register.error} shownFields={shownFields} />
          <Grid>
            <Grid.Col span={{ base: 12, sm: 7 }}>
              <TextInput label="Customer company" withAsterisk autoComplete="organization" {...form.getInputProps('customerCompany')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 5 }}>
              <TextInput label="Customer web domain" description="e.g. initech.com" {...form.getInputProps('customerDomain')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <TextInput label="Contact name" autoComplete="off" {...form.getInputProps('contactName')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <TextInput label="Contact email" type="email" autoComplete="off" {...form.getInputProps('contactEmail')} />
            </Grid.Col>
            <Grid.Col span={{ base: 7, sm: 5 }}>
              <TextInput label="Deal value" withAsterisk inputMode="decimal" placeholder={currencyDigits(form.values.currency) ? '0.00' : '0'}
                {...form.getInputProps('amount')} />
            </Grid.Col>
            <Grid.Col span={{ base: 5, sm: 3 }}>
              <NativeSelect label="Currency" withAsterisk data={currencies} {...form.getInputProps('currency')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 4 }}>
              <TextInput label="Expected close date" type="date" {...form.getInputProps('expectedCloseDate')} />
            </Grid.Col>
            <Grid.Col span={12}>
              <Textarea label="Notes" description="What the customer needs, who else is involved" autosize minRows={3} maxRows={10}
                {...form.getInputProps('notes')} />
            </Grid.Col>
          </Grid>
          <Group justify="flex-end">
            <Button variant="default" component={Link} to="/portal/deals">Cancel</Button>
            <Button type="submit" loading={register.isPending}>Register deal</Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
