// /health (no auth), /api/v1/validate and /api/v1/auth.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';

export function healthRoutes(router: ApiRouter, deps: ApiDeps): void {
  router.get('/health', async (ctx) => {
    const up = await deps.databaseUp();
    const timestamp = deps.clock.now().toISOString();
    if (up) {
      ctx.body = {
        status: 'healthy',
        service: 'dommon',
        version: 'v1',
        app_version: deps.version,
        timestamp,
        database: 'connected',
      };
    } else {
      ctx.status = 503;
      ctx.body = {
        status: 'degraded',
        service: 'dommon',
        version: 'v1',
        timestamp,
        database: 'disconnected',
        error: 'database is not reachable',
      };
    }
  });
}

export function tokenRoutes(router: ApiRouter, secure: Koa.Middleware[]): void {
  router.get('/api/v1/validate', ...secure, (ctx) => {
    const p = ctx.state.principal;
    ctx.body = {
      valid: true,
      team_id: p.team_id,
      team: p.team_name,
      token_name: p.token_name,
      message: 'API token is valid',
    };
  });
  router.post('/api/v1/auth', ...secure, (ctx) => {
    const p = ctx.state.principal;
    ctx.body = {
      authenticated: true,
      team_id: p.team_id,
      team: p.team_name,
      user_id: p.user_id,
      user: p.user_email,
      token_id: p.token_id,
      token_name: p.token_name,
      message: 'Authenticated',
    };
  });
}
