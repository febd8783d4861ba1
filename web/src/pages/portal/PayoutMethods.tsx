import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Alert, Button, Grid, Group, Modal, NativeSelect, Stack, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { PortalConfirm } from '../../ui/PortalConfirm';

type Method = Schemas['PayoutMethod'];
type Kind = Method['kind'];

const kindLabels: Record<Kind, string> = { bank: 'Bank account', paypal: 'PayPal', stripe: 'Stripe', wise: 'Wise', other: 'Other' };

/** The kinds a partner types in; a Stripe account is connected through Stripe's onboarding instead. */
const typedKinds: Kind[] = ['bank', 'paypal', 'wise', 'other'];

/** The detail fields each kind of method asks for; only the filled ones of the chosen kind are sent. */
const detailFields: Record<Kind, { key: string; label: string; description?: string; required?: boolean; autoComplete?: string }[]> = {
  bank: [
    { key: 'accountHolder', label: 'Account holder', autoComplete: 'name' },
    { key: 'iban', label: 'IBAN', description: 'Or leave empty and give an account number' },
    { key: 'bic', label: 'BIC / SWIFT' },
    { key: 'accountNumber', label: 'Account number', description: 'Only for accounts without an IBAN' },
    { key: 'bankCode', label: 'Bank or routing code' },
  ],
  paypal: [{ key: 'email', label: 'PayPal email', required: true, autoComplete: 'email' }],
  stripe: [{ key: 'accountId', label: 'Stripe account id', description: 'acct_…; “Connect with Stripe” makes one', required: true }],
  wise: [
    { key: 'recipientId', label: 'Wise recipient id', description: 'Or leave empty and give the IBAN and account holder' },
    { key: 'iban', label: 'IBAN' },
    { key: 'accountHolder', label: 'Account holder', autoComplete: 'name' },
  ],
  other: [
    { key: 'account', label: 'Account or wallet', required: true },
    { key: 'instructions', label: 'Payment instructions' },
  ],
};

interface Values { kind: Kind; label: string; details: Record<string, string> }

