// Conditional GETs for the JSON reads (/api/v1/*, /api-*): every 200 answer carries a weak ETag, a
// hash of its JSON text, and a request whose If-None-Match names it gets 304 with no body. The
// dashboard polls with If-None-Match, so an unchanged list or view costs its read but neither the
// transfer nor the browser's parsing and redraw. The hash is SHA-1 of the text the answer would send
// anyway (about 30 µs for a 25 KB page); answers that set their own ETag or Cache-Control keep them
// (the read cache stores each answer with its tag: a cached answer is hashed once, not per request),
// and a request naming their tag gets 304 all the same.
import crypto from 'node:crypto';
import type Koa from 'koa';

const JSON_READS = /^\/(?:api\/v1\/|api-)/;

/** W/"<27 characters of base64url SHA-1>": equal texts, equal tags. */
export const weakEtag = (text: string): string => `W/"${crypto.createHash('sha1').update(text).digest('base64url')}"`;

/** Weak comparison (RFC 9110 13.1.2): any listed tag, with or without W/, equal to ours, or `*`. */
function matches(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === opaque;
  });
}

export function etagMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 200 || !JSON_READS.test(ctx.path)) return;
    let tag = ctx.response.get('ETag');
    if (!tag) {
      const body: unknown = ctx.body;
      let text: string;
      if (typeof body === 'string' && ctx.response.is('json')) text = body;
      else if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && !('pipe' in body)) {
        text = JSON.stringify(body);
        ctx.type = 'application/json';
        ctx.body = text;
      } else return;
      tag = weakEtag(text);
      ctx.set('ETag', tag);
    }
    // Stored by nobody on the way (it is one team's data), revalidated by the browser on every use.
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'private, no-cache');
    // Not ctx.fresh: fetch() sends Cache-Control: no-cache with a hand-set If-None-Match, and koa's
    // freshness check then never matches. The server compares with what it would answer now.
    if (matches(ctx.get('If-None-Match'), tag)) ctx.status = 304;
  };
}
