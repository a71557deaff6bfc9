// The web dashboard's serving (src/web/serve.ts) and sign-in (src/web/session.ts) over real HTTP: the
// page and its hashed files with their caching and security headers (a strict CSP, no inline script
// or style), the session cookie (HttpOnly, SameSite=Strict, the token never echoed), CSRF refusal of
// every write made with the cookie, and the routes that were there before answering as they did.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { request, startApp } from '../support/app.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/serve.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { PACKAGE_ROOT } from '../../src/package.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
t.setTimeout(120_000);

// `npm run build` makes dist/web/; a bare checkout builds the dashboard here (esbuild, about a second).
if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist/web/index.html')))
  execFileSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts/web.mjs')], { stdio: 'inherit' });

function securityHeaders(t: any, h: Headers, where: string) {
  t.equal(h.get('content-security-policy'), CONTENT_SECURITY_POLICY, `${where}: CSP`);
  t.equal(h.get('x-content-type-options'), 'nosniff', `${where}: nosniff`);
  t.equal(h.get('referrer-policy'), 'no-referrer', `${where}: referrer policy`);
  t.equal(h.get('x-frame-options'), 'DENY', `${where}: no framing`);
}

/** A GET without fetch's own cache headers (fetch adds Cache-Control: no-cache to a conditional request). */
function rawStatus(base: string, p: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: new URL(base).port, path: p, headers }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
      .on('error', reject);
  });
}

function cookieOf(h: Headers): string {
  const c = h.getSetCookie().find((x) => x.startsWith('dommon_session='));
  if (!c) throw new Error('no session cookie set');
  return c;
}

t.test('GET / and its assets: strict CSP, no inline code, hashed files cached for a year', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const page = await request(s.url, 'GET', '/', { unchecked: true });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal(page.headers.get('cache-control'), 'no-cache');
  securityHeaders(t, page.headers, '/');
  t.match(CONTENT_SECURITY_POLICY, /default-src 'self'/);
  t.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
  t.notMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval/);
  // No inline script or style: every <script> has a src, no <style> element, no style= attribute.
  const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  t.ok(scripts.length >= 1, 'a script');
  for (const [, attrs, body] of scripts) {
    t.match(attrs, /src="\/ui\/assets\/main-[A-Z0-9]+\.js"/);
    t.equal(body!.trim(), '', 'no inline code');
  }
  t.notMatch(page.text, /<style|style=/i);
  t.notMatch(page.text, /https?:\/\//, 'no other origin (no CDN)');

  const files = [...page.text.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  t.ok(
    files.some((f) => f.endsWith('.css')),
    'a stylesheet',
  );
  // The first load (the page and the files it names), gzipped as a server would: under 150 KB.
  let firstLoad = zlib.gzipSync(page.text).length;
  for (const f of files) firstLoad += zlib.gzipSync(Buffer.from(await (await fetch(s.url + f)).arrayBuffer())).length;
  t.ok(firstLoad < 150 * 1024, `first load ${(firstLoad / 1024).toFixed(1)} KB gzip, under 150 KB`);
  for (const f of files) {
    const r = await fetch(s.url + f);
    t.equal(r.status, 200, f);
    t.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable', `${f}: a year, immutable`);
    t.match(r.headers.get('content-type'), f.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    securityHeaders(t, r.headers, f);
    // Each encoding has its own validator: revalidate in the encoding fetch was answered in.
    const encoding = { 'accept-encoding': r.headers.get('content-encoding') ?? 'identity' };
    const etag = { 'if-none-match': r.headers.get('etag')! };
    t.equal(await rawStatus(s.url, f, { ...etag, ...encoding }), 304, `${f}: revalidates by ETag`);
  }
  t.equal(
    await rawStatus(s.url, '/', {
      'if-none-match': page.headers.get('etag')!,
      'accept-encoding': page.headers.get('content-encoding') ?? 'identity',
    }),
    304,
    'index.html revalidates by ETag',
  );

  for (const p of [
    '/ui/assets/nope.js',
    '/ui/assets/..%2Fpackage.json',
    '/ui/assets/../../package.json',
    '/ui/other',
  ]) {
    const r = await request(s.url, 'GET', p, { unchecked: true });
    t.equal(r.status, 404, p);
    t.match(r.body, { code: /NOT_FOUND/ });
  }
  const post = await request(s.url, 'POST', '/', { unchecked: true });
  t.equal(post.status, 404, 'POST / is no route');
});

t.test('the routes that were there answer as before', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const health = await request(s.url, 'GET', '/health');
  t.equal(health.status, 200);
  t.equal(health.body.status, 'healthy');
  t.equal(health.headers.get('content-security-policy'), null, 'the API answers carry no page CSP');
  t.equal((await request(s.url, 'GET', '/api/v1/openapi.json')).status, 200);
  t.equal((await request(s.url, 'GET', '/docs')).status, 200);
  t.equal((await request(s.url, 'GET', '/metrics', { unchecked: true })).status, 200);
  t.equal((await request(s.url, 'GET', '/api/v1/domains')).status, 401);
  const none = await request(s.url, 'GET', '/nowhere', { unchecked: true });
  t.equal(none.status, 404);
  t.equal(none.body.code, 'ROUTE_NOT_FOUND');
});

