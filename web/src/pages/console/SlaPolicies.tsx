import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon, Button, Card, Group, Loader, Modal, NativeSelect, NumberInput, Radio, Select, Stack, Table, Text, TextInput, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

type Policy = Schemas['SLAPolicy'];
type Priority = Policy['priority'];
type Window = Schemas['BusinessWindow'];
type Day = Window['day'];

const priorities: Priority[] = ['low', 'normal', 'high', 'urgent'];
const days: { value: Day; label: string }[] = [
  { value: 'mon', label: 'Monday' }, { value: 'tue', label: 'Tuesday' }, { value: 'wed', label: 'Wednesday' }, { value: 'thu', label: 'Thursday' },
  { value: 'fri', label: 'Friday' }, { value: 'sat', label: 'Saturday' }, { value: 'sun', label: 'Sunday' },
];
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Business minutes for people: "45 min", "8 h", "1 d 2 h 30 min" (a day being 24 business hours). */
function formatMinutes(m: number): string {
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  return [d && `${String(d)} d`, h && `${String(h)} h`, min && `${String(min)} min`].filter(Boolean).join(' ') || '0 min';
}

function warningText(p: Policy): string {
  if (p.warnBeforeMinutes) return `${formatMinutes(p.warnBeforeMinutes)} before each target`;
  return `At ${String(p.warnPercent ?? 80)}% of each target`;
}

