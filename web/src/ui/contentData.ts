// What the content library's pages share besides components: folders, who sees an item in words,
// uploading a file version.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { qs, uploadFile } from './files';

export type ContentItem = Schemas['ContentItem'];
export type Visibility = Schemas['ContentVisibilityInput'];

/** The library's folders (the first 200, by name). */
export function useFolders() {
  return useQuery({
    queryKey: ['content', 'folders'],
    queryFn: async () => {
      const page = unwrap(await api.GET('/api/content/folders', { params: { query: { limit: 100 } } }));
      let rows = page.data;
      if (page.nextCursor) rows = rows.concat(unwrap(await api.GET('/api/content/folders', { params: { query: { limit: 100, cursor: page.nextCursor } } })).data);
      return [...rows].sort((a, b) => a.name.localeCompare(b.name));
    },
    staleTime: 60_000,
  });
}

/** Who sees an item, in words. */
export function visibilityText(v: Schemas['ContentVisibility'] | undefined, partnerName: (id: string) => string): string {
  if (!v) return '—';
  if (v.allPartners) return 'All partners';
  const parts: string[] = [];
  if (v.levels.length) parts.push(`Levels: ${v.levels.join(', ')}`);
  if (v.partnerIds.length) parts.push(`Partners: ${v.partnerIds.map(partnerName).join(', ')}`);
  return parts.length ? parts.join(' · ') : 'Operators only';
}

/** Uploads a file as the item's new current version. */
export function uploadVersion(itemId: string, file: File) {
  return uploadFile<Schemas['ContentVersion']>(`/api/content/items/${encodeURIComponent(itemId)}/versions${qs({ fileName: file.name })}`, file);
}
