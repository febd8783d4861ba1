import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Button, Card, Group, Loader, NumberInput, Radio, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';

type Tenant = Schemas['TenantOutputBody'];
interface FormValues { name: string; dealProtectionDays: number | string; ingestCreatesCustomers: boolean; levelChanges: 'propose' | 'apply'; surveyOnResolve: boolean }

function SettingsForm({ tenant, canWrite }: { tenant: Tenant; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const form = useForm<FormValues>({
    initialValues: {
      name: tenant.name, dealProtectionDays: tenant.dealProtectionDays,
      ingestCreatesCustomers: tenant.ingestCreatesCustomers, levelChanges: tenant.levelChanges,
      surveyOnResolve: tenant.surveyOnResolve,
    },
    validate: {
      name: (v) => (v.trim() ? null : 'The program needs a name'),
      dealProtectionDays: (v) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? null : 'A whole number of days'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: FormValues) => unwrap(await api.PATCH('/api/tenant', {
      body: { name: v.name.trim(), dealProtectionDays: Number(v.dealProtectionDays), ingestCreatesCustomers: v.ingestCreatesCustomers, levelChanges: v.levelChanges, surveyOnResolve: v.surveyOnResolve },
    })),
    onSuccess: async (t) => {
      notifications.show({ color: 'green', message: 'Settings saved' });
      queryClient.setQueryData(['tenant'], t);
      form.resetDirty({ name: t.name, dealProtectionDays: t.dealProtectionDays, ingestCreatesCustomers: t.ingestCreatesCustomers, levelChanges: t.levelChanges, surveyOnResolve: t.surveyOnResolve });
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const ro = !canWrite;
  return (
    <Card withBorder component="form" onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <Title order={2} size="h4">Program settings</Title>
        <ErrorAlert error={save.error} shownFields={['name', 'dealProtectionDays', 'ingestCreatesCustomers', 'levelChanges', 'surveyOnResolve']} />
        <TextInput label="Program name" required disabled={ro} {...form.getInputProps('name')} />
        <NumberInput label="Deal protection (days)" description="How long an approved deal is protected before it expires without progress; applies to approvals and extensions from now on"
          min={1} allowDecimal={false} disabled={ro} {...form.getInputProps('dealProtectionDays')} />
        <Switch label="Ingested events create customers" description="An event for an email partnerd does not know creates an unattributed customer"
          disabled={ro} {...form.getInputProps('ingestCreatesCustomers', { type: 'checkbox' })} />
        <Switch label="Send a CSAT survey when a ticket is resolved" description="The ticket's requester is emailed a single-use link to rate the help received, once per ticket"
          disabled={ro} {...form.getInputProps('surveyOnResolve', { type: 'checkbox' })} />
        <Radio.Group label="Level changes" description="What the daily level review does with partners whose results call for another level"
          {...form.getInputProps('levelChanges')}>
          <Stack gap={6} mt={6}>
            <Radio value="propose" label="Propose them to operators for approval" disabled={ro} />
            <Radio value="apply" label="Apply them at once" disabled={ro} />
          </Stack>
        </Radio.Group>
        {canWrite && (
          <Group justify="flex-end">
            <Button variant="default" disabled={!form.isDirty()} onClick={() => { form.reset(); }}>Discard</Button>
            <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>Save settings</Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** The tenant: its name and address, and the settings that shape the program. */
export default function Settings() {
  const canWrite = useCan('tenant:write');
  const tenant = useQuery({ queryKey: ['tenant'], queryFn: async () => unwrap(await api.GET('/api/tenant')) });
  return (
    <Stack>
      <PageHeader title="Settings" description="Your partner program's name and how it behaves." />
      {tenant.isPending && <Loader role="status" aria-label="Loading settings" />}
      {tenant.isError && <ErrorAlert error={tenant.error} />}
      {tenant.data && (
        <>
          <Card withBorder>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Stack gap={2}><Text size="xs" c="dimmed">Slug</Text><Text size="sm"><code>{tenant.data.slug}</code></Text></Stack>
              <Stack gap={2}><Text size="xs" c="dimmed">Tenant id</Text><Text size="sm"><code>{tenant.data.id}</code></Text></Stack>
              <Stack gap={2}><Text size="xs" c="dimmed">Created</Text><Text size="sm"><DateTime value={tenant.data.createdAt} /></Text></Stack>
            </SimpleGrid>
          </Card>
          <SettingsForm key={tenant.data.id} tenant={tenant.data} canWrite={canWrite} />
        </>
      )}
    </Stack>
  );
}