/** The desk's service-level targets per ticket priority, and the business hours their clocks count in. */
export default function SlaPolicies() {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<{ priority: Priority; policy?: Policy } | null>(null);
  const policies = useQuery({
    queryKey: ['ticket-sla-policies'],
    queryFn: async () => unwrap(await api.GET('/api/ticket-sla-policies', { params: { query: { limit: 10 } } })).data,
  });
  const remove = useMutation({
    mutationFn: async (priority: Priority) => { unwrap(await api.DELETE('/api/ticket-sla-policies/{priority}', { params: { path: { priority } } })); },
    onSuccess: async () => { notify('SLA policy removed'); await queryClient.invalidateQueries({ queryKey: ['ticket-sla-policies'] }); },
  });
  return (
    <Stack>
      <PageHeader title="SLA policies"
        description="How soon the desk answers and resolves tickets of each priority, in business time. A priority without a policy has no SLA clock; changes apply to tickets opened (or moved to the priority) from now on." />
      {policies.isError && <ErrorAlert error={policies.error} />}
      {policies.isPending ? <Loader aria-label="Loading SLA policies" /> : (
        <Table.ScrollContainer minWidth={600}>
          <Table aria-label="SLA policies" verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Priority</Table.Th><Table.Th>First response</Table.Th><Table.Th>Resolution</Table.Th><Table.Th>Warning</Table.Th><Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {priorities.map((priority) => {
                const p = policies.data?.find((x) => x.priority === priority);
                return (
                  <Table.Tr key={priority} data-priority={priority}>
                    <Table.Td>{cap(priority)}</Table.Td>
                    <Table.Td>{p ? formatMinutes(p.firstResponseMinutes) : <Text span c="dimmed" size="sm">No SLA</Text>}</Table.Td>
                    <Table.Td>{p ? formatMinutes(p.resolutionMinutes) : '—'}</Table.Td>
                    <Table.Td>{p ? warningText(p) : '—'}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button variant="default" size="compact-sm" aria-label={`${p ? 'Edit' : 'Set'} ${priority} policy`}
                          onClick={() => { setEditing({ priority, policy: p }); }}>{p ? 'Edit' : 'Set targets'}</Button>
                        {p && <ConfirmButton size="compact-sm" label="Remove" aria-label={`Remove ${priority} policy`} title={`Remove the ${priority} policy?`}
                          confirmLabel="Remove policy" message={`Tickets opened at ${priority} priority from now on have no SLA clock; running clocks keep their targets.`}
                          onConfirm={() => remove.mutateAsync(priority)} />}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <ErrorAlert error={remove.error} />
      <BusinessHours />
      <Modal opened={editing !== null} onClose={() => { setEditing(null); }} title={editing ? `SLA policy: ${editing.priority} priority` : ''}
        closeButtonProps={{ 'aria-label': 'Close' }}>
        {editing && <PolicyForm priority={editing.priority} policy={editing.policy} onDone={() => { setEditing(null); }} />}
      </Modal>
    </Stack>
  );
}

function PolicyForm({ priority, policy, onDone }: { priority: Priority; policy?: Policy; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [first, setFirst] = useState<number | string>(policy?.firstResponseMinutes ?? 60);
  const [resolution, setResolution] = useState<number | string>(policy?.resolutionMinutes ?? 480);
  const [warnKind, setWarnKind] = useState<'percent' | 'before'>(policy?.warnBeforeMinutes ? 'before' : 'percent');
  const [warnPercent, setWarnPercent] = useState<number | string>(policy?.warnPercent ?? 80);
  const [warnBefore, setWarnBefore] = useState<number | string>(policy?.warnBeforeMinutes ?? 15);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/ticket-sla-policies/{priority}', { params: { path: { priority } }, body: {
      firstResponseMinutes: Number(first), resolutionMinutes: Number(resolution),
      ...(warnKind === 'percent' ? { warnPercent: Number(warnPercent) } : { warnBeforeMinutes: Number(warnBefore) }),
    } })),
    onSuccess: async () => { notify('SLA policy saved'); await queryClient.invalidateQueries({ queryKey: ['ticket-sla-policies'] }); onDone(); },
  });
  const errs = fieldErrors(save.error);
  const minutes = 'Business minutes (1 to 525600)';
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <Stack>
        <NumberInput label="First response target" description={minutes} required min={1} max={525600} allowDecimal={false} value={first}
          onChange={setFirst} error={errs.firstResponseMinutes} data-autofocus />
        <NumberInput label="Resolution target" description={minutes} required min={1} max={525600} allowDecimal={false} value={resolution}
          onChange={setResolution} error={errs.resolutionMinutes} />
        <Radio.Group label="Warn the desk" value={warnKind} onChange={(v) => { setWarnKind(v === 'before' ? 'before' : 'percent'); }}>
          <Group mt={4}>
            <Radio value="percent" label="At a share of the target" />
            <Radio value="before" label="A fixed time before it" />
          </Group>
        </Radio.Group>
        {warnKind === 'percent'
          ? <NumberInput label="Warning at (% of the target used)" min={1} max={99} allowDecimal={false} value={warnPercent} onChange={setWarnPercent}
              error={errs.warnPercent} suffix="%" />
          : <NumberInput label="Warning lead (business minutes)" description="Shorter than the first response target" min={1} max={525600}
              allowDecimal={false} value={warnBefore} onChange={setWarnBefore} error={errs.warnBeforeMinutes} />}
        <ErrorAlert error={save.error} shownFields={['firstResponseMinutes', 'resolutionMinutes', 'warnPercent', 'warnBeforeMinutes']} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>Save policy</Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The IANA time zones the browser knows, with UTC and the current value always offered. */
function useTimeZones(current: string): string[] {
  return useMemo(() => {
    let zones: string[];
    try { zones = Intl.supportedValuesOf('timeZone'); } catch { zones = []; }
    const all = new Set(['UTC', ...zones]);
    if (current) all.add(current);
    return [...all];
  }, [current]);
}

/** "overlaps windows[2]" reads as "overlaps window 3" (the rows as numbered on the page). */
function windowMessage(m: string | undefined): string | undefined {
  return m?.replace(/windows\[(\d+)\]/g, (_, i: string) => `window ${String(Number(i) + 1)}`);
}

function BusinessHours() {
  const hours = useQuery({
    queryKey: ['ticket-business-hours'],
    queryFn: async () => unwrap(await api.GET('/api/ticket-business-hours')),
  });
  return (
    <Card withBorder component="section" aria-labelledby="business-hours-title">
      <Stack>
        <div>
          <Title order={2} size="h4" id="business-hours-title">Business hours</Title>
          <Text size="sm" c="dimmed">When SLA clocks run. Clocks of tickets opened from now on count in them; daylight saving time follows the zone.</Text>
        </div>
        {hours.isError && <ErrorAlert error={hours.error} />}
        {hours.isPending ? <Loader size="sm" aria-label="Loading business hours" /> : hours.data && <HoursForm initial={hours.data} />}
      </Stack>
    </Card>
  );
}

function HoursForm({ initial }: { initial: Schemas['BusinessHoursBody'] }) {
  const queryClient = useQueryClient();
  const [timeZone, setTimeZone] = useState(initial.timeZone);
  const [mode, setMode] = useState<'always' | 'weekly'>(initial.windows.length ? 'weekly' : 'always');
  const [windows, setWindows] = useState<Window[]>(initial.windows);
  const zones = useTimeZones(timeZone);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/ticket-business-hours', { body: { timeZone, windows: mode === 'always' ? [] : windows } })),
    onSuccess: async () => { notify('Business hours saved'); await queryClient.invalidateQueries({ queryKey: ['ticket-business-hours'] }); },
  });
  const errs = fieldErrors(save.error);
  const setWindow = (i: number, w: Partial<Window>) => { setWindows((ws) => ws.map((x, j) => (j === i ? { ...x, ...w } : x))); };
  const last = windows[windows.length - 1];
  const shown = ['timeZone', 'windows', ...windows.flatMap((_, i) => [`windows[${String(i)}]`, `windows[${String(i)}].day`, `windows[${String(i)}].start`, `windows[${String(i)}].end`])];
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <Stack>
        <Select label="Time zone" searchable required data={zones} value={timeZone} limit={50} maxDropdownHeight={280}
          onChange={(v) => { if (v) setTimeZone(v); }} error={errs.timeZone} nothingFoundMessage="No such time zone" allowDeselect={false} />
        <Radio.Group label="Schedule" value={mode} onChange={(v) => { setMode(v === 'weekly' ? 'weekly' : 'always'); }}>
          <Group mt={4}>
            <Radio value="always" label="Around the clock (24x7)" />
            <Radio value="weekly" label="Weekly windows" />
          </Group>
        </Radio.Group>
        {mode === 'weekly' && (
          <Stack gap="xs">
            {windows.length === 0 && <Text size="sm" c="dimmed">No windows yet: add one, or the clocks run around the clock.</Text>}
            {windows.length > 0 && <Stack gap="xs" role="list" aria-label="Weekly windows">{windows.map((w, i) => {
              const rowError = windowMessage(errs[`windows.${String(i)}`]);
              return (
                <Stack key={i} gap={2} role="listitem" aria-label={`Window ${String(i + 1)}`}>
                  <Group gap="xs" align="flex-end" wrap="wrap">
                    <NativeSelect label={`Window ${String(i + 1)} day`} value={w.day} data={days} error={errs[`windows.${String(i)}.day`]}
                      onChange={(e) => { setWindow(i, { day: e.currentTarget.value as Day }); }} />
                    <TextInput label={`Window ${String(i + 1)} from`} placeholder="09:00" maxLength={5} w={110} value={w.start} error={errs[`windows.${String(i)}.start`]}
                      onChange={(e) => { setWindow(i, { start: e.currentTarget.value }); }} />
                    <TextInput label={`Window ${String(i + 1)} to`} placeholder="17:00" description="24:00 at the latest" maxLength={5} w={150} value={w.end}
                      error={errs[`windows.${String(i)}.end`]} onChange={(e) => { setWindow(i, { end: e.currentTarget.value }); }} />
                    <ActionIcon variant="default" size="lg" mb={2} aria-label={`Remove window ${String(i + 1)}`}
                      onClick={() => { setWindows((ws) => ws.filter((_, j) => j !== i)); }}>×</ActionIcon>
                  </Group>
                  {rowError && <Text size="sm" c="red.8" role="alert">Window {i + 1}: {rowError}</Text>}
                </Stack>
              );
            })}</Stack>}
            <Group>
              <Button variant="default" size="xs" disabled={windows.length >= 28}
                onClick={() => { setWindows((ws) => [...ws, { day: nextDay(last?.day), start: last?.start ?? '09:00', end: last?.end ?? '17:00' }]); }}>
                Add window
              </Button>
            </Group>
            {errs.windows && <Text size="sm" c="red.8">{errs.windows}</Text>}
          </Stack>
        )}
        <ErrorAlert error={save.error} shownFields={shown} />
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>Save business hours</Button>
        </Group>
      </Stack>
    </form>
  );
}

function nextDay(d: Day | undefined): Day {
  if (!d) return 'mon';
  const i = days.findIndex((x) => x.value === d);
  return days[(i + 1) % days.length]?.value ?? 'mon';
}
