import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { Anchor, Button, Checkbox, Group, Modal, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { api, fieldErrors, unwrap } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { usePartnerList } from '../../ui/DataQueries';
import { oneOf, orUndefined, useAdminFilters } from '../../ui/AdminFilters';
import { ContentTypesHelp, FolderName, VisibilityFields } from '../../ui/Content';
import { uploadVersion, useFolders, visibilityText, type ContentItem, type Visibility } from '../../ui/contentData';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { formatBytes } from '../../ui/files';
import { localInputToISO } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';

const kinds = ['file', 'link'] as const;

/** The content library: folders and items (files and links), who sees them, search. */
export default function Content() {
  const canWrite = useCan('content:write');
  const folders = useFolders();
  const partners = usePartnerList();
  const partnerName = (id: string) => partners.data?.find((p) => p.id === id)?.name ?? id;
  const [f, set] = useAdminFilters(['folderId', 'kind', 'language', 'tag', 'q', 'archived'] as const);
  const [q, setQ] = useState(f.q);
  const [debounced] = useDebouncedValue(q, 300);
  useEffect(() => { if (debounced !== f.q) set({ q: debounced }); }, [debounced]); // eslint-disable-line react-hooks/exhaustive-deps
  const [dialog, setDialog] = useState<'folder' | 'item' | null>(null);
  const query = {
    folderId: orUndefined(f.folderId), kind: oneOf(f.kind, kinds), language: orUndefined(f.language), tag: orUndefined(f.tag),
    q: orUndefined(f.q), archived: f.archived === 'true' ? true : undefined,
  };
  const filtered = Object.values(query).some(Boolean);
  return (
    <Stack>
      <PageHeader title="Content library" description="Files and links for partners: sales decks, brand assets, guides. Each item says which partners see it."
        actions={canWrite && <>
          <Button variant="default" onClick={() => { setDialog('folder'); }}>New folder</Button>
          <Button onClick={() => { setDialog('item'); }}>Add item</Button>
        </>} />
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput label="Search" type="search" description="Title or description" value={q} onChange={(e) => { setQ(e.currentTarget.value); }} />
        <NativeSelect label="Folder" value={f.folderId} onChange={(e) => { set({ folderId: e.currentTarget.value }); }}
          data={[{ value: '', label: 'All folders' }, ...(folders.data ?? []).map((x) => ({ value: x.id, label: x.name }))]} />
        <NativeSelect label="Kind" value={f.kind} onChange={(e) => { set({ kind: e.currentTarget.value }); }}
          data={[{ value: '', label: 'Files and links' }, { value: 'file', label: 'Files' }, { value: 'link', label: 'Links' }]} />
        <TextInput label="Language" placeholder="en" w={100} value={f.language} onChange={(e) => { set({ language: e.currentTarget.value.trim() }); }} />
        <TextInput label="Tag" w={140} value={f.tag} onChange={(e) => { set({ tag: e.currentTarget.value.trim() }); }} />
        <Checkbox label="Archived items" mb={8} checked={f.archived === 'true'} onChange={(e) => { set({ archived: e.currentTarget.checked ? 'true' : '' }); }} />
      </Group>
      <PagedTable<ContentItem>
        label="Content items"
        queryKey={['content', 'items', 'console', query]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/content/items', { params: { query: { ...query, cursor, limit: 25 } } }))}
        rowKey={(i) => i.id}
        empty={filtered ? 'No items match these filters.' : 'The library is empty. Add a file or a link.'}
        columns={[
          { header: 'Title', render: (i) => <Anchor component={Link} to={`/content/${i.id}`}>{i.title}</Anchor> },
          { header: 'Kind', render: (i) => (i.kind === 'file' ? (i.versionNumber ? `File · v${String(i.versionNumber)} · ${formatBytes(i.size)}` : 'File · not uploaded') : 'Link') },
          { header: 'Folder', render: (i) => <FolderName id={i.folderId} /> },
          { header: 'Who sees it', render: (i) => <Text size="sm">{visibilityText(i.visibility, partnerName)}</Text> },
          { header: 'Status', render: (i) => <StatusBadge status={i.expiresAt && new Date(i.expiresAt) < new Date() ? 'expired' : i.status} /> },
          { header: 'Updated', render: (i) => <DateTime value={i.updatedAt} /> },
        ]}
      />
      <Modal opened={dialog === 'folder'} onClose={() => { setDialog(null); }} title="New folder" closeButtonProps={{ 'aria-label': 'Close' }}>
        {dialog === 'folder' && <FolderForm onDone={() => { setDialog(null); }} />}
      </Modal>
      <Modal opened={dialog === 'item'} onClose={() => { setDialog(null); }} title="Add a content item" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {dialog === 'item' && <ItemForm folderId={f.folderId} onCancel={() => { setDialog(null); }} />}
      </Modal>
    </Stack>
  );
}

function FolderForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/content/folders', { body: { name: name.trim() } })),
    onSuccess: async () => { notify('Folder added'); await queryClient.invalidateQueries({ queryKey: ['content', 'folders'] }); onDone(); },
  });
  return (
    <form onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
      <Stack>
        <TextInput label="Folder name" required maxLength={200} value={name} onChange={(e) => { setName(e.currentTarget.value); }} error={fieldErrors(create.error).name} data-autofocus />
        <ErrorAlert error={create.error} shownFields={['name']} />
        <Group justify="flex-end"><Button type="submit" disabled={!name.trim()} loading={create.isPending}>Add folder</Button></Group>
      </Stack>
    </form>
  );
}

