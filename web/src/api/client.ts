// The one API client: types come from schema.d.ts, generated from docs/openapi.json by
// `npm run gen:api`. No request or response type is written by hand.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Problem = components['schemas']['Problem'];
export type Me = components['schemas']['MeOutputBody'];

const TOKEN_KEY = 'partnerd.accessToken';
const REFRESH_KEY = 'partnerd.refreshToken';

// Spike: tokens live in sessionStorage (one tab, gone when it closes). The console issue
// decides between this and an HttpOnly cookie session; refresh on 401 comes with it.
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

const bearer: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: '' });
api.use(bearer);

/** The message a person reads for an RFC 9457 problem. */
export function problemMessage(p: Problem | undefined): string {
  if (!p) return 'The server did not answer.';
  return p.detail ?? p.title;
}
