import { useState, type ReactNode } from 'react';
import { Input } from '@mantine/core';

/** A file picker with a visible label (a native input, so keyboards and assistive technology know it). */
export function FilePicker({ label, file, onChange, description }: { label: string; file: File | null; onChange: (f: File | null) => void; description?: ReactNode }) {
  const [id] = useState(() => `file-${Math.random().toString(36).slice(2, 9)}`);
  return (
    <Input.Wrapper label={label} labelProps={{ htmlFor: id }} description={description}>
      {/* A new key empties the input once the file is sent. */}
      <input id={id} type="file" onChange={(e) => { onChange(e.currentTarget.files?.[0] ?? null); }}
        key={file ? 'set' : 'empty'} style={{ display: 'block', marginTop: 4 }} />
    </Input.Wrapper>
  );
}
