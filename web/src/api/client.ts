// The one API client: types come from schema.d.ts, generated from docs/openapi.json by
// `npm run gen:api`. No request or response type is written by hand.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Me = Schemas['MeOutputBody'];

const TOKEN_KEY = 'partnerd.accessToken';
const REFRESH_KEY = 'partnerd.refreshToken';

// The session lives in sessionStorage: one tab, gone when it closes, never sent by the browser
// on its own (no cookie, so no cross-site request can use it). ADR 19 says why.
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  refreshToken: (): string | null => sessionStorage.getItem(REFRESH_KEY),
  set: (access: string, refresh: string) => {
    sessionStorage.setItem(TOKEN_KEY, access);
    sessionStorage.setItem(REFRESH_KEY, refresh);
  },
  clear: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(REFRESH_KEY);
  },
};

/** Called when the session cannot be renewed; the app sends the person to the login page. */
let onExpired: () => void = () => undefined;
export function onSessionExpired(fn: () => void) {
  onExpired = fn;
}

// One refresh at a time: parallel requests that all get 401 wait for the same renewal (the
// refresh token is single-use).
let renewing: Promise<boolean> | null = null;

async function renew(): Promise<boolean> {
  const refreshToken = session.refreshToken();
  if (!refreshToken) return false;
  const res = await fetch('/api/auth/refresh', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ refreshToken }),
  }).catch(() => null);
  if (!res?.ok) {
    // Another tab or request may have renewed first; its tokens stand.
    if (session.refreshToken() !== refreshToken) return true;
    session.clear();
    return false;
  }
  const body = (await res.json()) as Schemas['TokenOutputBody'];
  session.set(body.accessToken, body.refreshToken);
  return true;
}

/** fetch with the bearer token; a 401 renews the session once and retries the request. */
async function authedFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const token = session.token();
  if (token) request.headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(request);
  if (res.status !== 401 || !token || new URL(request.url).pathname.startsWith('/api/auth/')) return res;
  renewing ??= renew().finally(() => { renewing = null; });
  if (!(await renewing)) {
    onExpired();
    return res;
  }
  retry.headers.set('Authorization', `Bearer ${session.token() ?? ''}`);
  return fetch(retry);
}

export const api = createClient<paths>({ baseUrl: '', fetch: authedFetch });

/** An API call that failed: its RFC 9457 problem (or a stand-in when the server did not answer). */
export class ApiError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problemMessage(problem));
    this.problem = problem;
  }
  get status(): number {
    return this.problem.status;
  }
}

/** The message a person reads for an RFC 9457 problem. */
export function problemMessage(p: Problem | undefined): string {
  if (!p) return 'The server did not answer.';
  return p.detail ?? p.title;
}

/**
 * The data of an openapi-fetch result, or an ApiError with its problem. Use it in query and
 * mutation functions: `unwrap(await api.GET('/api/partners'))`.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const p = result.error as Problem | undefined;
    throw new ApiError(p && typeof p === 'object' && 'title' in p
      ? p
      : { type: 'about:blank', code: 'HTTP_' + String(result.response.status), title: result.response.statusText || 'Request failed', status: result.response.status });
  }
  return result.data as T;
}

/**
 * Field errors of a problem keyed by field path ('name', 'stages.0.name'): huma names each
 * invalid field as 'body.name' or 'body.stages[0].name'.
 */
export function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const e of err.problem.errors ?? []) {
    if (!e.location?.startsWith('body')) continue;
    const path = e.location.replace(/^body\.?/, '').replace(/\[(\d+)\]/g, '.$1');
    if (path && !(path in out)) out[path] = e.message ?? 'invalid';
  }
  return out;
}

/** A fresh Idempotency-Key for one user action that the API lets be retried safely. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
