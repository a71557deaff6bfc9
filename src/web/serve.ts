// Serves the web dashboard (docs/web.md) on the API's port: GET / is the page, /ui/assets/<file> its
// hashed files from dist/web/ (built by scripts/web.mjs in `npm run build`), and /ui/session signs in
// and out (src/web/session.ts). Only these paths are answered here; every other request goes on to
// the API router untouched. Each answer carries a strict Content-Security-Policy and security headers.
// Files go out as the build precompressed them (brotli or gzip, by the request's Accept-Encoding).
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { PACKAGE_ROOT } from '../package.js';
import { NotFound, ServiceError, Unauthorized } from '../domain/errors.js';
import type { Validator } from '../domain/validator.js';
import type { Services } from '../services/index.js';
import type { AuthThrottle } from '../services/auth-throttle.js';
import { checkCsrf, clearSessionCookie, sessionId, setSessionCookie } from './session.js';
import { requestActor, type WebSession } from '../services/sessions.js';
import { clientKey } from '../domain/client-address.js';
import { foldEmail } from '../domain/email.js';
import type { LiveHub } from './live.js';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { formSchemasBody } from './form-schemas.js';
import { LINK_PATHS, linkRoutes } from './links.js';
import { SSO_START_PATH, ssoRoute, type SsoDeps } from './sso.js';

class NotJson extends ServiceError {
  constructor() {
    super('unsupported', 'send the request as JSON (Content-Type: application/json)', 'UNSUPPORTED_MEDIA_TYPE');
  }
}

/** The built dashboard: index.html and assets/ (see scripts/web.mjs). */
const WEB_DIR = path.join(PACKAGE_ROOT, 'dist', 'web');

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  /** The build's precompressed copies (<file>.br, <file>.gz), where they came out smaller. */
  encoded: { br?: Buffer; gzip?: Buffer };
}

/** The dashboard's security headers; /docs (Swagger UI, same origin) sends them too, with its own CSP. */
export function securityHeaders(ctx: Koa.Context, csp = CONTENT_SECURITY_POLICY): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}

/** The files of dist/web/ read once, at the first request (none when the dashboard was not built). */
function loadBuild(dir: string): { index?: Asset; assets: Map<string, Asset> } {
  const assets = new Map<string, Asset>();
  const read = (file: string, type: string): Asset => {
    const body = fs.readFileSync(file);
    const copy = (ext: string) => (fs.existsSync(`${file}.${ext}`) ? fs.readFileSync(`${file}.${ext}`) : undefined);
    return {
      body,
      type,
      etag: createHash('sha256').update(body).digest('base64url').slice(0, 27),
      encoded: { br: copy('br'), gzip: copy('gz') },
    };
  };
  const assetDir = path.join(dir, 'assets');
  if (fs.existsSync(assetDir))
    for (const name of fs.readdirSync(assetDir)) {
      if (name.endsWith('.gz') || name.endsWith('.br')) continue;
      const type = TYPES[path.extname(name)];
      if (type) assets.set(name, read(path.join(assetDir, name), type));
    }
  const indexFile = path.join(dir, 'index.html');
  const index = fs.existsSync(indexFile) ? read(indexFile, 'text/html; charset=utf-8') : undefined;
  return { index, assets };
}

function send(ctx: Koa.Context, a: Asset, cache: string): void {
  ctx.set('Cache-Control', cache);
  ctx.vary('Accept-Encoding');
  // Brotli (the smaller) when the client accepts it, else gzip, else the file as it is. Each is
  // asked on its own: negotiation over all three would prefer whichever the header names first.
  const encoding = (['br', 'gzip'] as const).find((e) => a.encoded[e] && ctx.acceptsEncodings(e) === e);
  // Each representation has its own validator, so a cache never answers one encoding's If-None-Match
  // with another's bytes.
  ctx.etag = `"${a.etag}${encoding ? `-${encoding}` : ''}"`;
  ctx.type = a.type;
  ctx.status = 200; // ctx.fresh looks at a 2xx status only
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (encoding) ctx.set('Content-Encoding', encoding);
  ctx.body = encoding ? a.encoded[encoding] : a.body;
}

