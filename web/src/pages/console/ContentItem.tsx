import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Anchor, Badge, Button, Card, Checkbox, Code, Group, Loader, NativeSelect, SimpleGrid, Stack, TextInput, Textarea, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { usePartnerList } from '../../ui/DataQueries';
import { ContentTypesHelp, DownloadButton, FolderName, VisibilityFields } from '../../ui/Content';
import { uploadVersion, useFolders, visibilityText, type ContentItem, type Visibility } from '../../ui/contentData';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { formatBytes } from '../../ui/files';
import { localInputToISO } from '../../ui/format';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { PersonName } from './money/shared';
import { Field } from '../../ui/Field';

/** A datetime-local input's value for an instant, in the viewer's time zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(d.getFullYear())}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** One content item: details, who sees it, its file's versions, a new version, download, archive. */
export default function ContentItemPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const canWrite = useCan('content:write');
  const partners = usePartnerList();
  const partnerName = (pid: string) => partners.data?.find((p) => p.id === pid)?.name ?? pid;
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const item = useQuery({
    queryKey: ['content', 'item', id],
    queryFn: async () => unwrap(await api.GET('/api/content/items/{id}', { params: { path: { id } } })),
    retry: false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['content'] });
  const archive = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/content/items/{id}', { params: { path: { id } } })),
    onSuccess: async () => { notify('Item archived: partners no longer see it'); await refresh(); },
  });

  if (item.isPending) return <Loader aria-label="Loading item" />;
  if (item.isError) {
    return (
      <Stack>
        <PageHeader title="Content item" />
        <ErrorAlert error={item.error} />
        <Anchor component={Link} to="/content">Back to the library</Anchor>
      </Stack>
    );
  }
  const it = item.data;
  const active = it.status === 'active';
  return (
    <Stack>
      <Anchor component={Link} to="/content" size="sm">← Content library</Anchor>
      <PageHeader title={it.title} description={it.description}
        actions={<>
          {it.kind === 'file' && it.versionNumber > 0 && <DownloadButton item={it} onError={setDownloadError} />}
          {it.kind === 'link' && it.url && <Button variant="light" size="compact-sm" component="a" href={it.url} target="_blank" rel="noopener noreferrer">Open link</Button>}
          {canWrite && active && <ConfirmButton label="Archive" size="compact-sm" title="Archive this item?" confirmLabel="Archive item"
            message="Partners no longer see it; its files and history stay." onConfirm={() => archive.mutateAsync()} />}
        </>} />
      <ErrorAlert error={downloadError} />
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
          <Field label="Status"><StatusBadge status={it.status} /></Field>
          <Field label="Kind">{it.kind === 'file' ? 'File' : 'Link'}</Field>
          <Field label="Folder"><FolderName id={it.folderId} /></Field>
          <Field label="Language">{it.language || '—'}</Field>
          <Field label="Who sees it">{visibilityText(it.visibility, partnerName)}</Field>
          <Field label="Expires"><DateTime value={it.expiresAt} /></Field>
          <Field label="Tags">{it.tags.length ? <Group gap={4}>{it.tags.map((t) => <Badge key={t} variant="outline" color="gray">{t}</Badge>)}</Group> : '—'}</Field>
          {it.kind === 'link' && <Field label="Address">{it.url}</Field>}
          {it.kind === 'file' && <>
            <Field label="Current version">{it.versionNumber ? `v${String(it.versionNumber)}` : 'No file yet'}</Field>
            <Field label="File">{it.fileName ?? '—'}</Field>
            <Field label="Size and type">{it.versionNumber ? `${formatBytes(it.size)} · ${it.contentType ?? ''}` : '—'}</Field>
            <Field label="SHA-256">{it.sha256 ? <Code>{it.sha256}</Code> : '—'}</Field>
          </>}
        </SimpleGrid>
      </Card>
      {canWrite && active && it.kind === 'file' && <NewVersion item={it} onDone={refresh} />}
      {it.kind === 'file' && <>
        <Title order={2} size="h4">Version history</Title>
        <PagedTable<Schemas['ContentVersion']>
          label="Versions"
          queryKey={['content', 'versions', id]}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/content/items/{id}/versions', { params: { path: { id }, query: { cursor, limit: 25 } } }))}
          rowKey={(v) => v.id}
          empty="No file uploaded yet."
          columns={[
            { header: 'Version', render: (v) => <Group gap={4}>v{v.number}{v.id === it.versionId && <Badge size="sm" variant="light">current</Badge>}</Group> },
            { header: 'File', render: (v) => v.fileName },
            { header: 'Size', numeric: true, render: (v) => formatBytes(v.size) },
            { header: 'Type', render: (v) => v.contentType },
            { header: 'Uploaded by', render: (v) => <PersonName id={v.createdBy} /> },
            { header: 'Uploaded', render: (v) => <DateTime value={v.createdAt} /> },
            { header: 'File', render: (v) => <DownloadButton item={it} versionId={v.id} fileName={v.fileName} label={`Download v${String(v.number)}`} onError={setDownloadError} /> },
          ]}
        />
      </>}
      {canWrite && active && <EditItem key={it.updatedAt} item={it} onDone={refresh} />}
    </Stack>
  );
}

