import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { portfolioJson } from '../views.js';
import { deleteBody, listBody } from '../shape.js';
import type { PortfolioInput } from '../../services/portfolios.js';
import { readCache } from '../middleware/read-cache.js';
import { created, page, pathId, team } from './common.js';

export function portfolioRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const base = '/api/v1/portfolios';
  router.get(base, ...secure, readCache(deps.stamp, 'portfolios'), async (ctx) => {
    const q = v.query<{ limit?: number; offset?: number; name?: string }>('portfolio-list', ctx.query);
    const r = await s.portfolios.list(team(ctx), { name: q.name }, page(q));
    const managed = await s.managed.of(
      'portfolio',
      r.items.map((p) => p.id),
    );
    ctx.body = listBody('portfolios', r, (p) => ({ ...portfolioJson(p), ...managed(p.id) }));
  });
  router.post(base, ...secure, async (ctx) => {
    const body = v.body<PortfolioInput>('portfolio-create', ctx.request.body);
    const p = await s.portfolios.create(team(ctx), body);
    created(ctx, { ...portfolioJson(p), ...(await s.managed.of('portfolio', [p.id]))(p.id) });
  });
  router.get(`${base}/:portfolioId`, ...secure, async (ctx) => {
    const p = await s.portfolios.get(team(ctx), pathId(ctx, 'portfolioId', 'Portfolio'));
    ctx.body = { ...portfolioJson(p), ...(await s.managed.of('portfolio', [p.id]))(p.id) };
  });
  router.put(`${base}/:portfolioId`, ...secure, async (ctx) => {
    const id = pathId(ctx, 'portfolioId', 'Portfolio');
    const body = v.body<Partial<PortfolioInput>>('portfolio-update', ctx.request.body);
    ctx.body = {
      ...portfolioJson(await s.portfolios.update(team(ctx), id, body)),
      ...(await s.managed.of('portfolio', [id]))(id),
    };
  });
  router.delete(`${base}/:portfolioId`, ...secure, async (ctx) => {
    const p = await s.portfolios.remove(team(ctx), pathId(ctx, 'portfolioId', 'Portfolio'));
    ctx.body = deleteBody('portfolio', 'Portfolio', portfolioJson(p));
  });
}
