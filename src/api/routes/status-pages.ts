// Status pages: the owner's API (/api/v1/status-pages, team-scoped like every resource) and the
// public pages (/status/<slug> as HTML, /status/<slug>.json), answered without sign-in from the
// service's few-seconds cache, with a strict Content-Security-Policy and security headers.
// docs/status-pages.md.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { deleteBody, listBody } from '../shape.js';
import { created, page, pathId, team } from './common.js';
import type { StatusPage } from '../../domain/status-page.js';
import type { PublicStatusPage, StatusPageInput } from '../../services/status-pages.js';
import { publicEndpointName, STATUS_PAGE_CACHE_SECONDS } from '../../domain/status-page.js';
import { STATUS_PAGE_CSS } from '../../web/status-page-css.js';
import { STATUS_PAGE_CSS_PATH, statusPageHtml, statusPageNotFoundHtml } from '../../web/status-page.js';
import { BADGES, badgeSvg } from '../../web/badge.js';

function statusPageJson(p: StatusPage) {
  return {
    id: p.id,
    portfolio_id: p.portfolio_id,
    slug: p.slug,
    url: `/status/${p.slug}`,
    title: p.title,
    description: p.description,
    show_certificates: p.show_certificates,
    enabled: p.enabled,
    endpoints: p.endpoints.map((e, i) => ({
      endpoint_id: e.endpoint_id,
      display_name: e.display_name,
      name: e.display_name ?? e.name,
      // What the public page shows for it: never the endpoint's own name.
      public_name: publicEndpointName(e.display_name, i),
    })),
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** No script at all, styles only from our own file, nothing framed, nothing sent elsewhere. */
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function securityHeaders(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), interest-cohort=()');
}

const etagOf = (body: string): string =>
  `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** One representation of a view: the text, its ETag, and its gzip form once a client asked for it. */
interface Variant {
  body: string;
  tag: string;
  gz?: Buffer;
}

interface Rendered {
  html: Variant;
  json: Variant;
  modified: Date;
}

/** Badges are images meant for other sites' pages: loadable from any origin, never a document. */
function badgeHeaders(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BADGE_NOT_FOUND = badgeSvg('badge', 'not found', 'grey');

const SLUG = /^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$/;
const NOT_FOUND_HTML = statusPageNotFoundHtml();
const CSS_TAG = etagOf(STATUS_PAGE_CSS);

export function statusPageRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const base = '/api/v1/status-pages';
  router.get(base, ...secure, async (ctx) => {
    const q = v.query<{ limit?: number; offset?: number; portfolio_id?: string }>('status-page-list', ctx.query);
    const f = { portfolio_id: q.portfolio_id?.toLowerCase() };
    const r = await s.statusPages.list(team(ctx), f, page(q));
    const managed = await s.managed.of(
      'status_page',
      r.items.map((p) => p.id),
    );
    ctx.body = listBody('status_pages', r, (p) => ({ ...statusPageJson(p), ...managed(p.id) }));
  });
  router.post(base, ...secure, async (ctx) => {
    const body = v.body<StatusPageInput>('status-page-create', ctx.request.body);
    const p = await s.statusPages.create(team(ctx), body);
    created(ctx, { ...statusPageJson(p), ...(await s.managed.of('status_page', [p.id]))(p.id) });
  });
  router.get(`${base}/:statusPageId`, ...secure, async (ctx) => {
    const p = await s.statusPages.get(team(ctx), pathId(ctx, 'statusPageId', 'Status page'));
    ctx.body = { ...statusPageJson(p), ...(await s.managed.of('status_page', [p.id]))(p.id) };
  });
  router.put(`${base}/:statusPageId`, ...secure, async (ctx) => {
    const id = pathId(ctx, 'statusPageId', 'Status page');
    const body = v.body<Partial<StatusPageInput>>('status-page-update', ctx.request.body);
    ctx.body = {
      ...statusPageJson(await s.statusPages.update(team(ctx), id, body)),
      ...(await s.managed.of('status_page', [id]))(id),
    };
  });
  router.delete(`${base}/:statusPageId`, ...secure, async (ctx) => {
    const p = await s.statusPages.remove(team(ctx), pathId(ctx, 'statusPageId', 'Status page'));
    ctx.body = deleteBody('status_page', 'Status page', statusPageJson(p));
  });

  // Public side. Rendered once per read of the service (the same view object for its cache window).
  const rendered = new WeakMap<PublicStatusPage, Rendered>();
  const render = (view: PublicStatusPage): Rendered => {
    let r = rendered.get(view);
    if (!r) {
      const html = statusPageHtml(view);
      const json = JSON.stringify(view);
      // HTTP dates have whole seconds; ETags decide first anyway.
      const modified = new Date(Math.floor(Date.parse(view.generated_at) / 1000) * 1000);
      r = { html: { body: html, tag: etagOf(html) }, json: { body: json, tag: etagOf(json) }, modified };
      rendered.set(view, r);
    }
    return r;
  };
  const cacheControl = `public, max-age=${STATUS_PAGE_CACHE_SECONDS}`;

  async function answer(ctx: Koa.Context, slug: string | undefined, asJson: boolean): Promise<void> {
    securityHeaders(ctx);
    ctx.set('Cache-Control', cacheControl);
    ctx.set('Vary', 'Accept-Encoding');
    // A malformed slug cannot name a page: the same 404 as an unknown or disabled one, without a read.
    const view = slug && SLUG.test(slug) ? await s.statusPages.publicView(slug) : null;
    if (!view) {
      ctx.status = 404;
      if (asJson) {
        ctx.body = {
          error: 'Status page not found',
          code: 'NOT_FOUND',
          timestamp: deps.clock.now().toISOString(),
          path: ctx.path,
        };
      } else {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = NOT_FOUND_HTML;
      }
      return;
    }
    const r = render(view);
    const v = asJson ? r.json : r.html;
    // Compressed once per read and kept with it: a page of 100 endpoints is ~0.5 MB of HTML, ~10 KB gzipped.
    const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    ctx.status = 200;
    ctx.etag = gzip ? `${v.tag.slice(0, -1)}-gz"` : v.tag;
    ctx.lastModified = r.modified;
    ctx.type = asJson ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8';
    if (gzip) {
      v.gz ??= zlib.gzipSync(v.body);
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = v.gz;
    } else ctx.body = v.body;
    if (ctx.fresh) ctx.status = 304;
  }

  router.get(STATUS_PAGE_CSS_PATH, (ctx) => {
    securityHeaders(ctx);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.etag = CSS_TAG;
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = STATUS_PAGE_CSS;
    if (ctx.fresh) ctx.status = 304;
  });
  // A badge answers only for an endpoint on an enabled public page, from the page's cached read.
  router.get('/badge/:slug/:endpointId/:kind.svg', async (ctx) => {
    const { slug, endpointId, kind } = ctx.params as Record<string, string>;
    badgeHeaders(ctx);
    ctx.set('Cache-Control', cacheControl);
    ctx.type = 'image/svg+xml; charset=utf-8';
    const make = Object.hasOwn(BADGES, kind) ? BADGES[kind] : undefined;
    const b =
      make && SLUG.test(slug) && UUID.test(endpointId) ? await s.statusPages.publicBadge(slug, endpointId) : null;
    if (!make || !b) {
      ctx.status = 404;
      ctx.body = BADGE_NOT_FOUND;
      return;
    }
    const svg = badgeSvg(...make(b));
    ctx.status = 200;
    ctx.etag = etagOf(svg);
    ctx.body = svg;
    if (ctx.fresh) ctx.status = 304;
  });
  router.get('/status/:slug.json', (ctx) => answer(ctx, ctx.params.slug, true));
  router.get('/status/:slug', (ctx) => answer(ctx, ctx.params.slug, false));
}