t.test('sign-in: the token goes in an HttpOnly SameSite=Strict cookie and is never echoed', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('web', 'web@example.com');

  const anon = await request(s.url, 'GET', '/ui/session', { unchecked: true });
  t.equal(anon.status, 200);
  t.same(anon.body, { signed_in: false });
  const bad = await request(s.url, 'GET', '/ui/session', {
    headers: { cookie: 'dommon_session=dmn_x' },
    unchecked: true,
  });
  t.same(bad.body, { signed_in: false }, 'an unknown cookie is no session');

  const wrong = await request(s.url, 'POST', '/ui/session', { body: { token: 'dmn_wrong' }, unchecked: true });
  t.equal(wrong.status, 401);
  t.equal(wrong.headers.getSetCookie().length, 0, 'no cookie for a wrong token');
  const extra = await request(s.url, 'POST', '/ui/session', { body: { token, more: 1 }, unchecked: true });
  t.equal(extra.status, 400, 'validated by schemas/requests/ui-session.json');
  t.notMatch(extra.text, token);
  const form = await request(s.url, 'POST', '/ui/session', {
    body: JSON.stringify({ token }),
    headers: { 'content-type': 'text/plain' },
    unchecked: true,
  });
  t.equal(form.status, 415, 'a body a cross-site form could send is refused');
  t.equal(form.headers.getSetCookie().length, 0);

  const ok = await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  t.equal(ok.status, 201);
  t.same(ok.body, {
    signed_in: true,
    team: 'web',
    user: 'web@example.com',
    token_name: ok.body.token_name,
    read_only: false,
    role: 'owner',
    csrf_token: ok.body.csrf_token,
  });
  t.match(ok.body.csrf_token, /^[A-Za-z0-9_-]{43}$/, 'a CSRF token for the session');
  t.notMatch(ok.text, token, 'the token is not in the answer');
  t.equal(ok.headers.get('cache-control'), 'no-store');
  const cookie = cookieOf(ok.headers);
  t.match(cookie, /; path=\//i);
  t.match(cookie, /; httponly/i);
  t.match(cookie, /; samesite=strict/i);
  const jar = cookie.split(';')[0]!;

  const me = await request(s.url, 'GET', '/ui/session', { headers: { cookie: jar }, unchecked: true });
  t.equal(me.status, 200);
  t.equal(me.body.csrf_token, ok.body.csrf_token, 'the same CSRF token for the session');
  const list = await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: jar } });
  t.equal(list.status, 200, 'reads work with the cookie alone');

  // Revoked: the cookie stops working at once.
  const [tok] = await s.app.services.access.listTokens('web');
  await s.app.services.access.revokeToken(tok!.id);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: jar } })).status, 401);
  t.same((await request(s.url, 'GET', '/ui/session', { headers: { cookie: jar }, unchecked: true })).body, {
    signed_in: false,
  });
});

t.test('every write made with the session cookie needs its CSRF token', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('csrf', 'c@example.com');
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  const jar = cookieOf(signIn.headers).split(';')[0]!;
  const good = { cookie: jar, [CSRF_HEADER]: signIn.body.csrf_token as string };
  // Another session of the same token has another CSRF token, which this session's cookie refuses.
  const other = (await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true })).body
    .csrf_token as string;
  t.not(other, good[CSRF_HEADER]);
  const d = await request(s.url, 'POST', '/api/v1/domains', { body: { domain: 'kept.example' }, headers: good });
  t.equal(d.status, 201, 'a write with the header goes through');

  const writes: [string, string, unknown][] = [
    ['POST', '/api/v1/domains', { domain: 'csrf.example' }],
    ['PUT', `/api/v1/domains/${d.body.id}`, { notes: 'x' }],
    ['DELETE', `/api/v1/domains/${d.body.id}`, undefined],
    ['POST', '/api/v1/portfolios', { name: 'P' }],
    ['POST', '/api-domains', { domain: 'user-api.example' }],
    ['POST', '/api/v1/notifications/test', { channel: 'email', recipient: 'a@example.com' }],
    ['POST', '/api/v1/auth', undefined],
    ['DELETE', '/ui/session', undefined],
  ];
  for (const [method, p, body] of writes) {
    for (const [why, headers] of [
      ['no header', { cookie: jar }],
      ['wrong header', { cookie: jar, [CSRF_HEADER]: other }],
      ['empty header', { cookie: jar, [CSRF_HEADER]: '' }],
    ] as const) {
      const r = await request(s.url, method, p, { body, headers: { ...headers }, unchecked: true });
      t.equal(r.status, 403, `${method} ${p}, ${why}: 403`);
      t.match(r.body, { error: /CSRF/, code: 'CSRF_TOKEN_INVALID', path: p, timestamp: ISO });
    }
  }
  const after = await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: jar } });
  t.same(
    after.body.data.map((x: any) => [x.domain, x.notes]),
    [['kept.example', null]],
    'nothing was written or removed',
  );
  // A malformed Authorization header is not overruled by the cookie.
  const basic = await request(s.url, 'GET', '/api/v1/domains', {
    headers: { cookie: jar, authorization: `Basic ${token}` },
  });
  t.equal(basic.status, 401, 'a non-Bearer header with the cookie is still a 401');
  // The bearer header needs no CSRF token (no browser sends it by itself), as before.
  t.equal((await request(s.url, 'POST', '/api/v1/domains', { token, body: { domain: 'bearer.example' } })).status, 201);

  const out = await request(s.url, 'DELETE', '/ui/session', { headers: good, unchecked: true });
  t.equal(out.status, 204);
  t.match(cookieOf(out.headers), /^dommon_session=;.*expires=Thu, 01 Jan 1970/i, 'the cookie is cleared');
});
