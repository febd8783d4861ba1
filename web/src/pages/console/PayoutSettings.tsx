import { useEffect, useState } from 'react';
import {
  ActionIcon, Alert, Button, Card, Code, Group, Loader, NumberInput, PasswordInput, SegmentedControl, Stack, Switch, Text, TextInput, Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { decimalToMinor, minorToDecimal } from '../../ui/format';
import { CurrencySelect } from './money/shared';

type Settings = Schemas['PayoutSettings'];
type Batch = Schemas['PayoutBatch'];

const railNames: Record<Batch['provider'], string> = { stripe: 'Stripe', paypal: 'PayPal', wise: 'Wise' };

interface Values {
  provider: 'manual' | 'http';
  httpUrl: string;
  httpSecret: string;
  confirmDays: number | string;
  minimums: { currency: string | null; amount: string }[];
  // The rails: secrets are typed anew (empty keeps the stored one); ids are shown.
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  paypalClientId: string;
  paypalSecret: string;
  wiseProfileId: string;
  wiseToken: string;
  batchDaily: boolean;
}

function toValues(s: Settings): Values {
  return {
    provider: s.provider,
    httpUrl: s.httpUrl ?? '',
    httpSecret: '',
    confirmDays: s.confirmDays,
    minimums: Object.entries(s.minimums as Record<string, number>).map(([currency, m]) => ({ currency, amount: minorToDecimal(m, currency) })),
    stripeSecretKey: '',
    stripeWebhookSecret: '',
    paypalClientId: s.paypalClientId ?? '',
    paypalSecret: '',
    wiseProfileId: s.wiseProfileId ?? '',
    wiseToken: '',
    batchDaily: s.batchDaily,
  };
}

/** A secret of a rail: typed anew or left empty to keep the stored one (never shown). */
function secretHint(set: boolean, shape: string): string {
  return set ? 'Stored; leave empty to keep it. It is never shown.' : shape;
}

function SettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string[]>([]);
  const form = useForm<Values>({
    initialValues: toValues(settings),
    validate: (v) => {
      const e: Record<string, string> = {};
      if (v.provider === 'http' && !/^https?:\/\/\S+$/.test(v.httpUrl.trim())) e.httpUrl = 'An absolute http or https URL';
      if (v.provider === 'http' && !settings.httpSecretSet && !v.httpSecret.trim()) e.httpSecret = 'The provider needs a signing secret';
      const seen = new Set<string>();
      v.minimums.forEach((m, i) => {
        if (!m.currency) e[`minimums.${String(i)}.currency`] = 'Pick a currency';
        else if (seen.has(m.currency)) e[`minimums.${String(i)}.currency`] = 'Listed twice';
        else seen.add(m.currency);
        const minor = decimalToMinor(m.amount, m.currency ?? 'EUR');
        if (minor === null || minor < 0) e[`minimums.${String(i)}.amount`] = `Not an amount in ${m.currency ?? 'this currency'}`;
      });
      return e;
    },
  });
  useEffect(() => { form.setValues(toValues(settings)); form.resetDirty(); }, [settings]); // eslint-disable-line react-hooks/exhaustive-deps

  const save = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.PUT('/api/payout-settings', { body: {
      provider: v.provider,
      httpUrl: v.provider === 'http' ? v.httpUrl.trim() : undefined,
      httpSecret: v.httpSecret.trim() || undefined,
      confirmDays: Number(v.confirmDays) || settings.confirmDays,
      minimums: Object.fromEntries(v.minimums.map((m) => [m.currency ?? '', decimalToMinor(m.amount, m.currency ?? 'EUR') ?? 0])),
      stripeSecretKey: v.stripeSecretKey.trim() || undefined,
      stripeWebhookSecret: v.stripeWebhookSecret.trim() || undefined,
      paypalClientId: v.paypalClientId.trim(),
      paypalSecret: v.paypalSecret.trim() || undefined,
      wiseProfileId: v.wiseProfileId.trim(),
      wiseToken: v.wiseToken.trim() || undefined,
      batchDaily: v.batchDaily,
    } })),
    onSuccess: async (s) => {
      notifications.show({ color: 'green', message: `Payout settings saved: ${s.provider === 'manual' ? 'finance confirms each payout' : 'payouts go to the HTTP provider'}` });
      queryClient.setQueryData(['payout-settings'], s);
      await queryClient.invalidateQueries({ queryKey: ['payout-settings'] });
    },
    onError: (err) => {
      const fe = fieldErrors(err);
      form.setErrors(fe);
      setShown(Object.keys(fe).filter((f) => ['provider', 'httpUrl', 'httpSecret', 'confirmDays', 'stripeSecretKey', 'stripeWebhookSecret',
        'paypalClientId', 'paypalSecret', 'wiseProfileId', 'wiseToken'].includes(f)));
    },
  });

  const v = form.values;
  return (
    <Card withBorder maw={720}>
      <form onSubmit={form.onSubmit((values) => { save.mutate(values); })} noValidate>
        <Stack>
          <div>
            <Text size="sm" fw={600} id="provider-label" mb={4}>Provider</Text>
            <SegmentedControl aria-labelledby="provider-label" data={[{ value: 'manual', label: 'Manual' }, { value: 'http', label: 'HTTP provider' }]}
              {...form.getInputProps('provider')} />
            <Text size="xs" c="dimmed" mt={4}>
              {v.provider === 'manual'
                ? 'Finance pays each approved withdrawal and confirms it with the bank’s reference.'
                : 'An approved withdrawal is POSTed to the provider, signed like webhooks, and retried until it answers.'}
            </Text>
          </div>
          {v.provider === 'http' && <>
            <TextInput label="Provider URL" required placeholder="https://payouts.example.com/pay" {...form.getInputProps('httpUrl')} />
            <PasswordInput label="Signing secret" required={!settings.httpSecretSet}
              description={settings.httpSecretSet ? 'A secret is stored; leave empty to keep it. It is never shown.' : 'whsec_ followed by the base64 of 24 to 64 bytes'}
              autoComplete="off" {...form.getInputProps('httpSecret')} />
          </>}
          <NumberInput label="Days to confirm a manual payout" description="After this a manual payout that nobody confirmed fails and its funds return" min={1} max={90} allowDecimal={false}
            {...form.getInputProps('confirmDays')} />
          <div>
            <Text size="sm" fw={600}>Smallest withdrawal per currency</Text>
            <Text size="xs" c="dimmed" mb="xs">Partners cannot ask for less.</Text>
            <Stack gap="xs">
              {v.minimums.length === 0 && <Text size="sm" c="dimmed">No minimums.</Text>}
              {v.minimums.map((m, i) => (
                <Group key={i} align="flex-start" wrap="nowrap">
                  <CurrencySelect label={`Currency ${String(i + 1)}`} allowDeselect={false} w={140} {...form.getInputProps(`minimums.${String(i)}.currency`)} />
                  <TextInput label={`Minimum ${String(i + 1)}${m.currency ? ` (${m.currency})` : ''}`} inputMode="decimal" {...form.getInputProps(`minimums.${String(i)}.amount`)} />
                  <ActionIcon variant="subtle" color="red" mt={28} aria-label={`Remove minimum ${String(i + 1)}`}
                    onClick={() => { form.removeListItem('minimums', i); }}>✕</ActionIcon>
                </Group>
              ))}
              <Button variant="light" size="xs" w="fit-content" onClick={() => { form.insertListItem('minimums', { currency: null, amount: '' }); }}>Add minimum</Button>
            </Stack>
          </div>
          <div>
            <Title order={3} size="h5">Payout rails</Title>
            <Text size="xs" c="dimmed" mb="xs">
              A partner’s Stripe, PayPal or Wise payout method is paid through that rail once its credentials are set here.
              Without Stripe or Wise credentials those methods cannot be approved; PayPal methods go to the provider above.
            </Text>
            <Stack gap="xs">
              <PasswordInput label="Stripe secret key" autoComplete="off" description={secretHint(settings.stripeSecretKeySet, 'sk_live_… or a restricted key rk_… with Connect transfers and accounts')}
                {...form.getInputProps('stripeSecretKey')} />
              <PasswordInput label="Stripe webhook signing secret" autoComplete="off" description={secretHint(settings.stripeWebhookSecretSet, 'whsec_… of the endpoint below, with the events transfer.created and transfer.reversed')}
                {...form.getInputProps('stripeWebhookSecret')} />
              <Text size="xs">Stripe webhook endpoint: <Code>{`${window.location.origin}${settings.stripeWebhookPath}`}</Code></Text>
              <Group grow align="flex-start">
                <TextInput label="PayPal client id" autoComplete="off" spellCheck={false} {...form.getInputProps('paypalClientId')} />
                <PasswordInput label="PayPal secret" autoComplete="off" description={secretHint(settings.paypalSecretSet, 'The REST app’s secret')} {...form.getInputProps('paypalSecret')} />
              </Group>
              <Group grow align="flex-start">
                <TextInput label="Wise profile id" inputMode="numeric" autoComplete="off" {...form.getInputProps('wiseProfileId')} />
                <PasswordInput label="Wise API token" autoComplete="off" description={secretHint(settings.wiseTokenSet, 'A token of that business profile')} {...form.getInputProps('wiseToken')} />
              </Group>
              <Switch label="Batch the rails’ payouts once a day" description="Approved Stripe, PayPal and Wise payouts wait for one batch per rail at 00:00 UTC (PayPal: one batch payout; Stripe and Wise: one transfer each)"
                {...form.getInputProps('batchDaily', { type: 'checkbox' })} />
            </Stack>
          </div>
          <ErrorAlert error={save.error} shownFields={shown} />
          <Group justify="space-between">
            <Text size="xs" c="dimmed">{settings.updatedAt ? <>Last changed <DateTime value={settings.updatedAt} /></> : 'Never changed: these are the defaults'}</Text>
            <Button type="submit" loading={save.isPending}>Save settings</Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/** How approved withdrawals are paid out, and the smallest a partner may ask for. */
export default function PayoutSettings() {
  const settings = useQuery({
    queryKey: ['payout-settings'],
    queryFn: async () => unwrap(await api.GET('/api/payout-settings')),
  });
  return (
    <Stack>
      <PageHeader title="Payout settings" description="Applies to withdrawals approved from now on; each payout keeps the provider chosen at its approval." />
      {settings.isPending && <Loader role="status" aria-label="Loading payout settings" />}
      <ErrorAlert error={settings.error} />
      {settings.data && <SettingsForm settings={settings.data} />}
      {settings.data?.provider === 'http' && !settings.data.httpSecretSet && (
        <Alert color="yellow">The HTTP provider has no signing secret stored.</Alert>
      )}
      <Batches />
    </Stack>
  );
}

/** The daily batches of rail payouts, newest first. */
function Batches() {
  return (
    <Stack gap="xs" component="section" aria-labelledby="batches-title">
      <Title order={2} size="h4" id="batches-title">Daily payout batches</Title>
      <Text size="sm" c="dimmed">While payouts are batched, each rail pays the day’s approved withdrawals in one batch at 00:00 UTC.</Text>
      <PagedTable<Batch>
        label="Daily payout batches"
        queryKey={['payout-batches']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/payout-batches', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(b) => b.id}
        empty="No batch yet: batches appear once payouts are batched and a rail has approved withdrawals to pay."
        columns={[
          { header: 'Day (UTC)', render: (b) => b.day },
          { header: 'Rail', render: (b) => railNames[b.provider] },
          { header: 'Payouts', numeric: true, render: (b) => b.payouts },
          { header: 'Status', render: (b) => <StatusBadge status={b.status} /> },
          { header: 'Provider reference', render: (b) => (b.reference ? <Code>{b.reference}</Code> : '—') },
          { header: 'Last change', render: (b) => <DateTime value={b.updatedAt} /> },
        ]}
      />
    </Stack>
  );
}
