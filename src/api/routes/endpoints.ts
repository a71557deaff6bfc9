import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { pingsJson, createdEndpointJson, endpointDetailJson, endpointJson } from '../views.js';
import { bulkBody, deleteBody, listBody } from '../shape.js';
import type { EndpointInput } from '../../services/endpoints.js';
import type { EndpointType } from '../../domain/types.js';
import type { EndpointAction, EndpointActionOutcome } from '../../services/endpoint-actions.js';
import { HTTP_STATUS } from '../errors.js';
import { readCache } from '../middleware/read-cache.js';
import { created, page, pathId, team } from './common.js';

export function endpointRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const originOf = (ctx: { protocol: string; host: string }) => baseOf(deps.config.publicUrl, ctx);
  // The same handlers answer the Public API and the User API path.
  for (const base of ['/api/v1/endpoints', '/api-endpoints']) {
    router.get(base, ...secure, readCache(deps.stamp, 'endpoints'), async (ctx) => {
      const q = v.query<{
        limit?: number;
        offset?: number;
        domain_id?: string;
        endpoint_type?: EndpointType;
        is_enabled?: boolean;
      }>('endpoint-list', ctx.query);
      const f = { domain_id: q.domain_id, endpoint_type: q.endpoint_type, is_enabled: q.is_enabled };
      const r = await s.endpoints.list(team(ctx), f, page(q));
      const managed = await s.managed.of(
        'endpoint',
        r.items.map((e) => e.id),
      );
      ctx.body = listBody('endpoints', r, (e) => ({ ...endpointJson(e), ...managed(e.id) }));
    });
    router.post(base, ...secure, async (ctx) => {
      const body = v.body<EndpointInput>('endpoint-create', ctx.request.body);
      const e = await s.endpoints.create(team(ctx), body);
      created(ctx, { ...createdEndpointJson(e, originOf(ctx)), ...(await s.managed.of('endpoint', [e.id]))(e.id) });
    });
    router.post(`${base}/bulk`, ...secure, async (ctx) => {
      const body = v.body<{ endpoints: unknown[] }>('endpoint-bulk', ctx.request.body);
      const r = await s.endpoints.bulkCreate(team(ctx), body.endpoints, (i) =>
        v.body<EndpointInput>('endpoint-create', i),
      );
      const managed = await s.managed.of(
        'endpoint',
        r.created.map((e) => e.id),
      );
      created(
        ctx,
        bulkBody(
          'endpoints',
          r,
          (e) => ({ ...createdEndpointJson(e, originOf(ctx)), ...managed(e.id) }),
          (e) => ({
            id: e.id,
            name: e.name,
            full_url: endpointJson(e).full_url,
          }),
        ),
      );
    });
    router.post(`${base}/bulk-actions`, ...secure, async (ctx) => {
      const body = v.body<{ action: EndpointAction; endpoint_ids: string[] }>('endpoint-actions', ctx.request.body);
      ctx.body = endpointActionsBody(
        body.action,
        await s.endpointActions.run(team(ctx), body.action, body.endpoint_ids),
      );
    });
    router.get(`${base}/:endpointId`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'endpointId', 'Endpoint');
      const { d, score } = await s.status.endpointSummary(team(ctx), id);
      ctx.body = { ...endpointDetailJson(d, score), ...(await s.managed.of('endpoint', [id]))(id) };
    });
    router.get(`${base}/:endpointId/pings`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'endpointId', 'Endpoint');
      const q = v.query<{ limit: number }>('endpoint-pings', ctx.query);
      const { check, pings } = await s.push.pings(team(ctx), id, q.limit);
      ctx.body = pingsJson(id, originOf(ctx), check, pings);
    });
    router.get(`${base}/:endpointId/certificates`, ...secure, async (ctx) => {
      ctx.body = await s.certificates.history(team(ctx), pathId(ctx, 'endpointId', 'Endpoint'));
    });
    router.put(`${base}/:endpointId`, ...secure, async (ctx) => {
      const id = pathId(ctx, 'endpointId', 'Endpoint');
      const body = v.body<Partial<EndpointInput>>('endpoint-update', ctx.request.body);
      await s.endpoints.update(team(ctx), id, body);
      const { d, score } = await s.status.endpointSummary(team(ctx), id);
      ctx.body = { ...endpointDetailJson(d, score), ...(await s.managed.of('endpoint', [id]))(id) };
    });
    router.delete(`${base}/:endpointId`, ...secure, async (ctx) => {
      const e = await s.endpoints.remove(team(ctx), pathId(ctx, 'endpointId', 'Endpoint'));
      ctx.body = deleteBody('endpoint', 'Endpoint', { id: e.id, name: e.name, domain_id: e.domain_id });
    });
  }
}

/**
 * Where a push endpoint's ping URL is: DOMMON_PUBLIC_URL when set, else the origin the request was
 * sent to (the Host header; behind --trust-proxy, X-Forwarded-Proto).
 */
const baseOf = (publicUrl: string | null, ctx: { protocol: string; host: string }): string =>
  publicUrl ?? `${ctx.protocol}://${ctx.host}`;

const DONE: Record<EndpointAction, string> = { pause: 'paused', resume: 'resumed', delete: 'deleted' };

/** A bulk action's answer: per endpoint the status its single route would answer, and the failures as the bulk creates list them. */
function endpointActionsBody(action: EndpointAction, outcomes: EndpointActionOutcome[]) {
  const failed = outcomes.flatMap((r, index) =>
    r.ok ? [] : [{ index, input: r.endpoint_id, error: r.error, ...(r.code && { code: r.code }) }],
  );
  const succeeded = outcomes.length - failed.length;
  return {
    action,
    message: `${succeeded} ${DONE[action]}, ${failed.length} failed`,
    succeeded,
    failed: failed.length,
    results: outcomes.map((r) =>
      r.ok
        ? { endpoint_id: r.endpoint_id, status: 200 }
        : {
            endpoint_id: r.endpoint_id,
            status: HTTP_STATUS[r.meaning],
            ...(r.code && { code: r.code }),
            error: r.error,
          },
    ),
    errors: failed,
  };
}
