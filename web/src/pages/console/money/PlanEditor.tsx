import { useState } from 'react';
import {
  ActionIcon, Button, Divider, Group, Modal, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, TagsInput,
  Text, TextInput, Textarea, Fieldset,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, fieldErrors, unwrap, type Schemas } from '../../../api/client';
import { ErrorAlert } from '../../../ui/ErrorAlert';
import { decimalToMinor, minorToDecimal } from '../../../ui/format';
import { CurrencySelect } from './shared';
import { bpsToPercentInput, percentToBps } from './util';

type Plan = Schemas['CommissionPlan'];
type Definition = Schemas['PlanDefinition'];

interface Values {
  name: string;
  description: string;
  trigger: string;
  clawbackTrigger: string;
  amountPath: string;
  currencyPath: string;
  currency: string | null;
  referencePath: string;
  kind: 'percentage' | 'flat' | 'tiered';
  rate: string;
  flat: string;
  tierPeriod: string;
  tiers: { from: string; rate: string }[];
  holdingDays: number | string;
  recurrenceMonths: number | string;
  minAmount: string;
  maxAmount: string;
  partnerTypes: string[];
  partnerLevels: string[];
  payloadEquals: { path: string; value: string }[];
}

/** The currency amounts of a plan are typed in: its fallback currency, else EUR. */
const amountCurrency = (v: { currency: string | null }) => v.currency || 'EUR';

function toValues(plan?: Plan): Values {
  const d = plan?.definition;
  const cur = d?.currency || 'EUR';
  const money = (m: number | undefined) => (m === undefined ? '' : minorToDecimal(m, cur));
  return {
    name: plan?.name ?? '',
    description: plan?.description ?? '',
    trigger: d?.trigger ?? 'deal.won',
    clawbackTrigger: d?.clawbackTrigger ?? '',
    amountPath: d?.amountPath ?? '',
    currencyPath: d?.currencyPath ?? '',
    currency: d?.currency ?? null,
    referencePath: d?.referencePath ?? '',
    kind: d?.calculation.kind ?? 'percentage',
    rate: bpsToPercentInput(d?.calculation.rateBps),
    flat: d?.calculation.flatAmount ? money(d.calculation.flatAmount) : '',
    tierPeriod: d?.calculation.tierPeriod ?? 'quarter',
    tiers: (d?.calculation.tiers ?? [{ fromVolume: 0, rateBps: 0 }]).map((t) => ({ from: money(t.fromVolume), rate: bpsToPercentInput(t.rateBps) })),
    holdingDays: d?.holdingDays ?? 30,
    recurrenceMonths: d?.recurrenceMonths ?? 0,
    minAmount: money(d?.conditions?.minAmount),
    maxAmount: money(d?.conditions?.maxAmount),
    partnerTypes: d?.conditions?.partnerTypes ?? [],
    partnerLevels: d?.conditions?.partnerLevels ?? [],
    payloadEquals: (d?.conditions?.payloadEquals ?? []).map((p) => ({ path: p.path, value: JSON.stringify(p.value) })),
  };
}

/** A condition's value as typed: JSON scalars (42, true, null, "x") as such, anything else as text. */
function scalar(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) return v;
  } catch { /* plain text */ }
  return text;
}

