import type Koa from 'koa';
import { NotFound } from '../../domain/errors.js';
import type { Page } from '../../domain/types.js';
import type { ApiState } from '../context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_LIMIT = 100;

/** A path id; anything that is not a UUID cannot name a resource, so it is a 404. */
export function pathId(ctx: Koa.ParameterizedContext<ApiState>, name: string, what: string): string {
  const v = (ctx as unknown as { params: Record<string, string> }).params[name];
  if (!v || !UUID.test(v)) throw new NotFound(what);
  return v.toLowerCase();
}

/** limit (default 50, capped at 100) and offset (default 0) from a validated query. */
export function page(q: { limit?: number; offset?: number }): Page {
  return { limit: Math.min(q.limit ?? 50, MAX_LIMIT), offset: q.offset ?? 0 };
}

export const team = (ctx: Koa.ParameterizedContext<ApiState>): string => ctx.state.principal.team_id;

export function created(ctx: Koa.Context, body: unknown): void {
  ctx.status = 201;
  ctx.body = body;
}
