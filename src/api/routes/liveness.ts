import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { livenessJson, endpointJson } from '../views.js';
import { bulkBody, deleteBody, listBody } from '../shape.js';
import type { LivenessInput } from '../../services/liveness.js';
import { readCache } from '../middleware/read-cache.js';
import { explainCheckError } from '../../domain/check-error.js';
import { created, page, pathId, team } from './common.js';

export function livenessRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  // The same handlers answer the Public API and the User API path.
  for (const base of ['/api/v1/liveness', '/api-liveness']) {
    router.get(base, ...secure, readCache(deps.stamp, 'liveness'), async (ctx) => {
      const q = v.query<{
        limit?: number;
        offset?: number;
        endpoint_id?: string;
        domain_id?: string;
        is_enabled?: boolean;
      }>('liveness-list', ctx.query);
      const f = { endpoint_id: q.endpoint_id, domain_id: q.domain_id, is_enabled: q.is_enabled };
      const r = await s.liveness.list(team(ctx), f, page(q));
      const managed = await s.managed.of(
        'liveness',
        r.items.map((c) => c.id),
      );
      ctx.body = listBody('configs', r, (c) => ({ ...livenessJson(c), ...managed(c.id) }));
    });
    router.post(base, ...secure, async (ctx) => {
      const body = v.body<LivenessInput>('liveness-create', ctx.request.body);
      const c = await s.liveness.create(team(ctx), body);
      created(ctx, { ...livenessJson(c), ...(await s.managed.of('liveness', [c.id]))(c.id) });
    });
    router.post(`${base}/bulk`, ...secure, async (ctx) => {
      const body = v.body<{ liveness: unknown[] }>('liveness-bulk', ctx.request.body);
      const r = await s.liveness.bulkCreate(team(ctx), body.liveness, (i) =>
        v.body<LivenessInput>('liveness-create', i),
      );
      const managed = await s.managed.of(
        'liveness',
        r.created.map((c) => c.id),
      );
      created(
        ctx,
        bulkBody(
          'liveness',
          r,
          (c) => ({ ...livenessJson(c), ...managed(c.id) }),
          (c) => ({ id: c.id, endpoint_id: c.endpoint_id }),
        ),
      );
    });
    router.get(`${base}/:livenessId`, ...secure, async (ctx) => {
      const c = await s.liveness.get(team(ctx), pathId(ctx, 'livenessId', 'Liveness configuration'));
      const ep = await s.endpoints.get(team(ctx), c.endpoint_id);
      ctx.body = { ...livenessJson(c, endpointJson(ep).full_url), ...(await s.managed.of('liveness', [c.id]))(c.id) };
    });
    router.put(`${base}/:livenessId`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'livenessId', 'Liveness configuration');
      const body = v.body<Partial<LivenessInput>>('liveness-update', ctx.request.body);
      ctx.body = {
        ...livenessJson(await s.liveness.update(team(ctx), id, body)),
        ...(await s.managed.of('liveness', [id]))(id),
      };
    });
    router.delete(`${base}/:livenessId`, ...secure, async (ctx) => {
      const c = await s.liveness.remove(team(ctx), pathId(ctx, 'livenessId', 'Liveness configuration'));
      ctx.body = deleteBody(
        'liveness',
        'Liveness configuration',
        { id: c.id, endpoint_id: c.endpoint_id },
        { deleted_id: c.id },
      );
    });
  }
}

export function livenessDataRoutes(
  router: ApiRouter,
  { services: s, validator: v }: ApiDeps,
  secure: Koa.Middleware[],
): void {
  for (const prefix of ['/api/v1/liveness', '/api-liveness']) {
    const base = `${prefix}/:livenessId`;
    router.get(`${base}/results`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'livenessId', 'Liveness configuration');
      const q = v.query<{ limit?: number; offset?: number; hours?: number; region?: string }>(
        'liveness-results',
        ctx.query,
      );
      const p = page(q);
      const r = await s.monitor.results(team(ctx), id, { hours: q.hours ?? 24, region: q.region, ...p });
      // Each failure also in words (the same wording as the liveness status's `reason` and the home's rows).
      ctx.body = listBody(
        'results',
        { items: r.items, total: r.total, ...p },
        (x) => ({ ...x, reason: explainCheckError(x.error) }),
        { hours: q.hours ?? 24 },
      );
    });
    router.get(`${base}/stats`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'livenessId', 'Liveness configuration');
      const q = v.query<{ days?: number }>('liveness-stats', ctx.query);
      const r = await s.monitor.stats(team(ctx), id, q.days ?? 30);
      ctx.body = { ...r, data: r.stats };
    });
    router.get(`${base}/hourly`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'livenessId', 'Liveness configuration');
      const q = v.query<{ hours?: number }>('liveness-hourly', ctx.query);
      const hours = q.hours ?? 168;
      const data = await s.monitor.hourly(team(ctx), id, hours);
      ctx.body = { data, hours };
    });
    router.get(`${base}/status`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'livenessId', 'Liveness configuration');
      const q = v.query<{ exclude_maintenance?: boolean }>('liveness-status', ctx.query);
      ctx.body = await s.monitor.status(team(ctx), id, { excludeMaintenance: q.exclude_maintenance === true });
    });
  }
}
