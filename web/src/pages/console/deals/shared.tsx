// What the deal pages show alike: a partner's name, a conflict marker, the dialog closing a deal.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Group, Modal, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../../api/client';
import { useCan } from '../../../auth/useCan';
import { ErrorAlert } from '../../../ui/ErrorAlert';
import { Money } from '../../../ui/Money';
import type { Deal, Stage } from './data';

/** A partner's name, looked up once per partner. */
export function PartnerName({ id }: { id: string }) {
  const allowed = useCan('partners:read');
  const q = useQuery({
    queryKey: ['partners', id],
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id } } })),
    enabled: allowed,
    staleTime: 300_000,
  });
  return <>{q.data?.name ?? 'Partner'}</>;
}

const statusColors: Record<Deal['status'], string> = {
  submitted: 'blue', approved: 'teal', rejected: 'red', won: 'green', lost: 'red', expired: 'gray',
};

/** A deal's status: a coloured dot beside the word, legible on any background. */
export function DealStatus({ status }: { status: Deal['status'] }) {
  return <Badge variant="dot" color={statusColors[status]}>{status}</Badge>;
}

/** Marks a registration whose overlap with other partners' work waits for review. */
export function ConflictMarker({ deal }: { deal: Deal }) {
  if (deal.conflictStatus === 'review') {
    return (
      <Tooltip label="Overlaps another partner's deal or customer; review before approving">
        <Badge color="orange" c="black" variant="filled" tabIndex={0}>Conflict</Badge>
      </Tooltip>
    );
  }
  if (deal.conflictStatus === 'resolved') return <Badge color="gray" variant="outline">Conflict resolved</Badge>;
  return null;
}

/** Confirms moving a deal to a won stage, or asks why it was lost. */
export function CloseDialog({ pending, busy, error, onCancel, onConfirm }: {
  pending: { deal: Deal; stage: Stage } | null; busy: boolean; error: Error | null;
  onCancel: () => void; onConfirm: (reason?: string) => void;
}) {
  const [reason, setReason] = useState('');
  const lost = pending?.stage.outcome === 'lost';
  const reasonError = fieldErrors(error).reason;
  return (
    <Modal lockScroll={false} closeButtonProps={{ 'aria-label': 'Close' }} opened={!!pending} onClose={onCancel} title={lost ? 'Mark the deal lost' : 'Mark the deal won'}>
      {pending && (
        <form onSubmit={(e) => { e.preventDefault(); onConfirm(lost ? reason : undefined); }}>
          <Stack>
            <Text size="sm">
              {pending.deal.customerCompany} (<Money minor={pending.deal.amountMinor} currency={pending.deal.currency} />) moves
              to <b>{pending.stage.name}</b>.{' '}
              {lost
                ? 'The deal closes as lost and its protection ends.'
                : 'The deal closes as won: its customer is created or linked by the contact email and attributed to the partner, and commissions follow.'}
            </Text>
            {lost && (
              <Textarea label="Why was it lost?" required autosize minRows={2} maxLength={1000} data-autofocus
                value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} error={reasonError} />
            )}
            <ErrorAlert error={error} shownFields={['reason']} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onCancel}>Cancel</Button>
              <Button type="submit" color={lost ? 'red.9' : undefined} loading={busy} data-autofocus={lost ? undefined : true}>
                {lost ? 'Mark lost' : 'Mark won'}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
