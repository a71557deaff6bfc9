// Invitations and an owner's password-reset links (docs/accounts.md#invitations): one-time links an
// owner makes for an e-mail (with a role) or for a member; the link is in the answer, to copy, and is
// mailed too when the team has an e-mail channel. Links point at DOMMON_PUBLIC_URL, else at the
// address the owner's request was sent to.
import type { ApiDeps, ApiRouter } from '../context.js';
import type Koa from 'koa';
import type { OneTimeLink } from '../../domain/types.js';
import type { Role } from '../../domain/roles.js';
import { linkUrl } from '../../domain/one-time-link.js';
import { created, pathId } from './common.js';

const invitationJson = (l: OneTimeLink) => ({
  id: l.id,
  email: l.email!,
  role: l.role!,
  created_at: new Date(l.created_at).toISOString(),
  expires_at: new Date(l.expires_at).toISOString(),
});

export function invitationRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const base = (ctx: { protocol: string; host: string }) => deps.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  const issuedJson = (l: Awaited<ReturnType<typeof s.links.invite>>, ctx: { protocol: string; host: string }) => ({
    email: l.email!,
    team: l.team!,
    url: linkUrl(base(ctx), l.token),
    created_at: l.created_at,
    expires_at: l.expires_at,
    email_sent: l.email_sent,
    email_error: l.email_error,
  });
  router.get('/api/v1/invitations', ...secure, async (ctx) => {
    ctx.body = { invitations: (await s.links.invitations(ctx.state.principal)).map(invitationJson) };
  });
  router.post('/api/v1/invitations', ...secure, async (ctx) => {
    const body = v.body<{ email: string; role: Role }>('invitation-create', ctx.request.body);
    const l = await s.links.invite(ctx.state.principal, body, base(ctx));
    created(ctx, { id: l.id, role: l.role!, ...issuedJson(l, ctx) });
  });
  router.delete('/api/v1/invitations/:invitationId', ...secure, async (ctx) => {
    const l = await s.links.revokeInvitation(ctx.state.principal, pathId(ctx, 'invitationId', 'Invitation'));
    ctx.body = { message: 'Invitation withdrawn', invitation: invitationJson(l) };
  });
  router.post('/api/v1/password-resets', ...secure, async (ctx) => {
    const { email } = v.body<{ email: string }>('password-reset-create', ctx.request.body);
    const l = await s.links.resetLink(ctx.state.principal, email, base(ctx));
    created(ctx, issuedJson(l, ctx));
  });
}