function toDefinition(v: Values): Definition {
  const cur = amountCurrency(v);
  const minor = (t: string) => (t.trim() === '' ? undefined : decimalToMinor(t, cur) ?? undefined);
  const calculation: Definition['calculation'] = { kind: v.kind };
  if (v.kind === 'percentage') calculation.rateBps = percentToBps(v.rate) ?? 0;
  if (v.kind === 'flat') calculation.flatAmount = minor(v.flat) ?? 0;
  if (v.kind === 'tiered') {
    calculation.tierPeriod = v.tierPeriod as 'month' | 'quarter' | 'year';
    calculation.tiers = v.tiers.map((t) => ({ fromVolume: minor(t.from) ?? 0, rateBps: percentToBps(t.rate) ?? 0 }));
  }
  const conditions: NonNullable<Definition['conditions']> = {};
  if (minor(v.minAmount) !== undefined) conditions.minAmount = minor(v.minAmount);
  if (minor(v.maxAmount) !== undefined) conditions.maxAmount = minor(v.maxAmount);
  if (v.partnerTypes.length) conditions.partnerTypes = v.partnerTypes;
  if (v.partnerLevels.length) conditions.partnerLevels = v.partnerLevels;
  if (v.payloadEquals.length) conditions.payloadEquals = v.payloadEquals.map((p) => ({ path: p.path.trim(), value: scalar(p.value) }));
  const opt = (s: string) => (s.trim() ? s.trim() : undefined);
  return {
    trigger: v.trigger.trim(),
    clawbackTrigger: opt(v.clawbackTrigger),
    amountPath: opt(v.amountPath),
    currencyPath: opt(v.currencyPath),
    currency: v.currency || undefined,
    referencePath: opt(v.referencePath),
    calculation,
    conditions: Object.keys(conditions).length ? conditions : undefined,
    holdingDays: Number(v.holdingDays) || 0,
    recurrenceMonths: Number(v.recurrenceMonths) || 0,
  };
}

/** The form field a problem's field path names (definition.calculation.tiers.0.rateBps → tiers.0.rate). */
function formField(path: string): string {
  return path
    .replace(/^definition\.calculation\.tiers\.(\d+)\.fromVolume$/, 'tiers.$1.from')
    .replace(/^definition\.calculation\.tiers\.(\d+)\.rateBps$/, 'tiers.$1.rate')
    .replace(/^definition\.calculation\.rateBps$/, 'rate')
    .replace(/^definition\.calculation\.flatAmount$/, 'flat')
    .replace(/^definition\.calculation\.tiers$/, 'tiersList')
    .replace(/^definition\.calculation\./, '')
    .replace(/^definition\.conditions\./, '')
    .replace(/^definition\./, '');
}

const formFields = new Set(['name', 'description', 'trigger', 'clawbackTrigger', 'amountPath', 'currencyPath', 'currency', 'referencePath',
  'kind', 'rate', 'flat', 'tierPeriod', 'holdingDays', 'recurrenceMonths', 'minAmount', 'maxAmount', 'partnerTypes', 'partnerLevels']);
const isShown = (f: string) => formFields.has(f) || /^(tiers|payloadEquals)\.\d+\.(from|rate|path|value)$/.test(f);

