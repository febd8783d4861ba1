// The content library's shared components: a folder's name, who sees an item, downloading a file,
// what files the library takes.
import { useMutation } from '@tanstack/react-query';
import { Button, Checkbox, Input, MultiSelect, Stack, Text } from '@mantine/core';
import { useLevels } from './levels';
import { usePartnerList } from './DataQueries';
import { useFolders, type ContentItem, type Visibility } from './contentData';
import { downloadFile, qs } from './files';

/** A folder's name, or its id while the folders load. */
export function FolderName({ id }: { id: string | undefined }) {
  const folders = useFolders();
  if (!id) return <span>—</span>;
  return <span>{folders.data?.find((f) => f.id === id)?.name ?? id}</span>;
}


/** Choosing who sees an item: every partner, partners at some levels, named partners. */
export function VisibilityFields({ value, onChange }: { value: Visibility; onChange: (v: Visibility) => void }) {
  const levels = useLevels();
  const partners = usePartnerList();
  const partnerData = (partners.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  for (const id of value.partnerIds ?? []) if (!partnerData.some((d) => d.value === id)) partnerData.push({ value: id, label: id });
  return (
    <Input.Wrapper label="Who sees it" description="Nobody but operators when nothing is chosen.">
      <Stack gap="xs" mt={4}>
        <Checkbox label="All partners" checked={!!value.allPartners} onChange={(e) => { onChange({ ...value, allPartners: e.currentTarget.checked }); }} />
        <MultiSelect label="Partners at these levels" disabled={!!value.allPartners} searchable clearable
          data={(levels.data ?? []).map((l) => l.name)} value={value.levels ?? []} onChange={(levelsNow) => { onChange({ ...value, levels: levelsNow }); }} />
        <MultiSelect label="These partners" disabled={!!value.allPartners} searchable clearable nothingFoundMessage="No partner by that name"
          data={partnerData} value={value.partnerIds ?? []} onChange={(ids) => { onChange({ ...value, partnerIds: ids }); }} />
      </Stack>
    </Input.Wrapper>
  );
}


/** A download button for an item's current file (or, for operators, one version). */
export function DownloadButton({ item, versionId, fileName, label = 'Download', onError }: {
  item: ContentItem; versionId?: string; fileName?: string; label?: string; onError: (e: unknown) => void;
}) {
  const dl = useMutation({
    mutationFn: () => downloadFile(`/api/content/items/${encodeURIComponent(item.id)}/download${qs({ versionId })}`, fileName ?? item.fileName ?? item.title),
    onError,
  });
  return (
    <Button variant="light" size="compact-sm" loading={dl.isPending} onClick={() => { onError(null); dl.mutate(); }}
      aria-label={`${label} ${fileName ?? item.fileName ?? item.title}`}>{label}</Button>
  );
}

/** What files the library takes. */
export function ContentTypesHelp() {
  return <Text span size="xs">Documents, images, video, audio, archives or text; the type is told from the file itself.</Text>;
}
