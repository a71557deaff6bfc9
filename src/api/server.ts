// The koa application: both API surfaces on one app, errors mapped in one middleware.
import Koa from 'koa';
import Router from '@koa/router';
import type { ApiDeps, ApiState } from './context.js';
import type { Principal } from '../domain/types.js';
import { errorMiddleware } from './middleware/errors.js';
import { bodyMiddleware } from './middleware/body.js';
import { authMiddleware } from './middleware/auth.js';
import { rateLimitMiddleware, SESSION_FACTOR } from './middleware/rate-limit.js';
import { localRateLimiter } from '../services/rate-limit.js';
import type { AuthThrottle } from '../services/auth-throttle.js';
import { healthRoutes } from './routes/system.js';
import { resourceRoutes } from './routes/index.js';
import { openapiRoutes } from './routes/openapi.js';
import { configRoutes } from './routes/config.js';
import { metricsRoutes } from './routes/metrics.js';
import { pingMiddleware } from './routes/ping.js';
import { httpMetricsMiddleware } from './middleware/metrics.js';
import { webMiddleware } from '../web/serve.js';
import { etagMiddleware } from './middleware/etag.js';
import { roleMiddleware } from './roles.js';
import compress from 'koa-compress';
import zlib from 'node:zlib';

/** The CLI's in-process API authenticates nobody by token, so it counts no failures. */
const NO_THROTTLE: AuthThrottle = { check: async () => undefined, fail: async () => undefined };

interface ApiOptions {
  /** Local transport for the CLI: every request acts as this caller (no token, no rate limit). */
  principal?: Principal;
  /** DOMMON_ROLE=worker: only /health and /metrics; every other path answers 404. */
  healthAndMetricsOnly?: boolean;
}

export function createApi(deps: ApiDeps, opts: ApiOptions = {}): { app: Koa; router: Router<ApiState> } {
  // --trust-proxy: X-Forwarded-Proto decides ctx.secure (the session cookie's Secure and __Host-), and the
  // last X-Forwarded-For entry (the one the proxy itself added) is the client's address; otherwise both
  // headers are ignored, whoever sends them.
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: 1 });
  const throttle = deps.authThrottle ?? NO_THROTTLE;
  const router = new Router<ApiState>();
  const fixed = opts.principal;
  const secure = (
    fixed
      ? [
          async (ctx: Koa.ParameterizedContext<ApiState>, next: Koa.Next) => {
            ctx.state.principal = fixed;
            await next();
          },
        ]
      : [
          authMiddleware(deps.services.access, deps.services.sessions, throttle, deps.services.audit),
          rateLimitMiddleware(
            deps.rateLimiter ?? localRateLimiter(deps.config.rateLimit, deps.clock),
            deps.sessionRateLimiter ?? localRateLimiter(deps.config.rateLimit * SESSION_FACTOR, deps.clock),
            deps.clock,
          ),
          // What the caller's role allows is declared per operation (openapi/operations.ts `role`).
          roleMiddleware(),
        ]
  ) as Koa.Middleware[];

  healthRoutes(router, deps);
  if (!opts.healthAndMetricsOnly) {
    openapiRoutes(router, deps);
    configRoutes(router, deps);
    resourceRoutes(router, deps, secure, { ...deps, authThrottle: throttle });
  }
  metricsRoutes(router, deps);

  if (deps.metrics) app.use(httpMetricsMiddleware(deps.metrics));
  // Push endpoints' ping URLs: public, plain text, any body (ahead of the JSON parser and the request log).
  if (!opts.healthAndMetricsOnly) app.use(pingMiddleware(deps));
  // Outside the error middleware, so the status logged is the one answered.
  app.use(async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      // Path only: the query string may hold an api_key.
      deps.log.debug(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - t0) },
        'request',
      );
    }
  });
  app.use(errorMiddleware(deps.log, deps.clock));
  app.use(bodyMiddleware());
  // JSON answers of 1 KB or more compressed for a client that asks (the dashboard's browser: a page of
  // the Home is ~250 KB of JSON, ~25 KB gzip); outside the ETag, which hashes the JSON text. Not for
  // the CLI's in-process API. The web's own files go out precompressed (web/serve.ts).
  if (!fixed)
    app.use(
      compress({
        threshold: 1024,
        filter: (type) => /json/i.test(type),
        br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
      }),
    );
  // ETag and 304 on the JSON reads the dashboard polls (not the CLI's in-process API, which never revalidates).
  if (!fixed) app.use(etagMiddleware());
  // The web dashboard (/, /ui/*): not for the CLI's in-process API, which has no browser, nor for a worker node.
  if (!fixed && !opts.healthAndMetricsOnly)
    app.use(webMiddleware({ ...deps, authThrottle: throttle, publicUrl: deps.config.publicUrl }));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return { app, router };
}
