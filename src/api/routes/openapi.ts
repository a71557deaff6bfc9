// GET /api/v1/openapi.json (no auth): the OpenAPI 3.0.3 document, built once from schemas/ and the
// operation table; GET /docs (no auth): the same document in Swagger UI, whose files (an allow-list,
// src/api/openapi/swagger-ui.ts) are served from the installed swagger-ui-dist package at /docs/<file>.
// The page and its files carry the dashboard's security headers (same origin) with a CSP Swagger UI can run under.
import type { ApiDeps, ApiRouter } from '../context.js';
import { buildOpenApi } from '../openapi/document.js';
import { DOCS_CONTENT_SECURITY_POLICY, docsAssets, docsHtml } from '../openapi/swagger-ui.js';
import { securityHeaders } from '../../web/serve.js';
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
    securityHeaders(ctx, DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get('/docs/:asset', (ctx) => {
    const a = asset(ctx.params.asset);
    if (!a) throw new NotFound(`File /docs/${ctx.params.asset}`);
    // The files change only with the installed package: a day's cache, revalidated by ETag.
    ctx.set('Cache-Control', 'public, max-age=86400');
    securityHeaders(ctx, DOCS_CONTENT_SECURITY_POLICY);
    ctx.etag = a.etag;
    ctx.type = a.contentType;
    ctx.body = a.body;
    if (ctx.fresh) ctx.status = 304;
  });
}
