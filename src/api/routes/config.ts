// Configuration as code (docs/configuration-file.md). GET /api/v1/config/schema.json (no auth): the
// configuration file's JSON Schema, generated from the API's schemas (schemas/config/), for editors'
// `# yaml-language-server: $schema=` lines. POST /api/v1/config/apply: a file's text (and the values of
// the variables it names) -> its plan, applied in one transaction unless `dry_run`; an invalid file is
// a 400 INVALID_CONFIG listing every error as `file:line:col: rule`. GET /api/v1/config/export: the
// team's setup as such a file, secrets as `${NAME}` references (listed).
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { CONFIG_SCHEMA_ID } from '../config-schema.js';
import { Invalid } from '../../domain/errors.js';
import { applyConfigText } from '../config-apply.js';
import { exportConfig } from '../config-export.js';

export function configRoutes(router: ApiRouter, deps: ApiDeps): void {
  let schema: string | undefined;
  router.get('/api/v1/config/schema.json', (ctx) => {
    schema ??= JSON.stringify(deps.validator.schemas[CONFIG_SCHEMA_ID], null, 2);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'application/schema+json';
    ctx.body = schema;
  });
}

export function configApplyRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { validator: v } = deps;
  router.post('/api/v1/config/apply', ...secure, async (ctx) => {
    const q = v.query<{ dry_run?: boolean; prune?: boolean }>('config-apply-options', ctx.query);
    const body = v.body<{ file: string; filename?: string; env?: Record<string, string> }>(
      'config-apply',
      ctx.request.body,
    );
    const r = await applyConfigText(
      deps,
      ctx.state.principal,
      body.file,
      body.filename ?? 'config.yaml',
      body.env ?? {},
      {
        dryRun: q.dry_run ?? false,
        prune: q.prune ?? false,
      },
    );
    if ('errors' in r) throw new Invalid(r.errors[0]!, 'INVALID_CONFIG', { errors: r.errors });
    ctx.body = r.plan;
  });

  router.get('/api/v1/config/export', ...secure, async (ctx) => {
    const q = v.query<{ format?: 'yaml' | 'json' }>('config-export-options', ctx.query);
    ctx.body = await exportConfig(deps, ctx.state.principal, q.format ?? 'yaml');
  });
}
