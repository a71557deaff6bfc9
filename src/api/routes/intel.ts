// Domain intelligence routes: security checks, registration data, ownership verification,
// exposure toggle and renewals. Each is served on the Public API and on the User API path.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter, ApiState } from '../context.js';
import { listBody } from '../shape.js';
import type { RenewalQuery } from '../../services/renewals.js';
import { page, pathId, team } from './common.js';

export function intelRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  for (const base of ['/api/v1/domains', '/api-domains']) {
    const id = (ctx: Koa.ParameterizedContext<ApiState>) => pathId(ctx, 'domainId', 'Domain');
    router.get(`${base}/:domainId/security`, ...secure, async (ctx) => {
      ctx.body = await s.intel.security.get(team(ctx), id(ctx));
    });
    router.post(`${base}/:domainId/security`, ...secure, async (ctx) => {
      const d = await s.domains.get(team(ctx), id(ctx));
      await s.intel.refreshSecurity(d, { fresh: true });
      ctx.body = await s.intel.security.get(team(ctx), d.id);
    });
    router.get(`${base}/:domainId/registration`, ...secure, async (ctx) => {
      ctx.body = await s.intel.registration.get(team(ctx), id(ctx));
    });
    router.post(`${base}/:domainId/registration`, ...secure, async (ctx) => {
      const d = await s.domains.get(team(ctx), id(ctx));
      await s.intel.refreshRegistration(d, { fresh: true });
      ctx.body = await s.intel.registration.get(team(ctx), d.id);
    });
    router.get(`${base}/:domainId/verification`, ...secure, async (ctx) => {
      ctx.body = await s.verification.get(team(ctx), id(ctx));
    });
    router.post(`${base}/:domainId/verification`, ...secure, async (ctx) => {
      ctx.body = await s.verification.checkNow(team(ctx), id(ctx));
    });
    router.put(`${base}/:domainId/exposure`, ...secure, async (ctx) => {
      const domainId = id(ctx);
      const body = v.body<{ enabled: boolean }>('exposure-toggle', ctx.request.body ?? {});
      ctx.body = await s.verification.setExposure(team(ctx), domainId, body.enabled);
    });
  }
  for (const path of ['/api/v1/renewals', '/api-renewals']) {
    router.get(path, ...secure, async (ctx) => {
      const q = v.query<RenewalQuery & { limit?: number; offset?: number }>('renewals', ctx.query);
      const pg = page(q);
      const r = await s.renewals.list(
        team(ctx),
        { type: q.type ?? 'domains', from: q.from, to: q.to, status: q.status },
        pg,
      );
      ctx.body = listBody('renewals', { items: r.items, total: r.total, ...pg }, (x) => x, {
        type: q.type ?? 'domains',
      });
    });
  }
}
