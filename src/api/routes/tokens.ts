// API tokens in account settings (docs/accounts.md): a person's own tokens (/api/v1/account/tokens:
// list, create scoped to no more than their role, revoke), and an owner's view of every token of the
// team (/api/v1/tokens). The secret is answered once, at creation; lists show its first characters.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import type { ApiToken } from '../../domain/types.js';
import type { OwnTokenInput } from '../../services/access.js';
import { created, pathId } from './common.js';

const tokenJson = (t: ApiToken & { user: string }) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  user_id: t.user_id,
  user: t.user,
  read_only: t.read_only,
  role: t.role,
  expires_at: t.expires_at,
  created_at: t.created_at,
  last_used_at: t.last_used_at,
  revoked_at: t.revoked_at,
});

export function accountTokenRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const own = '/api/v1/account/tokens';
  router.get(own, ...secure, async (ctx) => {
    ctx.body = { tokens: (await s.access.ownTokens(ctx.state.principal)).map(tokenJson) };
  });
  router.post(own, ...secure, async (ctx) => {
    const body = v.body<OwnTokenInput>('token-create', ctx.request.body);
    const t = await s.access.createOwnToken(ctx.state.principal, body);
    created(ctx, { ...tokenJson(t), token: t.token });
  });
  router.delete(`${own}/:tokenId`, ...secure, async (ctx) => {
    const t = await s.access.revokeTeamToken(ctx.state.principal, pathId(ctx, 'tokenId', 'Token'), true);
    ctx.body = { message: 'Token revoked', revoked_token: tokenJson(t) };
  });
  const team = '/api/v1/tokens';
  router.get(team, ...secure, async (ctx) => {
    ctx.body = { tokens: (await s.access.teamTokens(ctx.state.principal)).map(tokenJson) };
  });
  router.delete(`${team}/:tokenId`, ...secure, async (ctx) => {
    const t = await s.access.revokeTeamToken(ctx.state.principal, pathId(ctx, 'tokenId', 'Token'), false);
    ctx.body = { message: 'Token revoked', revoked_token: tokenJson(t) };
  });
}
