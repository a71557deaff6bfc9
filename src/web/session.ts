// The web dashboard's sign-in cookie (docs/web.md). POST /ui/session trades an API token for a
// server-side session (services/sessions.ts); the cookie holds only the session's random id
// (HttpOnly, SameSite=Strict, Path=/; over TLS also Secure and the __Host- prefix, which a sibling
// host cannot set or overwrite). Every write the cookie authorises must also carry the session's CSRF
// token in the X-CSRF-Token header (an HMAC of the session id under a server key, which the page
// learns from the session answer and another site cannot read), else it is refused with 403.
import { timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { Forbidden } from '../domain/errors.js';

/** The cookie's name over plain HTTP; over TLS (directly or behind a trusted proxy) it is SECURE_SESSION_COOKIE. */
const SESSION_COOKIE = 'dommon_session';
const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookie name this request uses: the __Host- one when it came over TLS (ctx.secure honours --trust-proxy). */
const cookieName = (ctx: Koa.Context): string => (ctx.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/**
 * The session id the request's cookie carries, if any. Over TLS only the __Host- cookie counts, so a
 * cookie planted for the parent domain by a sibling host is never read.
 */
export function sessionId(ctx: Koa.Context): string | undefined {
  const v = ctx.cookies.get(cookieName(ctx));
  return v && v.length <= 200 ? v : undefined;
}

/** Sets the session cookie (a session cookie for the browser: the server ends it). */
export function setSessionCookie(ctx: Koa.Context, id: string): void {
  ctx.cookies.set(cookieName(ctx), id, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
  });
}

/** Tells the browser to drop the session cookie. */
export function clearSessionCookie(ctx: Koa.Context): void {
  ctx.cookies.set(cookieName(ctx), '', {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/',
    maxAge: 0,
    overwrite: true,
  });
}

/** Refuses a write authorised by the cookie without the session's X-CSRF-Token header. */
export function checkCsrf(ctx: Koa.Context, csrf: string): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const given = Buffer.from(ctx.get(CSRF_HEADER));
  const want = Buffer.from(csrf);
  if (given.length !== want.length || !timingSafeEqual(given, want))
    throw new Forbidden('a write signed in by the session cookie needs its X-CSRF-Token header', 'CSRF_TOKEN_INVALID');
}
