// GET /metrics: Prometheus text format; with DOMMON_METRICS_TOKEN set it needs `Authorization: Bearer <token>`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Unauthorized } from '../../domain/errors.js';
import type { ApiDeps, ApiRouter } from '../context.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsRoutes(router: ApiRouter, deps: ApiDeps): void {
  const metrics = deps.metrics;
  if (!metrics) return;
  const token = deps.config.metricsToken;
  router.get('/metrics', async (ctx) => {
    if (token) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      // Compare digests so the comparison takes the same time whatever the length.
      if (!m || !timingSafeEqual(digest(m[1]!), digest(token))) {
        ctx.set('WWW-Authenticate', 'Bearer realm="dommon metrics"');
        throw new Unauthorized('Missing or invalid metrics token (DOMMON_METRICS_TOKEN)');
      }
    }
    const { contentType, body } = await metrics.render();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  });
}
