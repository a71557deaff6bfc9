// GET /api/v1/openapi.json (no auth): the OpenAPI 3.0.3 document, built once from schemas/ and the operation table.
import type { ApiDeps, ApiRouter } from '../context.js';
import { buildOpenApi } from '../openapi/document.js';

export function openapiRoutes(router: ApiRouter, deps: ApiDeps): void {
  let doc: string | undefined;
  router.get('/api/v1/openapi.json', (ctx) => {
    doc ??= JSON.stringify(buildOpenApi(deps.validator.schemas), null, 2);
    ctx.type = 'application/json';
    ctx.body = doc;
  });
}
