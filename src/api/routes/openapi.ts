// GET /api/v1/openapi.json (no auth): the OpenAPI 3.0.3 document, built once from schemas/ and the
// operation table; GET /docs (no auth): the same document as a readable HTML page.
import type { ApiDeps, ApiRouter } from '../context.js';
import { buildOpenApi } from '../openapi/document.js';
import { renderDocsHtml } from '../openapi/html.js';

export function openapiRoutes(router: ApiRouter, deps: ApiDeps): void {
  let doc: Record<string, unknown> | undefined;
  let json: string | undefined;
  let html: string | undefined;
  const document = () => (doc ??= buildOpenApi(deps.validator.schemas));
  router.get('/api/v1/openapi.json', (ctx) => {
    json ??= JSON.stringify(document(), null, 2);
    ctx.type = 'application/json';
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    html ??= renderDocsHtml(document());
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
}