function NewVersion({ item, onDone }: { item: ContentItem; onDone: () => Promise<void> }) {
  const [file, setFile] = useState<File | null>(null);
  const up = useMutation({
    mutationFn: async () => { if (file) return uploadVersion(item.id, file); return null; },
    onSuccess: async (v) => { setFile(null); notify(`Version ${String(v?.number ?? '')} uploaded`); await onDone(); },
  });
  return (
    <Card withBorder component="section" aria-labelledby="new-version-heading">
      <Stack gap="sm">
        <Title order={2} size="h5" id="new-version-heading">{item.versionNumber ? 'Upload a new version' : 'Upload the file'}</Title>
        <Group align="flex-end" gap="sm">
          <FilePicker label="File" file={file} onChange={(f) => { up.reset(); setFile(f); }} description={<ContentTypesHelp />} />
          <Button disabled={!file} loading={up.isPending} onClick={() => { up.mutate(); }}>Upload version</Button>
        </Group>
        <ErrorAlert error={up.error} />
      </Stack>
    </Card>
  );
}

function EditItem({ item, onDone }: { item: ContentItem; onDone: () => Promise<void> }) {
  const folders = useFolders();
  const [v, setV] = useState({ title: item.title, description: item.description ?? '', language: item.language ?? '', url: item.url ?? '',
    folderId: item.folderId ?? '', tags: item.tags.join(', '), expiresAt: toLocalInput(item.expiresAt) });
  const [vis, setVis] = useState<Visibility>({ allPartners: item.visibility?.allPartners ?? false, levels: item.visibility?.levels ?? [], partnerIds: item.visibility?.partnerIds ?? [] });
  const [noExpiry, setNoExpiry] = useState(false);
  const save = useMutation({
    mutationFn: async () => unwrap(await api.PATCH('/api/content/items/{id}', { params: { path: { id: item.id } }, body: {
      title: v.title.trim(), description: v.description.trim(), language: v.language.trim(), url: item.kind === 'link' ? v.url.trim() : undefined,
      folderId: v.folderId, tags: v.tags.split(',').map((s) => s.trim()).filter(Boolean),
      expiresAt: noExpiry ? undefined : localInputToISO(v.expiresAt), clearExpiry: noExpiry || (!v.expiresAt && !!item.expiresAt), visibility: vis,
    } })),
    onSuccess: async () => { notify('Item saved'); await onDone(); },
  });
  const errs = fieldErrors(save.error);
  const change = (k: keyof typeof v) => (e: { currentTarget: { value: string } }) => { const x = e.currentTarget.value; setV((s) => ({ ...s, [k]: x })); };
  return (
    <Card withBorder component="section" aria-labelledby="edit-heading">
      <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
        <Stack gap="sm">
          <Title order={2} size="h5" id="edit-heading">Details and visibility</Title>
          <TextInput label="Title" required maxLength={200} value={v.title} onChange={change('title')} error={errs.title} />
          <Textarea label="Description" autosize minRows={2} maxLength={5000} value={v.description} onChange={change('description')} error={errs.description} />
          {item.kind === 'link' && <TextInput label="Address" type="url" required maxLength={2048} value={v.url} onChange={change('url')} error={errs.url} />}
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NativeSelect label="Folder" value={v.folderId} onChange={change('folderId')}
              data={[{ value: '', label: 'No folder' }, ...(folders.data ?? []).map((x) => ({ value: x.id, label: x.name }))]} />
            <TextInput label="Language" maxLength={35} value={v.language} onChange={change('language')} error={errs.language} />
            <TextInput label="Tags" description="Separated by commas" value={v.tags} onChange={change('tags')} error={errs.tags} />
            <Stack gap={4}>
              <TextInput label="Expires" type="datetime-local" value={v.expiresAt} onChange={change('expiresAt')} error={errs.expiresAt} disabled={noExpiry} />
              {item.expiresAt && <Checkbox label="No expiry" checked={noExpiry} onChange={(e) => { setNoExpiry(e.currentTarget.checked); }} />}
            </Stack>
          </SimpleGrid>
          <VisibilityFields value={vis} onChange={setVis} />
          <ErrorAlert error={save.error} shownFields={['title', 'description', 'url', 'language', 'tags', 'expiresAt']} />
          <Group justify="flex-end"><Button type="submit" loading={save.isPending}>Save changes</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}
