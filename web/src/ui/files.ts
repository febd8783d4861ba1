// Files through the API: uploads send the raw bytes, downloads come back with the session's token
// and are handed to the browser as a file. Both turn a refused upload into a problem people read.
import { api, ApiError, session, type Problem } from '../api/client';

/** A size in bytes as people read it: 812 B, 14.2 KB, 3.1 MB. */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return '—';
  if (n < 1024) return `${String(n)} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i] ?? 'GB'}`;
}

async function problemOf(res: Response): Promise<Problem> {
  const text = await res.text().catch(() => '');
  try {
    const p = JSON.parse(text) as Problem;
    if (typeof p.title === 'string') return p;
  } catch { /* not a problem document */ }
  return { type: 'about:blank', code: 'HTTP_' + String(res.status), title: res.statusText || 'Request failed', status: res.status };
}

/** Names what went wrong with an upload: a file too large (413) or of a type not taken (415). */
function uploadProblem(p: Problem): Problem {
  if (p.status === 413) return { ...p, title: 'File too large', detail: p.detail ?? 'The file is larger than the server takes.' };
  if (p.status === 415) return { ...p, title: 'File type not accepted', detail: p.detail ?? 'Files of this type are not taken.' };
  return p;
}

/** Fetches with the session's token; a 401 is retried once after the app's client renewed the session. */
async function authed(path: string, init: RequestInit): Promise<Response> {
  const send = () => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${session.token() ?? ''}`);
    return fetch(path, { ...init, headers });
  };
  let res = await send();
  if (res.status === 401) {
    await api.GET('/api/me');
    res = await send();
  }
  return res;
}

/**
 * Uploads a file's bytes to an API path (query already in it) and returns the JSON answer; a
 * refusal throws an ApiError whose title says the file is too large or of a type not taken.
 */
export async function uploadFile<T>(path: string, file: Blob, method: 'POST' | 'PUT' = 'POST'): Promise<T> {
  let res: Response;
  try {
    res = await authed(path, { method, body: file, headers: { 'Content-Type': 'application/octet-stream' } });
  } catch {
    // The server may refuse a large body before reading it and close the connection.
    throw new ApiError({ type: 'about:blank', code: 'UPLOAD_FAILED', title: 'Upload failed', status: 0,
      detail: 'The upload was cut off; the file may be larger than the server takes.' });
  }
  if (!res.ok) throw new ApiError(uploadProblem(await problemOf(res)));
  return (await res.json()) as T;
}

/** Downloads an API path as a file named by the server (Content-Disposition) or by `fallbackName`. */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  const res = await authed(path, { method: 'GET' });
  if (!res.ok) throw new ApiError(await problemOf(res));
  const blob = await res.blob();
  const cd = res.headers.get('Content-Disposition') ?? '';
  const m = /filename\*=UTF-8''([^;]+)/i.exec(cd) ?? /filename="?([^";]+)"?/i.exec(cd);
  let name = fallbackName;
  if (m?.[1]) {
    try { name = decodeURIComponent(m[1]); } catch { name = m[1]; }
  }
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => { URL.revokeObjectURL(url); }, 1000);
}

/** A query string of the defined values. */
export function qs(params: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}
