import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';

/**
 * A secret the server shows only once (a webhook signing secret, a machine key): shown with a
 * copy button until the person closes it; nothing keeps it afterwards.
 */
export function SecretOnce({ title, secret, onClose }: { title: string; secret: string | null; onClose: () => void }) {
  return (
    <Modal opened={secret !== null} onClose={onClose} title={title} size="lg" closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Alert color="yellow" title="Shown once">
          Copy it now and store it safely: it is not shown again.
        </Alert>
        <Code block data-testid="secret-once" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>{secret}</Code>
        <Group justify="space-between">
          <CopyButton value={secret ?? ''}>
            {({ copied, copy }) => <Button variant="light" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}
          </CopyButton>
          <Button onClick={onClose}>I have stored it</Button>
        </Group>
        <Text size="xs" c="dimmed">partnerd keeps only a sealed or hashed copy.</Text>
      </Stack>
    </Modal>
  );
}
