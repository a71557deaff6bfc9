// GET /api/v1/nodes: the `dommon serve` processes (nodes) on this database, live and stale. Not a
// team's resource: any valid token may read it (docs/scale-out.md says why).
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';

export function nodeRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  router.get('/api/v1/nodes', ...secure, async (ctx) => {
    ctx.body = await deps.services.nodes.list();
  });
}
