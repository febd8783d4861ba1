import { Code } from '@mantine/core';

/** A value as indented JSON, read-only (a playbook's definition, a step's output). */
export function AdminJson({ value, label }: { value: unknown; label: string }) {
  return (
    <Code block aria-label={label} tabIndex={0} style={{ maxHeight: 480, overflow: 'auto', whiteSpace: 'pre' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}
