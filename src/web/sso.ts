// Single sign-on's two browser stops (docs/sso.md). GET /ui/oidc/start sends the browser to the
// provider, keeping the sign-in's state, nonce and PKCE verifier in a short-lived HttpOnly cookie
// (SameSite=Lax: the provider's redirect back is a cross-site navigation; __Host- over TLS). GET
// /ui/oidc/callback checks the provider's answer against it, maps the person's claims to teams and
// roles (DOMMON_OIDC_TEAMS) and makes the same server-side session a password sign-in makes, then
// goes to the dashboard. What goes wrong is a plain page saying so, never a 500.
import type Koa from 'koa';
import { mapIdentity, SsoFailed, type SsoPending, type SsoProvider, type SsoRule } from '../domain/sso.js';
import { clientKey } from '../domain/client-address.js';
import { escapeHtml } from '../domain/html.js';
import type { Services } from '../services/index.js';
import type { AuthThrottle } from '../services/auth-throttle.js';
import { sessionId, setSessionCookie } from './session.js';
import { STATUS_PAGE_CSS_PATH } from './status-page.js';

export interface SsoDeps {
  provider: SsoProvider;
  teams: readonly SsoRule[];
}

export const SSO_START_PATH = '/ui/oidc/start';
const SSO_CALLBACK_PATH = '/ui/oidc/callback';

const PENDING_COOKIE = 'dommon_oidc';
/** How long a person has at the provider before the sign-in must start again. */
const PENDING_MS = 10 * 60_000;

const pendingName = (ctx: Koa.Context) => (ctx.secure ? `__Host-${PENDING_COOKIE}` : PENDING_COOKIE);

function setPending(ctx: Koa.Context, value: string | null): void {
  ctx.cookies.set(pendingName(ctx), value ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: value === null ? 0 : PENDING_MS,
    overwrite: true,
  });
}

function readPending(ctx: Koa.Context): SsoPending | null {
  const raw = ctx.cookies.get(pendingName(ctx));
  if (!raw || raw.length > 1000) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok = (s: unknown): s is string => typeof s === 'string' && s.length > 0 && s.length <= 200;
    return ok(v.state) && ok(v.nonce) && ok(v.verifier)
      ? { state: v.state, nonce: v.nonce, verifier: v.verifier }
      : null;
  } catch {
    return null;
  }
}

const esc = escapeHtml;

/** A plain page (no script, the status pages' stylesheet) saying why the sign-in did not happen. */
function page(ctx: Koa.Context, status: number, title: string, lines: string[], retry: boolean): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · dommon</title><link rel="stylesheet" href="${STATUS_PAGE_CSS_PATH}"></head>
<body><main><h1>${esc(title)}</h1>
${lines.map((l) => `<p>${esc(l)}</p>`).join('\n')}
<p>${retry ? `<a href="${SSO_START_PATH}">Try again</a> · ` : ''}<a href="/">Back to the sign-in page</a></p>
</main></body></html>
`;
}

/** Answers GET /ui/oidc/start and /ui/oidc/callback; false for any other path. */
export async function ssoRoute(
  ctx: Koa.Context,
  deps: { sso?: SsoDeps; services: Services; authThrottle?: AuthThrottle },
): Promise<boolean> {
  const p = ctx.path;
  if (p !== SSO_START_PATH && p !== SSO_CALLBACK_PATH) return false;
  ctx.set('Cache-Control', 'no-store');
  const sso = deps.sso;
  if (!sso) {
    page(ctx, 404, 'Single sign-on is not set up', ['This dommon has no OpenID Connect provider configured.'], false);
    return true;
  }
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET');
    ctx.throw(405, 'method not allowed', { expose: true });
  }
  const name = sso.provider.name;
  const failed = (reason: string) => page(ctx, 400, `Sign-in with ${name} did not complete`, [reason], true);

  if (p === SSO_START_PATH) {
    let begun: Awaited<ReturnType<SsoProvider['begin']>>;
    try {
      begun = await sso.provider.begin();
    } catch (err) {
      page(ctx, 502, `${name} cannot be reached`, [(err as Error).message], true);
      return true;
    }
    setPending(ctx, Buffer.from(JSON.stringify(begun.pending)).toString('base64url'));
    ctx.redirect(begun.url);
    return true;
  }

  // The callback: a bad answer counts as a failed sign-in of the client's address.
  const client = clientKey(ctx.ip);
  const throttle = deps.authThrottle;
  await throttle?.check(client);
  const pending = readPending(ctx);
  setPending(ctx, null);
  if (!pending) {
    await throttle?.fail(client);
    failed('This browser did not start this sign-in, or started it more than ten minutes ago.');
    return true;
  }
  let who;
  try {
    who = await sso.provider.finish(ctx.querystring, pending);
  } catch (err) {
    await throttle?.fail(client);
    failed(err instanceof SsoFailed ? err.message : 'the provider’s answer could not be checked');
    return true;
  }
  const grants = mapIdentity(sso.teams, who);
  // The e-mail is the account's key: one the provider has not verified signs nobody in, whatever the rules.
  const signedIn = who.email && who.emailVerified ? await deps.services.access.signInSso(who.email, grants) : null;
  if (!signedIn) {
    page(
      ctx,
      403,
      'No access to this dommon',
      [
        who.email
          ? who.emailVerified
            ? `${name} signed you in as ${who.email}, but that account is not given access to any team here${grants.length ? ' (or it is disabled)' : ''}.`
            : `${name} signed you in as ${who.email}, an address it has not verified; dommon signs in verified addresses only.`
          : `${name} signed you in but gave no e-mail address, which dommon needs.`,
        'Ask an owner of this dommon to add your e-mail domain or one of your groups to its single sign-on settings (DOMMON_OIDC_TEAMS).',
      ],
      false,
    );
    return true;
  }
  const s = await deps.services.sessions.createForMember(signedIn.user_id);
  if (!s) {
    failed('the session could not be made; try again');
    return true;
  }
  // A session the browser held before (another sign-in) ends here, as a password sign-in's does.
  const before = sessionId(ctx);
  if (before !== undefined) await deps.services.sessions.end(before);
  setSessionCookie(ctx, s.id);
  ctx.redirect('/');
  return true;
}
