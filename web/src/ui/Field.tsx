import { Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A labelled value on a detail page: a small upper-case label above the value, which wraps anywhere. */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>{label}</Text>
      <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>{children}</Text>
    </Stack>
  );
}
