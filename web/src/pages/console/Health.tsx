import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon, Alert, Button, Card, Group, Loader, NativeSelect, NumberInput, Select, Stack, Text, TextInput, Title,
} from '@mantine/core';
import { api, ApiError, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { metricUnit, sources, useHealthModel, windowed } from './healthOptions';
import { useCan } from '../../auth/useCan';
import { oneOf, useAdminFilters } from '../../ui/AdminFilters';
import { PartnerName } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PagedTable } from '../../ui/PagedTable';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { TierBadge } from '../../ui/TierBadge';

type Model = Schemas['HealthModelBody'];
type Component = Schemas['HealthComponent'];
type Source = Component['source'];
type Tier = Schemas['HealthTier'];

/** Partner health: current tiers and scores, scoring runs and the model that computes them. */
export default function Health() {
  const queryClient = useQueryClient();
  const canManage = useCan('health:manage');
  const model = useHealthModel();
  const run = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/health/runs')),
    onSuccess: async () => { notify('Scoring started'); await queryClient.invalidateQueries({ queryKey: ['health'] }); },
  });
  const busy = run.error instanceof ApiError && run.error.status === 409;
  return (
    <Stack>
      <PageHeader title="Health"
        description="Each partner's health score from 0 to 100 and its tier, computed daily and on demand from the components of the model below."
        actions={canManage && <Button onClick={() => { run.mutate(); }} loading={run.isPending} disabled={model.data === null}>Score now</Button>} />
      {busy
        ? <Alert color="blue" role="status" title="A scoring run is under way">Its scores appear when it finishes; start another after it.</Alert>
        : <ErrorAlert error={run.error} />}
      {model.isError && <ErrorAlert error={model.error} />}
      {model.data === null && <Alert color="gray" role="status">No health model yet: set its components and tiers below, then score the partners.</Alert>}
      <Scores tiers={model.data?.tiers} />
      <Runs />
      <Card withBorder component="section" aria-labelledby="health-model-title">
        <Stack>
          <div>
            <Title order={2} size="h4" id="health-model-title">Health model</Title>
            <Text size="sm" c="dimmed">
              Each component scores 0 at &quot;zero at&quot; and 100 at &quot;full at&quot;, linearly between (either may be the larger, so fewer can be better);
              the total is their mean weighted by weight, over the components with data. Changes apply from the next run.
            </Text>
          </div>
          {model.isPending ? <Loader size="sm" aria-label="Loading the health model" />
            : !model.isError && <ModelForm initial={model.data} readOnly={!canManage} />}
        </Stack>
      </Card>
    </Stack>
  );
}

