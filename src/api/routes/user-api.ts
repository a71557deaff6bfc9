// The User API paths that have no Public API twin: /api-auth, /api-endpoint-status, /api-domain-status.
// (/api-domains, /api-endpoints and /api-liveness are served by the Public API handlers themselves;
// the two status paths here also answer their Public API twins /api/v1/{endpoints,domains}/:id/status.)
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { listBody } from '../shape.js';
import type { Health } from '../../domain/endpoint.js';
import { page, pathId, team } from './common.js';
import { clientOf } from '../middleware/auth.js';

export function userApiRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  router.post('/api-auth', async (ctx) => {
    const raw = ctx.request.body as { apiKey?: unknown } | undefined;
    // A missing key is an authentication failure (401), like a wrong one; other bad fields are a 400.
    const missing =
      !raw || typeof raw !== 'object' || Array.isArray(raw) || typeof raw.apiKey !== 'string' || !raw.apiKey;
    const body = missing
      ? undefined
      : v.body<{ apiKey: string; endpoint: string; method: string; userAgent?: string; ipAddress?: string }>(
          'user-auth',
          raw,
        );
    // A key checked here is a guess like any other credential: counted and throttled per address.
    if (body) await deps.authThrottle?.check(clientOf(ctx));
    const p = body ? await s.access.authenticate(body.apiKey) : null;
    if (!p) {
      if (body) await deps.authThrottle?.fail(clientOf(ctx));
      ctx.status = 401;
      ctx.body = {
        success: false,
        error: body ? 'Invalid API key' : 'apiKey is required',
        code: 'UNAUTHORIZED',
        timestamp: deps.clock.now().toISOString(),
        path: ctx.path,
      };
      return;
    }
    ctx.body = { success: true, teamId: p.team_id, apiTokenId: p.token_id, userId: p.user_id, tokenName: p.token_name };
  });
  router.get('/api-endpoint-status', ...secure, async (ctx) => {
    const q = v.query<{ limit?: number; offset?: number; domain_id?: string; health?: Health }>(
      'endpoint-status-list',
      ctx.query,
    );
    const pg = page(q);
    const r = await s.status.endpointList(team(ctx), { domain_id: q.domain_id, health: q.health }, pg);
    ctx.body = listBody('endpoints', { items: r.items, total: r.total, ...pg }, (x) => x, { summary: r.summary });
  });
  // Comprehensive status: one handler for the User API path and its Public API twin.
  for (const path of ['/api-endpoint-status/:endpointId', '/api/v1/endpoints/:endpointId/status']) {
    router.get(path, ...secure, async (ctx) => {
      ctx.body = await s.status.endpoint(team(ctx), pathId(ctx, 'endpointId', 'Endpoint'));
    });
  }
  for (const path of ['/api-domain-status/:domainId', '/api/v1/domains/:domainId/status']) {
    router.get(path, ...secure, async (ctx) => {
      ctx.body = await s.status.domain(team(ctx), pathId(ctx, 'domainId', 'Domain'));
    });
  }
}
