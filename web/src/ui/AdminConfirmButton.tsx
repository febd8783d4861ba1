import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';

interface Props extends Omit<ButtonProps, 'onClick'> {
  /** The button's label, also the confirming button's. */
  label: string;
  /** The dialog's title. */
  title: string;
  /** What happens, in words the person reads before confirming. */
  message: ReactNode;
  onConfirm: () => Promise<unknown>;
  /** Names the button when its label alone is ambiguous (one per table row). */
  'aria-label'?: string;
}

/** A button for a destructive or lasting action: it asks first, then runs and closes. */
export function AdminConfirmButton({ label, title, message, onConfirm, color = 'red', 'aria-label': ariaLabel, ...rest }: Props) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
      setOpen(false);
    } catch {
      // The caller shows the error; the dialog closes so it can be read.
      setOpen(false);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color={color} variant="light" aria-label={ariaLabel} {...rest} onClick={() => { setOpen(true); }}>{label}</Button>
      <Modal opened={open} onClose={() => { setOpen(false); }} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack>
          <Text size="sm">{message}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setOpen(false); }}>Cancel</Button>
            <Button color={color} loading={busy} onClick={() => { void confirm(); }}>{label}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
