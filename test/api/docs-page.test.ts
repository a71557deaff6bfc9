// GET /docs (Swagger UI on the dashboard's origin; issue 38 item 6) sends the dashboard's security
// headers: a CSP that allows Swagger UI (its inline styles) and nothing more (no inline or foreign
// script, no framing), X-Frame-Options DENY, nosniff, no referrer. The page and every file it
// references load (200, with the same headers), and in chromium, where installed, the UI renders the
// document with no CSP violation, console error or failed request.
import t, { type Test } from 'tap';
import { request, startApp } from '../support/app.js';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/api/openapi/swagger-ui.js';
import { browser, firstPage, skipBrowser, watch } from '../support/browser.js';

t.setTimeout(120_000);

function headers(t: Test, h: Headers, where: string) {
  t.equal(h.get('content-security-policy'), DOCS_CONTENT_SECURITY_POLICY, `${where}: CSP`);
  t.equal(h.get('x-frame-options'), 'DENY', `${where}: no framing`);
  t.equal(h.get('x-content-type-options'), 'nosniff', `${where}: nosniff`);
  t.equal(h.get('referrer-policy'), 'no-referrer', `${where}: referrer policy`);
}

t.test('/docs and its files carry the security headers and all load', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const page = await request(s.url, 'GET', '/docs', { unchecked: true });
  t.equal(page.status, 200);
  headers(t, page.headers, '/docs');
  const csp = Object.fromEntries(
    DOCS_CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
  );
  t.equal(csp['script-src'], "'self'", 'scripts: files of this origin only');
  t.equal(csp['frame-ancestors'], "'none'");
  t.equal(csp['object-src'], "'none'");
  t.notMatch(DOCS_CONTENT_SECURITY_POLICY, /unsafe-eval|\*|https?:/, 'no eval, no wildcard, no other origin');
  // No inline script: every <script> has a src and no body.
  const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  t.equal(scripts.length, 2);
  for (const [, attrs, body] of scripts) {
    t.match(attrs, /src="\/docs\/[a-z0-9-]+\.js"/);
    t.equal(body!.trim(), '', 'no inline code');
  }
  const files = [...page.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
  t.same(files.sort(), [
    '/docs/dommon-docs.js',
    '/docs/favicon-16x16.png',
    '/docs/favicon-32x32.png',
    '/docs/swagger-ui-bundle.js',
    '/docs/swagger-ui.css',
  ]);
  for (const f of files) {
    const r = await fetch(s.url + f);
    t.equal(r.status, 200, f);
    headers(t, r.headers, f);
    await r.arrayBuffer();
  }
  const init = await (await fetch(`${s.url}/docs/dommon-docs.js`)).text();
  t.match(init, /validatorUrl: null/, 'no badge from validator.swagger.io');
});

t.test('Swagger UI renders under the CSP in chromium', { skip: skipBrowser }, async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(s.url)) foreign.push(r.url());
  });
  // Swagger UI renders only the operations within the window (a virtual list): a tall one holds them all.
  await page.setViewportSize({ width: 1280, height: 30_000 });
  await page.goto(`${s.url}/docs`);
  // The document's title and an operation of it: the bundle ran and fetched /api/v1/openapi.json.
  await page.locator('.swagger-ui .info .title').filter({ hasText: 'dommon API' }).waitFor();
  await page.locator('.opblock-summary-path').first().waitFor();
  t.ok((await page.locator('.opblock').count()) > 50, 'the operations are listed');
  t.same(problems, [], 'no CSP violation, console error or failed request');
  t.same(foreign, [], 'nothing fetched from another origin');
});
