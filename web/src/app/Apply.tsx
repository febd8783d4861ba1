import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Button, Center, Group, Loader, Paper, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { ApiError, api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useBrand } from '../brand';
import { ErrorAlert } from '../ui/ErrorAlert';

type PartnerType = Schemas['SubmitApplicationInputBody']['partnerType'];

interface Values {
  organisation: string;
  contactName: string;
  contactEmail: string;
  partnerType: string;
  answers: Record<string, string>;
}

/** "partner_admin" → "Partner admin". */
const label = (w: string) => { const s = w.replaceAll('_', ' '); return s.charAt(0).toUpperCase() + s.slice(1); };

/** What a refused application means to the applicant. */
function refusal(err: unknown): { title: string; text: string } | null {
  if (!(err instanceof ApiError)) return null;
  if (err.status === 409) return { title: 'You applied already', text: err.problem.detail ?? 'An application from this email is under review, or was declined recently.' };
  if (err.status === 429) return { title: 'Too many tries', text: 'Wait a while and send the form again.' };
  return null;
}

/**
 * The public application page of a partner program (/apply/{slug}): no login. An organisation
 * gives its name, a contact and the answers the program asks for; the program reviews it.
 */
export default function Apply() {
  const { slug = '' } = useParams();
  const brand = useBrand();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useQuery({
    queryKey: ['public-application-form', slug],
    retry: false,
    refetchOnWindowFocus: false,
    staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/public/{slug}/application-form', { params: { path: { slug } } })),
  });
  const questions = form.data?.questions ?? [];
  const values = useForm<Values>({
    initialValues: { organisation: '', contactName: '', contactEmail: '', partnerType: '', answers: {} },
    validate: (v) => {
      const e: Record<string, string> = {};
      if (!v.organisation.trim()) e.organisation = 'Name your organisation';
      if (!v.contactName.trim()) e.contactName = 'Give a contact name';
      if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v.contactEmail.trim())) e.contactEmail = 'Enter an email address like name@company.com';
      if (!v.partnerType) e.partnerType = 'Choose the kind of partner you would be';
      for (const q of questions) if (q.required && !(v.answers[q.key] ?? '').trim()) e[`answers.${q.key}`] = 'This question needs an answer';
      return e;
    },
  });
  const send = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.POST('/api/public/{slug}/applications', {
      params: { path: { slug } },
      body: {
        organisation: v.organisation.trim(), contactName: v.contactName.trim(), contactEmail: v.contactEmail.trim(),
        partnerType: v.partnerType as PartnerType,
        answers: Object.fromEntries(Object.entries(v.answers).map(([k, a]): [string, string] => [k, a.trim()]).filter(([, a]) => a !== '')),
      },
    })),
    onSuccess: (_, v) => { setSentTo(v.contactEmail.trim()); },
    onError: (err) => { values.setErrors(fieldErrors(err)); },
  });

  let body;
  if (form.isPending) {
    body = <Group justify="center"><Loader aria-label="Loading the application form" /></Group>;
  } else if (form.isError) {
    body = form.error instanceof ApiError && form.error.status === 404
      ? <Alert color="red" role="alert" title="Program not found">No partner program has this address. Open the link you were given, whole.</Alert>
      : <ErrorAlert error={form.error} />;
  } else if (sentTo) {
    body = (
      <Alert color="green" role="status" title="Application received">
        Thank you! The program reviews your application and writes to {sentTo}.
      </Alert>
    );
  } else {
    const refused = refusal(send.error);
    body = (
      <form noValidate onSubmit={values.onSubmit((v) => { send.mutate(v); })}>
        <Stack>
          {refused
            ? <Alert color="red" role="alert" title={refused.title}>{refused.text}</Alert>
            : <ErrorAlert error={send.error} shownFields={['organisation', 'contactName', 'contactEmail', 'partnerType', ...questions.map((q) => `answers.${q.key}`)]} />}
          <TextInput label="Organisation" required maxLength={200} autoComplete="organization" {...values.getInputProps('organisation')} />
          <Group grow align="flex-start">
            <TextInput label="Contact name" required maxLength={200} autoComplete="name" {...values.getInputProps('contactName')} />
            <TextInput label="Contact email" type="email" required maxLength={320} autoComplete="email" {...values.getInputProps('contactEmail')} />
          </Group>
          <Select label="Kind of partner" required data={form.data.partnerTypes.map((t) => ({ value: t, label: label(t) }))}
            {...values.getInputProps('partnerType')} />
          {questions.map((q) => {
            const props = { ...values.getInputProps(`answers.${q.key}`), value: values.values.answers[q.key] ?? '' };
            return q.options?.length
              ? <Select key={q.key} label={q.label} required={q.required} data={q.options} clearable={!q.required} {...props}
                onChange={(v: string | null) => { values.setFieldValue('answers', { ...values.values.answers, [q.key]: v ?? '' }); }} />
              : <Textarea key={q.key} label={q.label} required={q.required} autosize minRows={2} maxRows={8} maxLength={4000} {...props} />;
          })}
          <Button type="submit" size="md" loading={send.isPending}>Send the application</Button>
        </Stack>
      </form>
    );
  }

  return (
    <Center component="main" mih="100vh" p={{ base: 'xs', sm: 'md' }}>
      <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} w="100%" maw={720}>
        <Stack>
          <div>
            {brand && <Text size="sm" c="dimmed">{brand.name}</Text>}
            <Title order={1} size="h2">Apply to become a partner</Title>
          </div>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}
