import { TagsInput, TextInput, Textarea } from '@mantine/core';
import type { useForm } from '@mantine/form';
import { useEventTypes } from './DataQueries';
import type { WebhookValues } from './DataValues';

/** The inputs of a webhook endpoint: where to, which events, and a note. */
export function WebhookFields({ form }: { form: ReturnType<typeof useForm<WebhookValues>> }) {
  const types = useEventTypes();
  const names = (types.data ?? []).map((t) => t.name).sort();
  return (
    <>
      <TextInput label="Endpoint URL" required type="url" placeholder="https://example.com/webhooks/partnerd"
        description="http or https; internal addresses are refused" {...form.getInputProps('url')} />
      <TagsInput label="Event types" required placeholder="deal.*, partner.created, or * for all"
        description="Pick types or type patterns with * and press Enter" data={['*', ...names]} limit={50}
        clearable acceptValueOnBlur {...form.getInputProps('eventTypes')} />
      <Textarea label="Description" autosize minRows={2} maxLength={500} {...form.getInputProps('description')} />
    </>
  );
}
