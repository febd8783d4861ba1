import { redirect } from 'react-router';
import { session } from '../api/client';

/** Sends a visitor without a token to the login page, remembering where they were going. */
export function requireSession({ request }: { request: Request }) {
  if (session.token()) return null;
  const from = new URL(request.url).pathname;
  return redirect(from === '/' ? '/login' : `/login?next=${encodeURIComponent(from)}`);
}
