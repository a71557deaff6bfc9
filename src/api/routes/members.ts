// The team's members (docs/accounts.md): an owner lists them, changes a member's role and removes a
// member. The team's last owner can be neither demoted nor removed (409 LAST_OWNER); a removed
// member's tokens are revoked and sessions end, a demoted one's next request has the new role.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import type { User } from '../../domain/types.js';
import type { Role } from '../../domain/roles.js';
import { pathId } from './common.js';

const memberJson = (u: User) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at });

export function memberRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const path = '/api/v1/members';
  router.get(path, ...secure, async (ctx) => {
    ctx.body = { members: (await s.access.listMembers(ctx.state.principal)).map(memberJson) };
  });
  router.put(`${path}/:memberId`, ...secure, async (ctx) => {
    const { role } = v.body<{ role: Role }>('member-update', ctx.request.body);
    ctx.body = memberJson(await s.access.setMemberRole(ctx.state.principal, pathId(ctx, 'memberId', 'Member'), role));
  });
  router.delete(`${path}/:memberId`, ...secure, async (ctx) => {
    const r = await s.access.removeMember(ctx.state.principal, pathId(ctx, 'memberId', 'Member'));
    ctx.body = { message: 'Member removed', member: memberJson(r.user), revoked_tokens: r.revoked_tokens };
  });
}
