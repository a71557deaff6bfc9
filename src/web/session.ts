// The web dashboard's sign-in: the API token lives in an HttpOnly, SameSite=Strict cookie set by
// POST /ui/session (never in a URL, never readable by scripts). Every write the cookie authorises
// must also carry the session's CSRF token in the X-CSRF-Token header (a keyed hash of the token the
// page learns from the session answer and another site cannot read), else it is refused with 403.
import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { Forbidden } from '../domain/errors.js';

export const SESSION_COOKIE = 'dommon_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF token of a session: derived from the token, so it needs no server-side state. */
export function csrfToken(token: string): string {
  return createHash('sha256').update(`dommon-csrf\0${token}`).digest('base64url');
}

/** The session cookie's token, if the request carries one (koa's cookie parser, no signing). */
export function sessionToken(ctx: Koa.Context): string | undefined {
  const v = ctx.cookies.get(SESSION_COOKIE);
  return v && v.length <= 200 ? v : undefined;
}

/** Refuses a write authorised by the cookie without the matching X-CSRF-Token header. */
export function checkCsrf(ctx: Koa.Context, token: string): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const given = Buffer.from(ctx.get(CSRF_HEADER));
  const want = Buffer.from(csrfToken(token));
  if (given.length !== want.length || !timingSafeEqual(given, want))
    throw new Forbidden('a write signed in by the session cookie needs its X-CSRF-Token header', 'CSRF_TOKEN_INVALID');
}
