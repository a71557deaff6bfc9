// The per-team rate limit (DOMMON_RATE_LIMIT per one-minute window, services/rate-limit.ts), with the
// usual headers and Retry-After on 429. The dashboard's signed-in sessions count in a budget of their
// own (the team's `web` counter, SESSION_FACTOR times the limit): a browser left open never uses up
// what the team's scripts and CLI may send, nor they the page's.
import type Koa from 'koa';
import { ServiceError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { RateLimiter } from '../../services/rate-limit.js';
import type { ApiState } from '../context.js';

class RateLimited extends ServiceError {
  constructor(retryAfter: number) {
    super('rate_limited', `rate limit exceeded; retry in ${retryAfter} s`, 'RATE_LIMITED');
  }
}

/** How many times the team's limit its dashboard sessions may read in a minute, together. */
export const SESSION_FACTOR = 5;

export function rateLimitMiddleware(
  limiter: RateLimiter,
  sessionLimiter: RateLimiter,
  clock: Clock,
): Koa.Middleware<ApiState> {
  return async (ctx, next) => {
    const team = ctx.state.principal.team_id;
    const d = await (ctx.state.viaSession ? sessionLimiter.take(`${team}:web`) : limiter.take(team));
    ctx.set('X-RateLimit-Limit', String(d.limit));
    ctx.set('X-RateLimit-Remaining', String(d.remaining));
    ctx.set('X-RateLimit-Reset', String(Math.ceil(d.resetAt / 1000)));
    if (!d.allowed) {
      const retryAfter = Math.max(1, Math.ceil((d.resetAt - clock.now().getTime()) / 1000));
      ctx.set('Retry-After', String(retryAfter));
      throw new RateLimited(retryAfter);
    }
    await next();
  };
}
