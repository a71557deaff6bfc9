// Fixed one-minute window per team (DOMMON_RATE_LIMIT), with the usual headers and Retry-After on 429.
import type Koa from 'koa';
import { ServiceError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { ApiState } from '../context.js';

const WINDOW_MS = 60_000;

class RateLimited extends ServiceError {
  constructor(retryAfter: number) {
    super('rate_limited', `rate limit exceeded; retry in ${retryAfter} s`, 'RATE_LIMITED');
  }
}

export function rateLimitMiddleware(limit: number, clock: Clock): Koa.Middleware<ApiState> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (ctx, next) => {
    const now = clock.now().getTime();
    const team = ctx.state.principal.team_id;
    let w = windows.get(team);
    if (!w || now - w.start >= WINDOW_MS) {
      w = { start: now - (now % WINDOW_MS), count: 0 };
      windows.set(team, w);
    }
    w.count++;
    const reset = w.start + WINDOW_MS;
    ctx.set('X-RateLimit-Limit', String(limit));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, limit - w.count)));
    ctx.set('X-RateLimit-Reset', String(Math.ceil(reset / 1000)));
    if (w.count > limit) {
      const retryAfter = Math.max(1, Math.ceil((reset - now) / 1000));
      ctx.set('Retry-After', String(retryAfter));
      throw new RateLimited(retryAfter);
    }
    await next();
  };
}