/** A new item: a link, or a file uploaded right after the item is made (its first version). */
function ItemForm({ folderId, onCancel }: { folderId: string; onCancel: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const folders = useFolders();
  const [v, setV] = useState({ kind: 'file' as 'file' | 'link', title: '', description: '', language: '', url: '', folderId, tags: '', expiresAt: '' });
  const [vis, setVis] = useState<Visibility>({ allPartners: false, levels: [], partnerIds: [] });
  const [file, setFile] = useState<File | null>(null);
  // An item made before its file was refused: the next try uploads to it again.
  const [made, setMade] = useState<ContentItem | null>(null);
  const save = useMutation({
    mutationFn: async () => {
      const item = made ?? unwrap(await api.POST('/api/content/items', { body: {
        kind: v.kind, title: v.title.trim(), description: orUndefined(v.description.trim()), language: orUndefined(v.language.trim()),
        url: v.kind === 'link' ? v.url.trim() : undefined, folderId: orUndefined(v.folderId),
        tags: v.tags.split(',').map((s) => s.trim()).filter(Boolean), expiresAt: localInputToISO(v.expiresAt), visibility: vis,
      } }));
      setMade(item);
      if (item.kind === 'file' && file) await uploadVersion(item.id, file);
      return item;
    },
    onSuccess: async (item) => {
      notify(item.kind === 'file' ? 'File added' : 'Link added');
      await queryClient.invalidateQueries({ queryKey: ['content'] });
      void navigate(`/content/${item.id}`);
    },
  });
  const errs = fieldErrors(save.error);
  const change = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => { const x = e.currentTarget.value; setV((s) => ({ ...s, [k]: x })); };
  const ready = v.title.trim() && (v.kind === 'link' ? v.url.trim() : file);
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <Stack>
        <NativeSelect label="Kind" value={v.kind} disabled={!!made} onChange={change('kind')}
          data={[{ value: 'file', label: 'A file (uploaded here)' }, { value: 'link', label: 'A link to elsewhere' }]} />
        <TextInput label="Title" required maxLength={200} value={v.title} onChange={change('title')} error={errs.title} disabled={!!made} />
        <Textarea label="Description" autosize minRows={2} maxLength={5000} value={v.description} onChange={change('description')} error={errs.description} disabled={!!made} />
        {v.kind === 'link'
          ? <TextInput label="Address" type="url" required placeholder="https://" maxLength={2048} value={v.url} onChange={change('url')} error={errs.url} disabled={!!made} />
          : <FilePicker label="File" file={file} onChange={(x) => { save.reset(); setFile(x); }} description={<ContentTypesHelp />} />}
        <Group grow align="flex-start">
          <NativeSelect label="Folder" value={v.folderId} onChange={change('folderId')} disabled={!!made}
            data={[{ value: '', label: 'No folder' }, ...(folders.data ?? []).map((x) => ({ value: x.id, label: x.name }))]} />
          <TextInput label="Language" description="BCP 47, e.g. en or de-CH" maxLength={35} value={v.language} onChange={change('language')} error={errs.language} disabled={!!made} />
        </Group>
        <Group grow align="flex-start">
          <TextInput label="Tags" description="Separated by commas" value={v.tags} onChange={change('tags')} error={errs.tags} disabled={!!made} />
          <TextInput label="Expires" type="datetime-local" description="Partners no longer see it after" value={v.expiresAt} onChange={change('expiresAt')} error={errs.expiresAt} disabled={!!made} />
        </Group>
        {!made && <VisibilityFields value={vis} onChange={setVis} />}
        {made && save.isError && <Text size="sm">The item was added without its file. Choose another file and try again, or open the item later to upload one.</Text>}
        <ErrorAlert error={save.error} shownFields={['title', 'description', 'url', 'language', 'tags', 'expiresAt']} />
        <Group justify="flex-end">
          {made && <Button variant="default" component={Link} to={`/content/${made.id}`}>Open the item</Button>}
          <Button variant="default" onClick={onCancel}>Cancel</Button>
          <Button type="submit" disabled={!ready} loading={save.isPending}>{made ? 'Upload file' : 'Add item'}</Button>
        </Group>
      </Stack>
    </form>
  );
}
