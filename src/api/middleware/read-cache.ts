// Caches the serialized answer of a GET list per (team, URL) until one of the tables it reads
// changes (in this process or any other). Dashboards polling lists then cost one pragma, not a query.
import type Koa from 'koa';
import type { ApiState } from '../context.js';

const MAX_ENTRIES = 2000;

export function readCache(stamp: (tables: readonly string[]) => string, tables: readonly string[]): Koa.Middleware<ApiState> {
  const cache = new Map<string, { stamp: string; body: string }>();
  return async (ctx, next) => {
    const params = new URLSearchParams(ctx.querystring);
    params.delete('api_key');
    params.sort();
    const key = `${ctx.state.principal.team_id} ${ctx.path}?${params.toString()}`;
    const before = stamp(tables);
    const hit = cache.get(key);
    if (hit && hit.stamp === before) {
      ctx.type = 'application/json';
      ctx.body = hit.body;
      return;
    }
    await next();
    if (ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      const body = JSON.stringify(ctx.body);
      if (cache.size >= MAX_ENTRIES) cache.clear();
      // Stored under the stamp taken before the read: a write during the read invalidates it.
      cache.set(key, { stamp: before, body });
      ctx.type = 'application/json';
      ctx.body = body;
    }
  };
}
