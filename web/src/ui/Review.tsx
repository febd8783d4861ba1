import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Button, Group, Modal, Stack, Textarea } from '@mantine/core';
import { notify } from './DataNotify';
import { ErrorAlert } from './ErrorAlert';

/** Approve and Reject buttons for one item under review; `subject` completes their labels, e.g. "the tax record of Contoso". */
export function ReviewButtons({ subject, approving, onApprove, onReject }: {
  subject: string;
  approving: boolean;
  /** Left out where the item cannot be approved. */
  onApprove?: () => void;
  /** Left out where the item cannot be rejected. */
  onReject?: () => void;
}) {
  return (
    <Group gap="xs" wrap="nowrap">
      {onApprove && <Button size="xs" aria-label={`Approve ${subject}`} loading={approving} onClick={onApprove}>Approve</Button>}
      {onReject && <Button size="xs" color="red" variant="light" aria-label={`Reject ${subject}`} onClick={onReject}>Reject</Button>}
    </Group>
  );
}

interface RejectDialogProps<T> {
  /** What is being rejected; the dialog is open while it is set. */
  item: T | null;
  title: string;
  /** Shown above the reason. */
  summary?: (item: T) => ReactNode;
  reject: (item: T, reason: string) => Promise<unknown>;
  /** The notification once rejected. */
  rejected: string;
  /** The queries that show the item. */
  queryKey: QueryKey;
  onClose: () => void;
}

/** A dialog asking for the reason an item under review is rejected, and rejecting it. */
export function RejectDialog<T>({ item, title, onClose, ...form }: RejectDialogProps<T>) {
  return (
    <Modal opened={item !== null} onClose={onClose} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      {item !== null && <RejectForm item={item} onClose={onClose} {...form} />}
    </Modal>
  );
}

function RejectForm<T>({ item, summary, reject: send, rejected, queryKey, onClose }: Omit<RejectDialogProps<T>, 'item' | 'title'> & { item: T }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const reject = useMutation({
    mutationFn: () => send(item, reason.trim()),
    onSuccess: async () => { notify(rejected); await queryClient.invalidateQueries({ queryKey }); onClose(); },
  });
  return (
    <form noValidate onSubmit={(e) => { e.preventDefault(); if (reason.trim()) reject.mutate(); }}>
      <Stack>
        {summary?.(item)}
        {reject.error && <ErrorAlert error={reject.error} />}
        <Textarea label="Reason" required maxLength={1000} autosize minRows={3} value={reason} onChange={(e) => { setReason(e.currentTarget.value); }} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Cancel</Button>
          <Button type="submit" color="red" loading={reject.isPending} disabled={!reason.trim()}>Reject</Button>
        </Group>
      </Stack>
    </form>
  );
}
