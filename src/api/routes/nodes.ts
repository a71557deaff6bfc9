// GET /api/v1/nodes: the `dommon serve` processes (nodes) on this database, live and stale. Not a
// team's resource: node details (names, hosts, pids, versions) are the operator's, so only an operator
// token (`token create --operator`) reads them; any other token reads counts and regions
// (docs/scale-out.md).
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import type { Principal } from '../../domain/types.js';

export function nodeRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  router.get('/api/v1/nodes', ...secure, async (ctx) => {
    const p = ctx.state.principal as Principal;
    ctx.body = p.operator === true ? await deps.services.nodes.list() : await deps.services.nodes.summary();
  });
}
