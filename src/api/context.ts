import type { Logger } from 'pino';
import type Router from '@koa/router';
import type { Config } from '../config/index.js';
import type { Clock } from '../domain/clock.js';
import type { Principal } from '../domain/types.js';
import type { Services } from '../services/index.js';
import type { Validator } from '../domain/validator.js';
import type { ReadModel } from '../store/index.js';
import type { Metrics } from '../services/metrics.js';
import type { RateLimiter } from '../services/rate-limit.js';
import type { AuthThrottle } from '../services/auth-throttle.js';
import type { LiveHub } from '../web/live.js';
import type { SsoDeps } from '../web/sso.js';

export interface ApiDeps {
  config: Readonly<Config>;
  services: Services;
  validator: Validator;
  clock: Clock;
  log: Logger;
  version: string;
  /** Changes whenever a read model's tables may have changed (the read caches' key; store/read-models.ts). */
  stamp: (model: ReadModel) => string;
  /** True while the database answers; /health reports it. */
  databaseUp(): Promise<boolean>;
  /** Prometheus metrics (GET /metrics and the HTTP middleware); absent for the CLI's in-process API. */
  metrics?: Metrics;
  /** The per-team rate limit; counted in memory (one process) when absent. */
  rateLimiter?: RateLimiter;
  /** The dashboard sessions' budget (api/middleware/rate-limit.ts SESSION_FACTOR); in memory when absent. */
  sessionRateLimiter?: RateLimiter;
  /** Failed authentications per client address (the daemon's; the CLI's in-process API has none). */
  authThrottle?: AuthThrottle;
  /** The dashboard's live feed (GET /ui/live); the daemon's, closed before its HTTP server. */
  live?: LiveHub;
  /** Single sign-on (DOMMON_OIDC_ISSUER and the rest, docs/sso.md): the provider and the claims' mapping to teams; absent: off. */
  sso?: SsoDeps;
}

export interface ApiState {
  principal: Principal;
  /** Signed in with the dashboard's session cookie (not a token): its reads have their own budget. */
  viaSession?: boolean;
}

export type ApiRouter = Router<ApiState>;
