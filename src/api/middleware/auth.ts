// The spec's three ways to pass a token: Bearer header, `api_key` query parameter, `api_key` JSON body field;
// and the web dashboard's session cookie (src/web/session.ts), whose writes need the CSRF header. Every
// bad credential counts as a failure of the client's address (services/auth-throttle.ts), and an
// address past the limit is answered 429 before its credential is even looked at.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { checkCsrf, clearSessionCookie, sessionId } from '../../web/session.js';
import { Forbidden, Unauthorized } from '../../domain/errors.js';
import type { AccessService } from '../../services/access.js';
import { requestActor, type SessionService } from '../../services/sessions.js';
import { clientKey } from '../../domain/client-address.js';
import type { AuthThrottle } from '../../services/auth-throttle.js';
import type { AuditService } from '../../services/audit.js';
import type { ApiState } from '../context.js';

/** The address failures are counted under: the peer's, or with --trust-proxy the proxy's X-Forwarded-For. */
export const clientOf = (ctx: Koa.Context): string => clientKey(ctx.ip);

function tokenFrom(ctx: Koa.Context): string | undefined {
  const header = ctx.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m?.[1];
  }
  const q = ctx.query.api_key;
  if (typeof q === 'string' && q) return q;
  const body = (ctx.request as { body?: unknown }).body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = (body as Record<string, unknown>).api_key;
    if (typeof b === 'string' && b) return b;
  }
  return undefined;
}

/** Removes the credential from query and body so validation never sees it as an unknown field. */
function stripCredential(ctx: Koa.Context): void {
  const body = (ctx.request as { body?: unknown }).body;
  if (body && typeof body === 'object' && !Array.isArray(body)) delete (body as Record<string, unknown>).api_key;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writes by method that only check the credential (they change nothing), so a read-only token may send them. */
const CREDENTIAL_CHECKS = new Set(['/api/v1/auth']);

/** A read-only token (docs/security.md) may read; every write it sends is refused before its handler runs. */
function refuseReadOnlyWrite(ctx: Koa.Context, readOnly: boolean): void {
  if (readOnly && !READS.has(ctx.method) && !CREDENTIAL_CHECKS.has(ctx.path))
    throw new Forbidden('this API token is read-only: it cannot change anything', 'READ_ONLY_TOKEN');
}

export function authMiddleware(
  access: AccessService,
  sessions: SessionService,
  throttle: AuthThrottle,
  audit: AuditService,
): Koa.Middleware<ApiState> {
  return async (ctx, next) => {
    const token = tokenFrom(ctx);
    const header = ctx.get('authorization');
    // The cookie only when no other credential was given (a malformed Authorization header stays a 401).
    const sid = token === undefined && !header ? sessionId(ctx) : undefined;
    // No credential at all is no guess: a plain 401, not counted.
    if (token === undefined && sid === undefined && !header) throw new Unauthorized();
    const client = clientOf(ctx);
    await throttle.check(client);
    const session = sid !== undefined ? await sessions.resolve(sid) : undefined;
    const principal = session ? session.principal : sid === undefined ? await access.authenticate(token) : null;
    if (!principal) {
      // An ended session's cookie is dropped, so the browser stops sending it.
      if (sid !== undefined) clearSessionCookie(ctx);
      await throttle.fail(client);
      throw new Unauthorized();
    }
    if (session) checkCsrf(ctx, session.csrf);
    refuseReadOnlyWrite(ctx, principal.read_only);
    ctx.state.principal = principal;
    if (session) ctx.state.viaSession = true;
    stripCredential(ctx);
    const requestId = randomUUID();
    ctx.set('X-Request-Id', requestId);
    await audit.run(requestActor(principal, session ? sid : undefined, requestId), next);
  };
}
