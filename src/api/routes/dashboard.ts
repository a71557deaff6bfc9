// The dashboard's aggregate reads (also open to tokens): the home (every domain and endpoint of the
// team, one request per page) and an endpoint's incidents (outages, recoveries, notifications sent).
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import type { HomeQuery } from '../../services/home.js';
import { page, pathId, team } from './common.js';

const pagination = (total: number, p: { limit: number; offset: number }, n: number) => ({
  total,
  limit: p.limit,
  offset: p.offset,
  has_more: p.offset + n < total,
});

export function dashboardRoutes(
  router: ApiRouter,
  { services: s, validator: v }: ApiDeps,
  secure: Koa.Middleware[],
): void {
  router.get('/api/v1/home', ...secure, async (ctx) => {
    const q = v.query<Omit<HomeQuery, 'limit' | 'offset' | 'ids'> & { limit?: number; offset?: number; ids?: string }>(
      'home',
      ctx.query,
    );
    const p = page(q);
    const ids = q.ids === undefined ? undefined : q.ids.toLowerCase().split(',').filter(Boolean);
    const r = await s.home.list(team(ctx), { ...q, ...p, ids, portfolio_id: q.portfolio_id?.toLowerCase() });
    // Each row says whether a configuration file manages its domain or endpoint, as the other reads do.
    const [domains, endpoints] = await Promise.all([
      s.managed.of(
        'domain',
        r.items.filter((x) => x.kind === 'domain').map((x) => x.id),
      ),
      s.managed.of(
        'endpoint',
        r.items.filter((x) => x.kind === 'endpoint').map((x) => x.id),
      ),
    ]);
    const data = r.items.map((x) => ({ ...x, ...(x.kind === 'domain' ? domains : endpoints)(x.id) }));
    ctx.body = { data, pagination: pagination(r.total, p, r.items.length), summary: r.summary };
  });
  router.get('/api/v1/endpoints/:endpointId/incidents', ...secure, async (ctx) => {
    const id = pathId(ctx, 'endpointId', 'Endpoint');
    const q = v.query<{ limit?: number; offset?: number }>('incident-list', ctx.query);
    const p = { limit: Math.min(q.limit ?? 20, 100), offset: q.offset ?? 0 };
    const r = await s.home.incidents(team(ctx), id, p);
    ctx.body = { data: r.items, pagination: pagination(r.total, p, r.items.length) };
  });
}
