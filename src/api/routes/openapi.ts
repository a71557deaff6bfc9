// GET /api/v1/openapi.json (no auth): the OpenAPI 3.0.3 document, built once from schemas/ and the
// operation table; GET /docs (no auth): the same document in Swagger UI, whose files (an allow-list,
// src/api/openapi/swagger-ui.ts) are served from the installed swagger-ui-dist package at /docs/<file>.
import type { ApiDeps, ApiRouter } from '../context.js';
import { buildOpenApi } from '../openapi/document.js';
import { docsAssets, docsHtml } from '../openapi/swagger-ui.js';
import { NotFound } from '../../domain/errors.js';

export function openapiRoutes(router: ApiRouter, deps: ApiDeps): void {
  let doc: ReturnType<typeof buildOpenApi> | undefined;
  let json: string | undefined;
  let html: string | undefined;
  const document = () => (doc ??= buildOpenApi(deps.validator.schemas));
  const asset = docsAssets();
  router.get('/api/v1/openapi.json', (ctx) => {
    json ??= JSON.stringify(document(), null, 2);
    ctx.type = 'application/json';
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    const info = document().info as { title: string; version: string };
    html ??= docsHtml(`${info.title} ${info.version}`);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/docs/:asset', (ctx) => {
    const a = asset(ctx.params.asset);
    if (!a) throw new NotFound(`File /docs/${ctx.params.asset}`);
    // The files change only with the installed package: a day's cache, revalidated by ETag.
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.etag = a.etag;
    ctx.type = a.contentType;
    ctx.body = a.body;
    if (ctx.fresh) ctx.status = 304;
  });
}
