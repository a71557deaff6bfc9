import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { domainJson, endpointJson } from '../views.js';
import { bulkBody, deleteBody, listBody } from '../shape.js';
import type { DomainInput } from '../../services/domains.js';
import { readCache } from '../middleware/read-cache.js';
import { created, page, pathId, team } from './common.js';

export function domainRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  // The same handlers answer the Public API and the User API path.
  for (const base of ['/api/v1/domains', '/api-domains']) {
    router.get(base, ...secure, readCache(deps.stamp, 'domains'), async (ctx) => {
      const q = v.query<{ limit?: number; offset?: number; domain?: string; portfolio_id?: string }>(
        'domain-list',
        ctx.query,
      );
      const r = await s.domains.list(team(ctx), { domain: q.domain, portfolio_id: q.portfolio_id }, page(q));
      const managed = await s.managed.of(
        'domain',
        r.items.map((d) => d.id),
      );
      ctx.body = listBody('domains', r, (d) => ({ ...domainJson(d), ...managed(d.id) }));
    });
    router.post(base, ...secure, async (ctx) => {
      const body = v.body<DomainInput>('domain-create', ctx.request.body);
      const d = await s.domains.create(team(ctx), body);
      created(ctx, { ...domainJson(d), ...(await s.managed.of('domain', [d.id]))(d.id) });
    });
    router.post(`${base}/bulk`, ...secure, async (ctx) => {
      const body = v.body<{ domains: unknown[] }>('domain-bulk', ctx.request.body);
      const r = await s.domains.bulkCreate(team(ctx), body.domains, (i) => v.body<DomainInput>('domain-create', i));
      const managed = await s.managed.of(
        'domain',
        r.created.map((d) => d.id),
      );
      created(
        ctx,
        bulkBody(
          'domains',
          r,
          (d) => ({ ...domainJson(d), ...managed(d.id) }),
          (d) => ({ id: d.id, domain: d.domain }),
        ),
      );
    });
    router.get(`${base}/:domainId`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'domainId', 'Domain');
      const q = v.query<{ include_endpoints?: boolean }>('domain-detail', ctx.query);
      const d = await s.domains.get(team(ctx), id);
      // The stored grade (what lists, /metrics and events show) with its reasons, read from the inputs as
      // they are now: the points add up to the score once the recompute that follows each input has run.
      const one = {
        ...domainJson(d),
        ...(await s.managed.of('domain', [d.id]))(d.id),
        health_reasons: (await s.health.explain(d)).reasons,
        delegation: await s.intel.nameservers.view(d.id),
      };
      if (!q.include_endpoints) {
        ctx.body = one;
        return;
      }
      const eps = await s.endpoints.forDomain(team(ctx), id);
      const managed = await s.managed.of(
        'endpoint',
        eps.map((e) => e.id),
      );
      ctx.body = { ...one, endpoints: eps.map((e) => ({ ...endpointJson(e), ...managed(e.id) })) };
    });
    router.put(`${base}/:domainId`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'domainId', 'Domain');
      const body = v.body<Partial<DomainInput>>('domain-update', ctx.request.body);
      ctx.body = {
        ...domainJson(await s.domains.update(team(ctx), id, body)),
        ...(await s.managed.of('domain', [id]))(id),
      };
    });
    router.delete(`${base}/:domainId`, ...secure, async (ctx) => {
      const d = await s.domains.remove(team(ctx), pathId(ctx, 'domainId', 'Domain'));
      ctx.body = deleteBody('domain', 'Domain', { id: d.id, domain: d.domain });
    });
  }
}