export function webMiddleware(
  deps: {
    services: Services;
    validator: Validator;
    authThrottle?: AuthThrottle;
    live?: LiveHub;
    /** DOMMON_PUBLIC_URL: where links mailed to people point (docs/accounts.md#one-time-links). */
    publicUrl?: string | null;
    /** Single sign-on (docs/sso.md); absent: off. */
    sso?: SsoDeps;
  },
  dir = WEB_DIR,
): Koa.Middleware {
  let build: ReturnType<typeof loadBuild> | undefined;
  const files = () => (build ??= loadBuild(dir));
  let schemas: Asset | undefined;
  const formSchemas = (): Asset => {
    if (schemas) return schemas;
    const { body, br, gzip } = formSchemasBody(deps.validator.schemas);
    const etag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    return (schemas = { body, type: 'application/json; charset=utf-8', etag, encoded: { br, gzip } });
  };
  const answer = async (s: WebSession) => ({
    signed_in: true,
    team: s.principal.team_name,
    user: s.principal.user_email,
    token_name: s.principal.token_name,
    // The dashboard hides every write control for a read-only token (the API refuses them anyway).
    read_only: s.principal.read_only,
    // Which controls the dashboard shows (docs/accounts.md); the API enforces the same.
    role: s.principal.role,
    csrf_token: s.csrf,
    // A password sign-in: the account's teams, which the header menu switches between.
    ...(s.principal.account_id !== undefined && {
      account: true,
      teams: (await deps.services.accounts.memberships(s.principal.account_id)).map((m) => m.team_name),
    }),
  });
  const throttle = deps.authThrottle;
  // Signed out: what the sign-in page offers besides its form.
  const signedOut = deps.sso
    ? { signed_in: false, sso: { name: deps.sso.provider.name, url: SSO_START_PATH } }
    : { signed_in: false };
  /** The session routes that change something: POST with a JSON body only, never cached. */
  const postJsonOnly = (ctx: Koa.Context): void => {
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      ctx.throw(405, 'method not allowed', { expose: true });
    }
    // A cross-site form cannot send JSON without a CORS preflight, which is never granted.
    if (!ctx.is('application/json')) throw new NotJson();
  };
  /**
   * The request's live session and its cookie's id; else 401 (an ended session's cookie is dropped and
   * the failure counted against the address, like every bad credential).
   */
  const liveSession = async (ctx: Koa.Context): Promise<{ sid: string; s: WebSession }> => {
    const sid = sessionId(ctx);
    if (sid === undefined) throw new Unauthorized();
    await throttle?.check(clientKey(ctx.ip));
    const s = await deps.services.sessions.resolve(sid);
    if (!s) {
      clearSessionCookie(ctx);
      await throttle?.fail(clientKey(ctx.ip));
      throw new Unauthorized();
    }
    return { sid, s };
  };
  return async (ctx, next) => {
    const p = ctx.path;
    if (p !== '/' && !p.startsWith('/ui/')) {
      await next();
      return;
    }
    securityHeaders(ctx);
    const read = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (p === '/' && read) {
      const index = files().index;
      if (!index) {
        ctx.status = 503;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'The web dashboard is not built: run `npm run build` in the dommon package.\n';
        return;
      }
      return send(ctx, index, 'no-cache');
    }
    if (p.startsWith('/ui/assets/') && read) {
      const a = files().assets.get(p.slice('/ui/assets/'.length));
      if (!a) throw new NotFound(`File ${p}`);
      // Hashed names: a new build has new names, so a cached file never goes stale.
      return send(ctx, a, 'public, max-age=31536000, immutable');
    }
    if (p === '/ui/live' && deps.live) {
      // The live feed (web/live.ts): the session's cookie only; a read, so no CSRF token.
      if (ctx.method !== 'GET') {
        ctx.set('Allow', 'GET');
        ctx.throw(405, 'method not allowed', { expose: true });
      }
      const { sid, s } = await liveSession(ctx);
      deps.live.attach(ctx, sid, s);
      return;
    }
    if (p === '/ui/schemas' && read) {
      // Public like /openapi.json: the schemas of the API's requests, nothing of any team's.
      return send(ctx, formSchemas(), 'no-cache');
    }
    if (await ssoRoute(ctx, deps)) return;
    if (p === '/ui/session') {
      ctx.set('Cache-Control', 'no-store');
      const sessions = deps.services.sessions;
      if (ctx.method === 'GET') {
        // Signed out is an answer here, not an error: the page asks this first on every load.
        const sid = sessionId(ctx);
        if (sid === undefined) {
          ctx.body = signedOut;
          return;
        }
        await throttle?.check(clientKey(ctx.ip));
        const s = await sessions.resolve(sid);
        if (!s) {
          clearSessionCookie(ctx);
          await throttle?.fail(clientKey(ctx.ip));
        }
        ctx.body = s ? await answer(s) : signedOut;
        return;
      }
      if (ctx.method === 'POST') {
        // JSON only: a cross-site form cannot send it without a CORS preflight, which is never granted.
        if (!ctx.is('application/json')) throw new NotJson();
        const body = deps.validator.body<{ token: string } | { email: string; password: string; team?: string }>(
          'ui-session',
          ctx.request.body,
        );
        const client = clientKey(ctx.ip);
        await throttle?.check(client);
        let s: Awaited<ReturnType<typeof sessions.create>>;
        if ('token' in body) {
          s = await sessions.create(body.token);
          if (!s) {
            await throttle?.fail(client);
            throw new Unauthorized();
          }
        } else {
          // Guesses are counted per address and per account (its e-mail, known or not, so the answer tells nothing).
          const account = `account:${foldEmail(body.email)}`;
          await throttle?.check(account);
          const who = await deps.services.accounts.signIn(body.email, body.password, body.team);
          s = who && (await sessions.createForMember(who.membership.user_id));
          if (!s) {
            const counted = await Promise.allSettled([throttle?.fail(client), throttle?.fail(account)]);
            for (const c of counted) if (c.status === 'rejected') throw c.reason;
            throw new Unauthorized('Wrong e-mail or password');
          }
        }
        // A session the browser held before (another sign-in) ends here, not when it expires.
        const before = sessionId(ctx);
        if (before !== undefined) await sessions.end(before);
        setSessionCookie(ctx, s.id);
        ctx.status = 201;
        ctx.body = await answer(s);
        return;
      }
      if (ctx.method === 'DELETE') {
        const sid = sessionId(ctx);
        if (sid !== undefined) {
          const s = await sessions.resolve(sid);
          // Signing out of a live session needs its CSRF token (another site cannot sign anyone out).
          if (s) checkCsrf(ctx, s.csrf);
          await sessions.end(sid);
        }
        clearSessionCookie(ctx);
        ctx.status = 204;
        return;
      }
      ctx.set('Allow', 'GET, POST, DELETE');
      ctx.throw(405, 'method not allowed', { expose: true });
    }
    if (LINK_PATHS.has(p)) return linkRoutes(ctx, { ...deps, answer, notJson: () => new NotJson() });
    if (p === '/ui/session/passkey/options' || p === '/ui/session/passkey') {
      // Passkey sign-in (docs/accounts.md#passkeys): options with a one-time challenge, then the
      // browser's answer, which makes the same session a password sign-in makes.
      postJsonOnly(ctx);
      const client = clientKey(ctx.ip);
      await throttle?.check(client);
      if (p === '/ui/session/passkey/options') {
        deps.validator.body('passkey-options', ctx.request.body);
        ctx.body = await deps.services.passkeys.signInOptions(`${ctx.protocol}://${ctx.host}`);
        return;
      }
      const body = deps.validator.body<{ response: AuthenticationResponseJSON; team?: string }>(
        'ui-session-passkey',
        ctx.request.body,
      );
      const who = await deps.services.passkeys.signIn(`${ctx.protocol}://${ctx.host}`, body.response, body.team);
      const s = who && (await deps.services.sessions.createForMember(who.membership.user_id));
      if (!s) {
        await throttle?.fail(client);
        throw new Unauthorized('This passkey did not sign in');
      }
      const before = sessionId(ctx);
      if (before !== undefined) await deps.services.sessions.end(before);
      setSessionCookie(ctx, s.id);
      ctx.status = 201;
      ctx.body = await answer(s);
      return;
    }
    if (p === '/ui/session/password') {
      // A person changes their own password (docs/accounts.md#changing-your-password): the session's
      // cookie and CSRF token, and the current password, which is a credential guess like a sign-in's:
      // counted per address and per account, on the same budget as POST /ui/session.
      postJsonOnly(ctx);
      const { sid, s } = await liveSession(ctx);
      const client = clientKey(ctx.ip);
      checkCsrf(ctx, s.csrf);
      const body = deps.validator.body<{ current_password: string; new_password: string }>(
        'ui-session-password',
        ctx.request.body,
      );
      const account = `account:${foldEmail(s.principal.user_email)}`;
      await throttle?.check(account);
      const requestId = randomUUID();
      ctx.set('X-Request-Id', requestId);
      try {
        const r = await deps.services.audit.run(requestActor(s.principal, sid, requestId), () =>
          deps.services.accounts.changePassword(s.principal, body.current_password, body.new_password, sid),
        );
        ctx.body = { message: 'Password changed', ended_sessions: r.ended_sessions };
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'PASSWORD_WRONG') {
          const counted = await Promise.allSettled([throttle?.fail(client), throttle?.fail(account)]);
          for (const c of counted) if (c.status === 'rejected') throw c.reason;
        }
        throw err;
      }
      return;
    }
    if (p === '/ui/session/team') {
      // A password sign-in's session moves to another of the account's teams (the header menu).
      postJsonOnly(ctx);
      const { sid, s } = await liveSession(ctx);
      checkCsrf(ctx, s.csrf);
      const { team } = deps.validator.body<{ team: string }>('ui-session-team', ctx.request.body);
      // Another team's name, or a token's session, is no team this session may act in.
      const moved = await deps.services.sessions.switchTeam(sid, team);
      if (!moved) throw new NotFound(`Team "${team}"`);
      ctx.body = await answer(moved);
      return;
    }
    await next();
  };
}