function AddMethod({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm<Values>({
    initialValues: { kind: 'bank', label: '', details: {} },
    validate: (v) => {
      const errs: Record<string, string> = {};
      for (const f of detailFields[v.kind]) {
        if (f.required && !v.details[f.key]?.trim()) errs[`details.${f.key}`] = `Enter the ${f.label.toLowerCase()}`;
      }
      if (v.kind === 'bank' && !v.details.iban?.trim() && !v.details.accountNumber?.trim()) errs['details.iban'] = 'Enter an IBAN or an account number';
      if (v.kind === 'wise' && !v.details.recipientId?.trim() && !(v.details.iban?.trim() && v.details.accountHolder?.trim())) {
        errs['details.recipientId'] = 'Enter a Wise recipient id, or the IBAN and the account holder';
      }
      return errs;
    },
  });
  const close = () => { form.reset(); add.reset(); onClose(); };
  const add = useMutation({
    mutationFn: async (v: Values) => {
      const details = Object.fromEntries(detailFields[v.kind]
        .map((f) => [f.key, v.details[f.key]?.trim() ?? ''] as const)
        .filter(([, value]) => value));
      return unwrap(await api.POST('/api/payout-methods', { body: { kind: v.kind, label: v.label.trim() || undefined, details } }));
    },
    onSuccess: async (m) => {
      notifications.show({ color: 'green', title: 'Payout method added', message: `${m.label ? `${m.label}: ` : ''}${m.masked}` });
      close();
      await queryClient.invalidateQueries({ queryKey: ['payout-methods'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const kind = form.values.kind;
  const shown = ['kind', 'label', 'details', ...detailFields[kind].map((f) => `details.${f.key}`)];
  return (
    <Modal lockScroll={false} opened={opened} onClose={close} title="Add a payout method" size="lg">
      <form noValidate onSubmit={form.onSubmit((v) => { add.mutate(v); })}>
        <Stack>
          <Text size="sm">The details are stored sealed and are never shown again, here or to the program's staff: only a hint such as IBAN ••••1234.</Text>
          <ErrorAlert error={add.error} shownFields={shown} />
          {form.errors.details && <Alert color="red">{form.errors.details}</Alert>}
          <Grid>
            <Grid.Col span={{ base: 12, sm: 5 }}>
              <NativeSelect label="Kind" data={typedKinds.map((k) => ({ value: k, label: kindLabels[k] }))}
                {...form.getInputProps('kind')} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 7 }}>
              <TextInput label="Name" description="How you recognise it, e.g. Main account" {...form.getInputProps('label')} />
            </Grid.Col>
            {detailFields[kind].map((f) => (
              <Grid.Col key={`${kind}.${f.key}`} span={{ base: 12, sm: f.key === 'instructions' ? 12 : 6 }}>
                <TextInput label={f.label} description={f.description} withAsterisk={f.required} autoComplete={f.autoComplete ?? 'off'}
                  spellCheck={false} {...form.getInputProps(`details.${f.key}`)} value={form.values.details[f.key] ?? ''} />
              </Grid.Col>
            ))}
          </Grid>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>Cancel</Button>
            <Button type="submit" loading={add.isPending}>Add payout method</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Starts (or resumes) Stripe's onboarding of the partner's connected account, then goes there. */
function ConnectStripe() {
  const here = `${window.location.origin}${window.location.pathname}`;
  const connect = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/payout-methods/stripe-onboarding', { body: { refreshUrl: here, returnUrl: `${here}?stripe=done` } })),
    onSuccess: (o) => { window.location.assign(o.url); },
  });
  return (
    <Stack gap="xs">
      <Button variant="light" loading={connect.isPending} onClick={() => { connect.mutate(); }}>Connect with Stripe</Button>
      <ErrorAlert error={connect.error} />
    </Stack>
  );
}

/** Where the partner's withdrawals are paid: bank accounts, PayPal, Stripe, Wise, other methods. */
export default function PayoutMethods() {
  const canWrite = useCan('withdrawals:write');
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Method | null>(null);
  const remove = useMutation({
    mutationFn: async (m: Method) => { unwrap(await api.DELETE('/api/payout-methods/{id}', { params: { path: { id: m.id } } })); return m; },
    onSuccess: async (m) => {
      setRemoving(null);
      notifications.show({ color: 'green', message: `Removed ${m.label || m.masked}` });
      await queryClient.invalidateQueries({ queryKey: ['payout-methods'] });
    },
  });
  return (
    <Stack>
      <PageHeader title="Payout methods" description="Where your withdrawals are paid. Details are never shown again once saved."
        actions={canWrite && <Group align="flex-start"><ConnectStripe /><Button onClick={() => { setAdding(true); }}>Add payout method</Button></Group>} />
      {new URLSearchParams(window.location.search).get('stripe') === 'done' && (
        <Alert color="green">Back from Stripe: once Stripe has verified your account, withdrawals to your Stripe method are paid as transfers.</Alert>
      )}
      <PagedTable<Method>
        label="Payout methods"
        queryKey={['payout-methods', 'mine']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/payout-methods', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(m) => m.id}
        empty="No payout methods yet: add one before you request a withdrawal."
        columns={[
          { header: 'Name', render: (m) => m.label || kindLabels[m.kind] },
          { header: 'Kind', render: (m) => kindLabels[m.kind] },
          { header: 'Details', render: (m) => <Text size="sm" ff="monospace">{m.masked}</Text> },
          { header: 'Added', render: (m) => <DateTime value={m.createdAt} /> },
          ...(canWrite ? [{ header: <VisuallyHidden>Action</VisuallyHidden>, render: (m: Method) => (
            <Button size="xs" variant="subtle" color="red" aria-label={`Remove ${m.label || m.masked}`}
              onClick={() => { remove.reset(); setRemoving(m); }}>Remove</Button>
          ) }] : []),
        ]}
      />
      {canWrite && <AddMethod opened={adding} onClose={() => { setAdding(false); }} />}
      <PortalConfirm opened={removing !== null} title="Remove this payout method?" confirmLabel="Remove"
        loading={remove.isPending} error={remove.error}
        onClose={() => { setRemoving(null); }} onConfirm={() => { if (removing) remove.mutate(removing); }}>
        {`${removing?.label || (removing ? kindLabels[removing.kind] : '')} (${removing?.masked ?? ''}) can no longer be chosen for withdrawals. Withdrawals already requested with it keep it.`}
      </PortalConfirm>
    </Stack>
  );
}
