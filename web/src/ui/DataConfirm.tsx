import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

/**
 * A button for an action that cannot be undone (delete, revoke): it asks first, and shows the
 * action's failure in the dialog.
 */
export function ConfirmButton({ label, title, message, confirmLabel, onConfirm, ...button }: ButtonProps & {
  label: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** Resolves when done; a rejection keeps the dialog open with the error. */
  onConfirm: () => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => { setOpen(false); setError(null); };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color="red.9" variant="outline" {...button} onClick={() => { setOpen(true); }}>{label}</Button>
      <Modal opened={open} onClose={close} closeButtonProps={{ 'aria-label': 'Close' }} title={title}>
        <Stack>
          <Text size="sm">{message}</Text>
          <ErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>Cancel</Button>
            <Button color="red.9" loading={busy} onClick={() => { void confirm(); }}>{confirmLabel}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
