// Counts every request by method, matched route template (never the raw path: ids would make the
// series unbounded) and final status; placed outermost so it sees the status the error middleware set.
import type Koa from 'koa';
import type { Metrics } from '../../services/metrics.js';

export function httpMetricsMiddleware(metrics: Pick<Metrics, 'httpRequest'>): Koa.Middleware {
  return async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      const matched = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute;
      const route = typeof matched === 'string' ? matched : matched ? String(matched) : 'unmatched';
      metrics.httpRequest(ctx.method, route, ctx.status, (performance.now() - t0) / 1000);
    }
  };
}
