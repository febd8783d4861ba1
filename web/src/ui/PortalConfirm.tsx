import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

/** Asks before a destructive action; stays open showing the error when the action fails. */
export function PortalConfirm({ opened, title, children, confirmLabel, onConfirm, onClose, loading, error }: {
  opened: boolean; title: string; children: ReactNode; confirmLabel: string;
  onConfirm: () => void; onClose: () => void; loading?: boolean; error?: unknown;
}) {
  return (
    // No scroll lock: it writes a <style> element without the CSP nonce, which the policy blocks.
    <Modal lockScroll={false} opened={opened} onClose={onClose} title={title}>
      <Stack>
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        <ErrorAlert error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Keep it</Button>
          <Button color="red" loading={loading} onClick={onConfirm}>{confirmLabel}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
