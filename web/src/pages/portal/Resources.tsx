import { useEffect, useState } from 'react';
import { useDebouncedValue } from '@mantine/hooks';
import { Anchor, Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { oneOf, orUndefined, useAdminFilters } from '../../ui/AdminFilters';
import { DownloadButton, FolderName } from '../../ui/Content';
import { useFolders, type ContentItem } from '../../ui/contentData';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatBytes } from '../../ui/files';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

const kinds = ['file', 'link'] as const;

/** The content library as a partner sees it: what the program shares with it, searchable. */
export default function Resources() {
  const folders = useFolders();
  const [f, set] = useAdminFilters(['folderId', 'kind', 'q'] as const);
  const [q, setQ] = useState(f.q);
  const [debounced] = useDebouncedValue(q, 300);
  useEffect(() => { if (debounced !== f.q) set({ q: debounced }); }, [debounced]); // eslint-disable-line react-hooks/exhaustive-deps
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const query = { folderId: orUndefined(f.folderId), kind: oneOf(f.kind, kinds), q: orUndefined(f.q) };
  const filtered = Object.values(query).some(Boolean);
  return (
    <Stack>
      <PageHeader title="Resources" description="Sales material, guides and links the program shares with you." />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput label="Search" type="search" value={q} onChange={(e) => { setQ(e.currentTarget.value); }} />
        <NativeSelect label="Folder" value={f.folderId} onChange={(e) => { set({ folderId: e.currentTarget.value }); }}
          data={[{ value: '', label: 'All folders' }, ...(folders.data ?? []).map((x) => ({ value: x.id, label: x.name }))]} />
        <NativeSelect label="Kind" value={f.kind} onChange={(e) => { set({ kind: e.currentTarget.value }); }}
          data={[{ value: '', label: 'Files and links' }, { value: 'file', label: 'Files' }, { value: 'link', label: 'Links' }]} />
        {filtered && <Button variant="subtle" onClick={() => { setQ(''); set({ folderId: '', kind: '', q: '' }); }}>Clear filters</Button>}
      </Group>
      <ErrorAlert error={downloadError} />
      <PagedTable<ContentItem>
        label="Resources"
        queryKey={['content', 'items', 'portal', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/content/items', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(i) => i.id}
        empty={filtered ? 'Nothing matches these filters.' : 'Nothing shared with you yet.'}
        columns={[
          { header: 'Title', render: (i) => (
            <Stack gap={0}>
              <Text size="sm" fw={600}>{i.title}</Text>
              {i.description && <Text size="xs" c="dimmed" lineClamp={2}>{i.description}</Text>}
            </Stack>
          ) },
          { header: 'Folder', render: (i) => <FolderName id={i.folderId} /> },
          { header: 'Type', render: (i) => (i.kind === 'file' ? `${i.fileName ?? 'File'} · ${formatBytes(i.size)}` : 'Link') },
          { header: 'Language', render: (i) => i.language || '—' },
          { header: 'Updated', render: (i) => <DateTime value={i.updatedAt} /> },
          { header: 'Get it', render: (i) => (i.kind === 'file'
            ? <DownloadButton item={i} onError={setDownloadError} />
            : <Anchor href={i.url} target="_blank" rel="noopener noreferrer" size="sm" aria-label={`Open ${i.title}`}>Open link</Anchor>) },
        ]}
      />
    </Stack>
  );
}