/** Current scores in partner order, filtered by tier. */
function Scores({ tiers }: { tiers: Tier[] | null | undefined }) {
  const [f, setF] = useAdminFilters(['tier'] as const);
  const names = (tiers ?? []).map((t) => t.name);
  const tier = oneOf(f.tier, names);
  return (
    <Stack gap="xs" component="section" aria-labelledby="health-partners-title">
      <Title order={2} size="h4" id="health-partners-title">Partners by tier</Title>
      <Group align="flex-end">
        <Select label="Tier" clearable w={200} value={tier ?? null} onChange={(v) => { setF({ tier: v }); }}
          data={names.map((n) => ({ value: n, label: n.replaceAll('_', ' ') }))} />
      </Group>
      <PagedTable<Schemas['PartnerHealth']>
        label="Partner health"
        queryKey={['health', 'partners', { tier }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/health/partners', { params: { query: { tier, cursor, limit: 25 } } }))}
        rowKey={(h) => h.partnerId}
        empty="No partner scored yet in this tier."
        columns={[
          { header: 'Partner', render: (h) => <PartnerName id={h.partnerId} /> },
          { header: 'Tier', render: (h) => <TierBadge tier={h.tier} tiers={tiers} /> },
          { header: 'Score', numeric: true, render: (h) => h.score.toFixed(1) },
          { header: 'Tier since', render: (h) => <DateTime value={h.tierSince} /> },
          { header: 'Scored at', render: (h) => <DateTime value={h.computedAt} /> },
        ]}
      />
    </Stack>
  );
}

/** The latest scoring runs. */
function Runs() {
  return (
    <Stack gap="xs" component="section" aria-labelledby="health-runs-title">
      <Title order={2} size="h4" id="health-runs-title">Recent runs</Title>
      <PagedTable<Schemas['HealthRun']>
        label="Health runs"
        queryKey={['health', 'runs']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/health/runs', { params: { query: { cursor, limit: 10 } } }))}
        rowKey={(r) => r.id}
        empty="No run yet."
        columns={[
          { header: 'Started', render: (r) => <DateTime value={r.startedAt} /> },
          { header: 'Trigger', render: (r) => (r.trigger === 'manual' ? 'On demand' : 'Daily schedule') },
          { header: 'Status', render: (r) => <StatusBadge status={r.status} /> },
          { header: 'Partners', numeric: true, render: (r) => r.partners },
          { header: 'Tier changes', numeric: true, render: (r) => r.changes },
          { header: 'Model version', numeric: true, render: (r) => r.modelVersion },
          { header: 'Finished', render: (r) => <DateTime value={r.finishedAt} /> },
        ]}
      />
    </Stack>
  );
}

const newComponent = (): Component => ({ source: 'nps', weight: 10, zeroAt: -100, fullAt: 100, windowDays: 90 });
const defaultTiers: Tier[] = [{ name: 'healthy', minScore: 70 }, { name: 'at_risk', minScore: 40 }, { name: 'critical', minScore: 0 }];

/** The model's components, tiers and daily hour, replaced as a whole. */
function ModelForm({ initial, readOnly }: { initial: Model | null; readOnly: boolean }) {
  const queryClient = useQueryClient();
  const [components, setComponents] = useState<Component[]>(initial?.components ?? [newComponent()]);
  const [tiers, setTiers] = useState<Tier[]>(initial?.tiers ?? defaultTiers);
  const [hour, setHour] = useState<number | string>(initial?.hour ?? 3);
  const metrics = useQuery({
    queryKey: ['metrics', 'all'],
    enabled: useCan('metrics:read'),
    queryFn: async () => unwrap(await api.GET('/api/metrics', { params: { query: { limit: 100 } } })).data,
  });
  const metricOptions = (chosen: string | undefined) => {
    const list = (metrics.data ?? []).map((m) => ({ value: m.id, label: m.name }));
    if (chosen && metrics.data && !list.some((m) => m.value === chosen)) list.unshift({ value: chosen, label: 'Deleted metric' });
    return [{ value: '', label: metrics.isPending ? 'Loading metrics…' : 'Choose a metric', disabled: true }, ...list];
  };
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/health/model', {
      body: {
        components: components.map((c) => ({
          ...c, currency: c.source === 'won_revenue' ? c.currency : undefined, windowDays: windowed.includes(c.source) ? c.windowDays : undefined,
          metricId: c.source === 'metric' ? c.metricId : undefined,
        })),
        tiers, hour: Number(hour),
      },
    })),
    onSuccess: async (m) => { notify(`Health model saved (version ${String(m.version)})`); await queryClient.invalidateQueries({ queryKey: ['health'] }); },
  });
  const errs = fieldErrors(save.error);
  const setComponent = (i: number, c: Partial<Component>) => { setComponents((cs) => cs.map((x, j) => (j === i ? { ...x, ...c } : x))); };
  const setTier = (i: number, t: Partial<Tier>) => { setTiers((ts) => ts.map((x, j) => (j === i ? { ...x, ...t } : x))); };
  const num = (v: number | string) => (typeof v === 'number' ? v : Number(v) || 0);
  const shown = ['components', 'tiers', 'hour',
    ...components.flatMap((_, i) => ['source', 'metricId', 'label', 'weight', 'zeroAt', 'fullAt', 'windowDays', 'currency', ''].map((k) => `components[${String(i)}]${k ? '.' + k : ''}`)),
    ...tiers.flatMap((_, i) => ['name', 'minScore', ''].map((k) => `tiers[${String(i)}]${k ? '.' + k : ''}`))];
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack>
          <Title order={3} size="h5">Components</Title>
          {components.length === 0 && <Text size="sm" c="dimmed">No components: add at least one.</Text>}
          <Stack gap="sm" role="list" aria-label="Components">
            {components.map((c, i) => {
              const n = `Component ${String(i + 1)}`;
              const e = (k: string) => errs[`components.${String(i)}.${k}`];
              const chosen = c.source === 'metric' ? metrics.data?.find((m) => m.id === c.metricId) : undefined;
              const unit = chosen ? metricUnit(chosen) : sources.find((s) => s.value === c.source)?.unit;
              return (
                <Stack key={i} gap={2} role="listitem" aria-label={n}>
                  <Group gap="xs" align="flex-start" wrap="wrap">
                    <NativeSelect label={`${n} source`} w={210} value={c.source} data={sources.map((s) => ({ value: s.value, label: s.label }))} error={e('source')}
                      onChange={(ev) => { setComponent(i, { source: ev.currentTarget.value as Source }); }} />
                    {c.source === 'metric' && (
                      <NativeSelect label={`${n} metric`} description="One of the metrics" w={220} value={c.metricId ?? ''} error={e('metricId')}
                        data={metricOptions(c.metricId)} onChange={(ev) => { setComponent(i, { metricId: ev.currentTarget.value }); }} />
                    )}
                    <TextInput label={`${n} label`} placeholder="Optional" maxLength={64} w={160} value={c.label ?? ''} error={e('label')}
                      onChange={(ev) => { setComponent(i, { label: ev.currentTarget.value }); }} />
                    <NumberInput label={`${n} weight`} description="1 to 100" min={1} max={100} allowDecimal={false} w={110} value={c.weight} error={e('weight')}
                      onChange={(v) => { setComponent(i, { weight: num(v) }); }} />
                    <NumberInput label={`${n} zero at`} description={unit} allowDecimal={false} w={150} value={c.zeroAt} error={e('zeroAt')}
                      onChange={(v) => { setComponent(i, { zeroAt: num(v) }); }} />
                    <NumberInput label={`${n} full at`} description={unit} allowDecimal={false} w={150} value={c.fullAt} error={e('fullAt')}
                      onChange={(v) => { setComponent(i, { fullAt: num(v) }); }} />
                    {windowed.includes(c.source) && (
                      <NumberInput label={`${n} window (days)`} description="1 to 365" min={1} max={365} allowDecimal={false} w={130} value={c.windowDays || 90}
                        error={e('windowDays')} onChange={(v) => { setComponent(i, { windowDays: num(v) }); }} />
                    )}
                    {c.source === 'won_revenue' && (
                      <TextInput label={`${n} currency`} description="ISO 4217" placeholder="EUR" maxLength={3} w={100} value={c.currency ?? ''} error={e('currency')}
                        onChange={(ev) => { setComponent(i, { currency: ev.currentTarget.value.toUpperCase() }); }} />
                    )}
                    {!readOnly && (
                      <ActionIcon variant="default" size="lg" mt={24} aria-label={`Remove component ${String(i + 1)}`}
                        onClick={() => { setComponents((cs) => cs.filter((_, j) => j !== i)); }}>×</ActionIcon>
                    )}
                  </Group>
                  {errs[`components.${String(i)}`] && <Text size="sm" c="red.8" role="alert">{n}: {errs[`components.${String(i)}`]}</Text>}
                </Stack>
              );
            })}
          </Stack>
          {!readOnly && (
            <Group>
              <Button variant="default" size="xs" disabled={components.length >= 16} onClick={() => { setComponents((cs) => [...cs, newComponent()]); }}>Add component</Button>
            </Group>
          )}
          {errs.components && <Text size="sm" c="red.8">{errs.components}</Text>}
          <Title order={3} size="h5">Tiers</Title>
          <Text size="sm" c="dimmed">From the highest minimum score down; the last starts at 0. Names in lower case, e.g. healthy.</Text>
          <Stack gap="xs" role="list" aria-label="Tiers">
            {tiers.map((t, i) => {
              const n = `Tier ${String(i + 1)}`;
              return (
                <Stack key={i} gap={2} role="listitem" aria-label={n}>
                  <Group gap="xs" align="flex-start">
                    <TextInput label={`${n} name`} maxLength={32} w={180} value={t.name} error={errs[`tiers.${String(i)}.name`]}
                      onChange={(ev) => { setTier(i, { name: ev.currentTarget.value }); }} />
                    <NumberInput label={`${n} minimum score`} min={0} max={100} allowDecimal={false} w={170} value={t.minScore}
                      error={errs[`tiers.${String(i)}.minScore`]} onChange={(v) => { setTier(i, { minScore: num(v) }); }} />
                    {!readOnly && (
                      <ActionIcon variant="default" size="lg" mt={24} aria-label={`Remove tier ${String(i + 1)}`}
                        onClick={() => { setTiers((ts) => ts.filter((_, j) => j !== i)); }}>×</ActionIcon>
                    )}
                  </Group>
                  {errs[`tiers.${String(i)}`] && <Text size="sm" c="red.8" role="alert">{n}: {errs[`tiers.${String(i)}`]}</Text>}
                </Stack>
              );
            })}
          </Stack>
          {!readOnly && (
            <Group>
              <Button variant="default" size="xs" disabled={tiers.length >= 6} onClick={() => { setTiers((ts) => [...ts, { name: '', minScore: 0 }]); }}>Add tier</Button>
            </Group>
          )}
          {errs.tiers && <Text size="sm" c="red.8">{errs.tiers}</Text>}
          <NumberInput label="Daily scoring hour (UTC)" description="0 to 23" min={0} max={23} allowDecimal={false} w={220} value={hour} onChange={setHour}
            error={errs.hour} />
          <ErrorAlert error={save.error} shownFields={shown} />
          {!readOnly && (
            <Group justify="flex-end">
              <Button type="submit" loading={save.isPending}>Save model</Button>
            </Group>
          )}
          {initial && <Text size="xs" c="dimmed">Version {initial.version} · updated <DateTime value={initial.updatedAt} /></Text>}
        </Stack>
      </fieldset>
    </form>
  );
}
