import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { ActionIcon, Button, Card, Group, Loader, NumberInput, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { notify } from '../../ui/DataNotify';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

type Item = Schemas['OnboardingItem'];
interface Row { title: string; description: string; dueInDays: number | string }

const MAX_ITEMS = 50;

const rowOf = (i: Item): Row => ({ title: i.title, description: i.description ?? '', dueInDays: i.dueInDays ?? 0 });

/** The checklist every partner's onboarding starts with: its steps, replaced as a whole. */
function ChecklistForm({ items, canWrite }: { items: Item[]; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const form = useForm<{ items: Row[] }>({
    initialValues: { items: items.map(rowOf) },
    validate: { items: { title: (v) => (v.trim() ? null : 'Name the step') } },
  });
  useEffect(() => { form.setValues({ items: items.map(rowOf) }); form.resetDirty(); }, [items]); // eslint-disable-line react-hooks/exhaustive-deps
  const save = useMutation({
    mutationFn: async (v: { items: Row[] }) => unwrap(await api.PUT('/api/onboarding-template', { body: {
      items: v.items.map((r) => ({
        title: r.title.trim(),
        description: r.description.trim() || undefined,
        dueInDays: typeof r.dueInDays === 'number' ? r.dueInDays : Number(r.dueInDays) || 0,
      })),
    } })),
    onSuccess: async (t) => {
      queryClient.setQueryData(['onboarding-template'], t);
      notify('Onboarding checklist saved');
      await queryClient.invalidateQueries({ queryKey: ['onboarding-template'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const rows = form.values.items;
  const ro = !canWrite;
  return (
    <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <ErrorAlert error={save.error} shownFields={rows.flatMap((_, i) => ['title', 'description', 'dueInDays'].map((k) => `items[${String(i)}].${k}`))} />
        {rows.length === 0 && <Text size="sm" c="dimmed">No steps: onboarding starts with an empty checklist.</Text>}
        {rows.map((_, i) => (
          <Card key={i} withBorder component="fieldset" aria-label={`Step ${String(i + 1)}`} style={{ margin: 0 }}>
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={2} size="h5">Step {i + 1}</Title>
                {canWrite && (
                  <Group gap={4}>
                    <ActionIcon variant="subtle" aria-label={`Move step ${String(i + 1)} up`} disabled={i === 0}
                      onClick={() => { form.reorderListItem('items', { from: i, to: i - 1 }); }}>↑</ActionIcon>
                    <ActionIcon variant="subtle" aria-label={`Move step ${String(i + 1)} down`} disabled={i === rows.length - 1}
                      onClick={() => { form.reorderListItem('items', { from: i, to: i + 1 }); }}>↓</ActionIcon>
                    <ActionIcon variant="subtle" color="red.9" aria-label={`Remove step ${String(i + 1)}`}
                      onClick={() => { form.removeListItem('items', i); }}>×</ActionIcon>
                  </Group>
                )}
              </Group>
              <Group align="flex-start" grow>
                <TextInput label="Title" required maxLength={200} readOnly={ro} {...form.getInputProps(`items.${String(i)}.title`)} />
                <NumberInput label="Due after (days)" description="0 for no due date" min={0} max={365} allowDecimal={false} readOnly={ro}
                  maw={200} {...form.getInputProps(`items.${String(i)}.dueInDays`)} />
              </Group>
              <Textarea label="Description" autosize minRows={2} maxRows={8} maxLength={5000} readOnly={ro}
                {...form.getInputProps(`items.${String(i)}.description`)} />
            </Stack>
          </Card>
        ))}
        {canWrite && (
          <Group justify="space-between">
            <Button variant="default" disabled={rows.length >= MAX_ITEMS}
              onClick={() => { form.insertListItem('items', { title: '', description: '', dueInDays: 0 }); }}>Add a step</Button>
            <Group>
              <Button variant="default" disabled={!form.isDirty()} onClick={() => { form.reset(); }}>Discard</Button>
              <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>Save checklist</Button>
            </Group>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** The onboarding checklist new partners get as tasks when their onboarding starts. */
export default function OnboardingChecklist() {
  const canWrite = useCan('partners:write');
  const template = useQuery({
    queryKey: ['onboarding-template'],
    queryFn: async () => unwrap(await api.GET('/api/onboarding-template')),
  });
  return (
    <Stack maw={900}>
      <PageHeader title="Onboarding checklist"
        description="The tasks a partner gets when its onboarding starts (on approval of its application or from the partner's page). Changes apply to onboardings started from now on." />
      {template.isPending && <Loader role="status" aria-label="Loading the checklist" />}
      <ErrorAlert error={template.error} />
      {template.data && <ChecklistForm items={template.data.items} canWrite={canWrite} />}
    </Stack>
  );
}