/** Creates a commission plan, or changes one (which makes a new version). */
export function PlanEditor({ plan, opened, onClose, onSaved }: { plan?: Plan; opened: boolean; onClose: () => void; onSaved: (p: Plan) => void }) {
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<string[]>([]);
  const form = useForm<Values>({
    initialValues: toValues(plan),
    validate: (v) => {
      const cur = amountCurrency(v);
      const e: Record<string, string> = {};
      const money = (key: string, t: string, required: boolean) => {
        if (t.trim() === '') { if (required) e[key] = 'Enter an amount'; return; }
        if (decimalToMinor(t, cur) === null) e[key] = `Not an amount in ${cur}`;
      };
      const rate = (key: string, t: string) => {
        const b = percentToBps(t);
        if (b === null || b < 1 || b > 10000) e[key] = 'A percentage from 0.01 to 100, at most two decimals';
      };
      if (!v.name.trim()) e.name = 'Name the plan';
      if (!v.trigger.trim()) e.trigger = 'Name the event that pays';
      if (v.kind === 'percentage') rate('rate', v.rate);
      if (v.kind === 'flat') money('flat', v.flat, true);
      if (v.kind === 'tiered') v.tiers.forEach((t, i) => { money(`tiers.${String(i)}.from`, t.from, true); rate(`tiers.${String(i)}.rate`, t.rate); });
      money('minAmount', v.minAmount, false);
      money('maxAmount', v.maxAmount, false);
      v.payloadEquals.forEach((p, i) => { if (!p.path.trim()) e[`payloadEquals.${String(i)}.path`] = 'Enter a payload path'; });
      return e;
    },
  });

  const save = useMutation({
    mutationFn: async (v: Values) => {
      const body = { name: v.name.trim(), description: v.description.trim() || undefined, definition: toDefinition(v) };
      return plan
        ? unwrap(await api.PUT('/api/commission-plans/{id}', { params: { path: { id: plan.id } }, body }))
        : unwrap(await api.POST('/api/commission-plans', { body }));
    },
    onSuccess: async (p) => {
      notifications.show({ color: 'green', message: plan ? `Saved “${p.name}” as version ${String(p.version)}` : `Created “${p.name}”` });
      await queryClient.invalidateQueries({ queryKey: ['commission-plans'] });
      onSaved(p);
    },
    onError: (err) => {
      const raw = fieldErrors(err);
      const mapped: Record<string, string> = {};
      const shownLocations: string[] = [];
      for (const [path, msg] of Object.entries(raw)) {
        const f = formField(path);
        if (isShown(f)) {
          mapped[f] = msg;
          shownLocations.push(path.replace(/\.(\d+)(?=\.|$)/g, '[$1]'));
        }
      }
      form.setErrors(mapped);
      setShown(shownLocations);
    },
  });

  const v = form.values;
  const cur = amountCurrency(v);
  const dealWon = v.trigger.trim() === 'deal.won';
  return (
    <Modal lockScroll={false} opened={opened} onClose={onClose} size="xl" title={plan ? `Edit ${plan.name}` : 'New commission plan'}>
      <form onSubmit={form.onSubmit((values) => { save.mutate(values); })} noValidate>
        <Stack>
          <TextInput label="Name" required {...form.getInputProps('name')} />
          <Textarea label="Description" autosize minRows={2} {...form.getInputProps('description')} />

          <Fieldset legend="What pays">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Trigger event" required description="deal.won, or an ingested event type such as invoice.paid" {...form.getInputProps('trigger')} />
              <TextInput label="Clawback event" description="An event that reverses the accrual, e.g. invoice.refunded" {...form.getInputProps('clawbackTrigger')} />
              <TextInput label="Amount path" description="Payload path of the amount in minor units" placeholder={dealWon ? 'amountMinor' : 'e.g. amount'} {...form.getInputProps('amountPath')} />
              <TextInput label="Currency path" description="Payload path of the currency" placeholder="currency" {...form.getInputProps('currencyPath')} />
              <TextInput label="Reference path" description="Names the source, so a clawback finds it" placeholder={dealWon ? 'dealId' : 'e.g. invoiceId'} {...form.getInputProps('referencePath')} />
              <CurrencySelect label="Fallback currency" description={`When the event names none; amounts below are in ${cur}`} clearable {...form.getInputProps('currency')} />
            </SimpleGrid>
          </Fieldset>

          <Fieldset legend="How much">
            <Stack>
              <div>
                <Text size="sm" fw={600} id="calc-kind-label" mb={4}>Calculation</Text>
                <SegmentedControl aria-labelledby="calc-kind-label" data={[
                  { value: 'percentage', label: 'Percentage' }, { value: 'flat', label: 'Flat amount' }, { value: 'tiered', label: 'Tiered' },
                ]} {...form.getInputProps('kind')} />
              </div>
              {v.kind === 'percentage' && (
                <TextInput label="Rate (%)" required description="Of the source amount; 10.5 is 1050 basis points; rounded half away from zero to the cent" inputMode="decimal" {...form.getInputProps('rate')} />
              )}
              {v.kind === 'flat' && (
                <TextInput label={`Flat amount per event (${cur})`} required inputMode="decimal" {...form.getInputProps('flat')} />
              )}
              {v.kind === 'tiered' && (
                <Stack gap="xs">
                  <Select label="Volume period" description="The partner's volume is summed over this period, including the event" allowDeselect={false}
                    data={[{ value: 'month', label: 'Month' }, { value: 'quarter', label: 'Quarter' }, { value: 'year', label: 'Year' }]}
                    {...form.getInputProps('tierPeriod')} />
                  <Text size="sm" c="dimmed">The rate of the highest tier the period volume reaches applies to the whole amount. The first tier starts at 0.</Text>
                  {form.errors.tiersList && <Text c="red" size="sm">{form.errors.tiersList}</Text>}
                  {v.tiers.map((_, i) => (
                    <Group key={i} align="flex-start" wrap="nowrap">
                      <TextInput label={`Tier ${String(i + 1)} from volume (${cur})`} inputMode="decimal" style={{ flex: 1 }} {...form.getInputProps(`tiers.${String(i)}.from`)} />
                      <TextInput label={`Tier ${String(i + 1)} rate (%)`} inputMode="decimal" style={{ flex: 1 }} {...form.getInputProps(`tiers.${String(i)}.rate`)} />
                      <ActionIcon variant="subtle" color="red" mt={28} aria-label={`Remove tier ${String(i + 1)}`} disabled={v.tiers.length <= 1}
                        onClick={() => { form.removeListItem('tiers', i); }}>✕</ActionIcon>
                    </Group>
                  ))}
                  <Button variant="light" size="xs" w="fit-content" disabled={v.tiers.length >= 20}
                    onClick={() => { form.insertListItem('tiers', { from: '', rate: '' }); }}>Add tier</Button>
                </Stack>
              )}
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NumberInput label="Holding days" description="Pending this long before it can be withdrawn" min={0} max={3650} allowDecimal={false} required {...form.getInputProps('holdingDays')} />
                <NumberInput label="Recurrence (months)" description="Pay for one customer only this long; 0 is no limit" min={0} max={600} allowDecimal={false} {...form.getInputProps('recurrenceMonths')} />
              </SimpleGrid>
            </Stack>
          </Fieldset>

          <Fieldset legend="Only when">
            <Stack>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label={`Minimum amount (${cur})`} inputMode="decimal" {...form.getInputProps('minAmount')} />
                <TextInput label={`Maximum amount (${cur})`} inputMode="decimal" {...form.getInputProps('maxAmount')} />
                <TagsInput label="Partner types" description="Press Enter after each" placeholder="reseller" {...form.getInputProps('partnerTypes')} />
                <TagsInput label="Partner levels" description="By name; press Enter after each" {...form.getInputProps('partnerLevels')} />
              </SimpleGrid>
              {v.payloadEquals.map((_, i) => (
                <Group key={i} align="flex-start" wrap="nowrap">
                  <TextInput label={`Payload path ${String(i + 1)}`} style={{ flex: 1 }} {...form.getInputProps(`payloadEquals.${String(i)}.path`)} />
                  <TextInput label={`Must equal ${String(i + 1)}`} description="Text, a number, true, false or null" style={{ flex: 1 }} {...form.getInputProps(`payloadEquals.${String(i)}.value`)} />
                  <ActionIcon variant="subtle" color="red" mt={28} aria-label={`Remove payload condition ${String(i + 1)}`}
                    onClick={() => { form.removeListItem('payloadEquals', i); }}>✕</ActionIcon>
                </Group>
              ))}
              <Button variant="light" size="xs" w="fit-content" disabled={v.payloadEquals.length >= 20}
                onClick={() => { form.insertListItem('payloadEquals', { path: '', value: '' }); }}>Add payload condition</Button>
            </Stack>
          </Fieldset>

          <ErrorAlert error={save.error} shownFields={shown} />
          {save.error instanceof ApiError && save.error.problem.code === 'COMMISSION_PLAN_ARCHIVED' && <Text size="sm">Archived plans cannot change.</Text>}
          <Divider />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={save.isPending}>{plan ? 'Save new version' : 'Create plan'}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
