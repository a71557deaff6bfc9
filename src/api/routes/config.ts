// Configuration as code (docs/configuration-file.md). GET /api/v1/config/schema.json (no auth): the
// configuration file's JSON Schema, generated from the API's schemas (schemas/config/), for editors'
// `# yaml-language-server: $schema=` lines.
import type { ApiDeps, ApiRouter } from '../context.js';
import { CONFIG_SCHEMA_ID } from '../config-schema.js';

export function configRoutes(router: ApiRouter, deps: ApiDeps): void {
  let schema: string | undefined;
  router.get('/api/v1/config/schema.json', (ctx) => {
    schema ??= JSON.stringify(deps.validator.schemas[CONFIG_SCHEMA_ID], null, 2);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'application/schema+json';
    ctx.body = schema;
  });
}
