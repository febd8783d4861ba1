import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Button, Card, Group, Modal, SimpleGrid, Skeleton, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { SecretOnce } from '../../ui/SecretOnce';
import { StatusBadge } from '../../ui/StatusBadge';
import { invitationLink, label } from './partnerOptions';
import { ConfirmButton, Field, NoScrollLock, PartnerName } from './PartnerParts';

type Application = Schemas['Application'];

/** One application: the applicant, their answers, and the decision. */
export default function ApplicationDetail() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canWrite = useCan('applications:write');
  const [rejecting, setRejecting] = useState(false);
  const [invitation, setInvitation] = useState<string | null>(null);
  const application = useQuery({
    queryKey: ['applications', id],
    queryFn: async () => unwrap(await api.GET('/api/applications/{id}', { params: { path: { id } } })),
  });
  // The form's questions name the answers; without them the answers show by key.
  const form = useQuery({
    queryKey: ['application-form'],
    queryFn: async () => unwrap(await api.GET('/api/application-form')),
  });

  const decided = async (a: Application) => {
    queryClient.setQueryData(['applications', a.id], a);
    await queryClient.invalidateQueries({ queryKey: ['applications'] });
    await queryClient.invalidateQueries({ queryKey: ['partners'] });
  };
  const approve = async () => {
    const a = unwrap(await api.POST('/api/applications/{id}/approve', { params: { path: { id } } }));
    const { invitation: token, ...rest } = a;
    await decided(rest);
    notifications.show({ color: 'green', message: `${a.organisation} approved: partner created and its contact invited` });
    setInvitation(invitationLink(token.token));
  };

  if (application.isPending) return <Stack><Skeleton height={36} width={320} /><Skeleton height={160} /></Stack>;
  if (application.isError) return <Stack><PageHeader title="Application" /><ErrorAlert error={application.error} /></Stack>;
  const a = application.data;
  const questions = form.data?.questions ?? [];
  const labelOf = (key: string) => questions.find((q) => q.key === key)?.label ?? key;
  // Answers in the form's order, then any the form no longer asks.
  const keys = [...questions.map((q) => q.key).filter((k) => k in a.answers), ...Object.keys(a.answers).filter((k) => !questions.some((q) => q.key === k))];

  return (
    <Stack>
      <PageHeader title={a.organisation} description={`Application to become a ${a.partnerType} partner`}
        actions={canWrite && a.status === 'pending' && <>
          <ConfirmButton color="indigo" variant="filled" title={`Approve ${a.organisation}?`}
            message={`This creates the partner organisation ${a.organisation}, invites ${a.contactEmail} as its partner admin and starts its onboarding.`}
            confirmLabel="Approve" onConfirm={approve}>Approve</ConfirmButton>
          <Button color="red.9" variant="outline" onClick={() => { setRejecting(true); }}>Reject</Button>
        </>} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Field label="Status"><StatusBadge status={a.status} />{a.autoApproved && <Text span size="xs" c="dimmed"> (approved automatically by its email domain)</Text>}</Field>
          <Field label="Contact">{a.contactName} · <Anchor href={`mailto:${a.contactEmail}`}>{a.contactEmail}</Anchor></Field>
          <Field label="Partner type">{label(a.partnerType)}</Field>
          <Field label="Received"><DateTime value={a.createdAt} /></Field>
          {a.decidedAt && <Field label="Decided"><DateTime value={a.decidedAt} /></Field>}
          {a.partnerId && <Field label="Partner"><PartnerName id={a.partnerId} /></Field>}
          {a.reason && <Field label="Reason for rejection">{a.reason}</Field>}
        </SimpleGrid>
      </Card>
      <Card withBorder>
        <Stack gap="sm">
          <Title order={2} size="h4">Answers</Title>
          {keys.length === 0 ? <Text size="sm" c="dimmed">The applicant answered no questions.</Text> : (
            <Table aria-label="Answers" verticalSpacing="xs">
              <Table.Tbody>
                {keys.map((k) => (
                  <Table.Tr key={k}>
                    <Table.Th w="35%" scope="row">{labelOf(k)}</Table.Th>
                    <Table.Td style={{ whiteSpace: 'pre-wrap' }}>{a.answers[k] || '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Card>
      {a.status === 'approved' && a.partnerId && (
        <Text size="sm"><Anchor component={Link} to={`/partners/${a.partnerId}`}>Open the partner created for this application</Anchor></Text>
      )}
      {rejecting && <Reject application={a} onClose={() => { setRejecting(false); }} onRejected={decided} />}
      <NoScrollLock><SecretOnce title={`Invitation link for ${a.contactName}`} secret={invitation} onClose={() => { setInvitation(null); }} /></NoScrollLock>
    </Stack>
  );
}

/** Rejects an application with the reason the applicant is given. */
function Reject({ application, onClose, onRejected }: { application: Application; onClose: () => void; onRejected: (a: Application) => Promise<void> }) {
  const form = useForm({
    initialValues: { reason: '' },
    validate: { reason: (v) => (v.trim() ? null : 'Say why') },
  });
  const reject = useMutation({
    mutationFn: async (reason: string) => unwrap(await api.POST('/api/applications/{id}/reject', {
      params: { path: { id: application.id } }, body: { reason },
    })),
    onSuccess: async (a) => {
      await onRejected(a);
      notifications.show({ color: 'green', message: `${a.organisation} rejected` });
      onClose();
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Modal lockScroll={false} opened onClose={onClose} title={`Reject ${application.organisation}?`}>
      <form noValidate onSubmit={form.onSubmit((v) => { reject.mutate(v.reason.trim()); })}>
        <Stack>
          <ErrorAlert error={reject.error} shownFields={['reason']} />
          <Textarea label="Reason" required maxLength={1000} autosize minRows={3} data-autofocus
            description="Kept with the application; the applicant may apply again later" {...form.getInputProps('reason')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" color="red.9" loading={reject.isPending}>Reject application</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
