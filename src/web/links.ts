// The dashboard's one-time links (docs/accounts.md#one-time-links), beside its sign-in (serve.ts):
// - POST /ui/link { token }: what the link will do (its purpose, e-mail, team, role, whether a
//   password must be chosen), without using it;
// - POST /ui/link/use { token, password?, email?, team? }: uses it and signs in (the session answer
//   of POST /ui/session, with its cookie);
// - POST /ui/password-reset { email }: "forgot password": 202 whatever the e-mail, a link mailed when
//   it has an account in a team with an e-mail channel and DOMMON_PUBLIC_URL is set (the link is never
//   made on the request's Host header, which whoever asks chooses).
// JSON only (a cross-site form cannot send it without a preflight, never granted). A link that cannot
// be used counts as a failed sign-in of the address; each forgot-password request counts against the
// address and the e-mail, so it cannot be used to flood a mailbox.
import type Koa from 'koa';
import type { Validator } from '../domain/validator.js';
import type { Services } from '../services/index.js';
import type { AuthThrottle } from '../services/auth-throttle.js';
import type { WebSession } from '../services/sessions.js';
import type { LinkUse } from '../services/links.js';
import { foldEmail } from '../domain/email.js';
import { clientKey } from '../domain/client-address.js';
import { ServiceError } from '../domain/errors.js';
import { sessionId, setSessionCookie } from './session.js';

export const LINK_PATHS = new Set(['/ui/link', '/ui/link/use', '/ui/password-reset']);

export async function linkRoutes(
  ctx: Koa.Context,
  deps: {
    services: Services;
    validator: Validator;
    authThrottle?: AuthThrottle;
    publicUrl?: string | null;
    answer: (s: WebSession) => Promise<unknown>;
    notJson: () => Error;
  },
): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  if (ctx.method !== 'POST') {
    ctx.set('Allow', 'POST');
    ctx.throw(405, 'method not allowed', { expose: true });
  }
  if (!ctx.is('application/json')) throw deps.notJson();
  const { services: s, validator: v } = deps;
  const throttle = deps.authThrottle;
  const client = clientKey(ctx.ip);
  await throttle?.check(client);
  // A link that cannot be used, or an invitation used without the account's password, is a failed
  // credential of the address.
  const counted = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ServiceError && ['LINK_INVALID', 'PASSWORD_WRONG'].includes(err.code ?? ''))
        await throttle?.fail(client);
      throw err;
    }
  };
  if (ctx.path === '/ui/link') {
    const { token } = v.body<{ token: string }>('ui-link', ctx.request.body);
    ctx.body = await counted(() => s.links.inspect(token));
    return;
  }
  if (ctx.path === '/ui/link/use') {
    const body = v.body<LinkUse & { token: string }>('ui-link-use', ctx.request.body);
    const { token, ...input } = body;
    const who = await counted(() => s.links.use(token, input));
    const session = await s.sessions.createForMember(who.user_id);
    if (!session) throw new Error('the session of a used link could not be made');
    const before = sessionId(ctx);
    if (before !== undefined) await s.sessions.end(before);
    setSessionCookie(ctx, session.id);
    ctx.status = 201;
    ctx.body = await deps.answer(session);
    return;
  }
  // /ui/password-reset
  const { email } = v.body<{ email: string }>('ui-password-reset', ctx.request.body);
  const account = `reset:${foldEmail(email)}`;
  await throttle?.check(account);
  const results = await Promise.allSettled([throttle?.fail(client), throttle?.fail(account)]);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  if (deps.publicUrl) await s.links.forgot(email, deps.publicUrl);
  ctx.status = 202;
  ctx.body = {
    message:
      'If this e-mail has an account in a team with an e-mail channel, a link to set a new password is on its way.',
  };
}
