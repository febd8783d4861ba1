import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Anchor, Button, Group, MantineThemeProvider, Modal, Skeleton, Stack, Text, type ButtonProps } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ErrorAlert } from '../../ui/ErrorAlert';

/**
 * A button whose action asks first: a dialog says what will happen and offers the action or
 * Cancel. The dialog stays open, showing the failure, when the action fails.
 */
export function ConfirmButton({ children, title, message, confirmLabel, onConfirm, color = 'red.9', ...button }:
  Omit<ButtonProps, 'onClick'> & {
    children: ReactNode;
    title: string;
    message: ReactNode;
    confirmLabel: string;
    onConfirm: () => Promise<unknown>;
    /** A theme colour dark enough for white text (WCAG AA); destructive actions are red.9. */
    color?: string;
  }) {
  const [opened, setOpened] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpened(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color={color} variant="outline" {...button} onClick={() => { setError(null); setOpened(true); }}>{children}</Button>
      <Modal lockScroll={false} opened={opened} onClose={() => { setOpened(false); }} title={title}>
        <Stack>
          <Text size="sm">{message}</Text>
          <ErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => { setOpened(false); }}>Cancel</Button>
            <Button color={color} loading={busy} onClick={() => { void confirm(); }}>{confirmLabel}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** A partner organisation's name linking to its page, for rows that hold only its id. */
export function PartnerName({ id }: { id: string }) {
  const canRead = useCan('partners:read');
  const q = useQuery({
    queryKey: ['partners', id],
    enabled: canRead,
    queryFn: async () => unwrap(await api.GET('/api/partners/{id}', { params: { path: { id } } })),
    staleTime: 60_000,
  });
  if (!canRead) return <span>{id}</span>;
  if (q.isPending) return <Skeleton height={14} width={120} />;
  return <Anchor component={Link} to={`/partners/${id}`}>{q.data?.name ?? id}</Anchor>;
}

/** One labelled value of a detail page. */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>{label}</Text>
      <div>{children}</div>
    </Stack>
  );
}

// Dialogs here leave the page's scroll alone: locking it injects a <style> element without the
// page's CSP nonce, which the browser refuses.
const noScrollLock = { components: { Modal: { defaultProps: { lockScroll: false } } } };

/** Dialogs inside (such as a secret shown once) do not lock the page's scroll. */
export function NoScrollLock({ children }: { children: ReactNode }) {
  return <MantineThemeProvider theme={noScrollLock}>{children}</MantineThemeProvider>;
}
