// Badges of public status pages: /badge/<slug>/<endpoint-id>/<kind>.svg with the real figures of a
// real liveness check of a loopback target and a real TLS inspection, the same cached read as the
// page's JSON (so both must agree exactly), XML escaping of the display name, and 404 for anything a
// public page does not show.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { waitFor } from '../support/wait.js';
import { runningClock } from '../support/clock.js';
import { STATUS_PAGE_CACHE_SECONDS } from '../../src/domain/status-page.js';

t.setTimeout(180_000);

/** The two texts of a badge: [label, message]. */
const texts = (svg: string): string[] => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

t.test('badges: real values per kind, escaping, cache headers, 404 for what no page shows', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Badge Test CA');
  const plain = await startHttpTarget();
  const tls = await startHttpTarget({ tls: issue({ ca, cn: 'www.badge-shop.example', toDays: 40 }) });
  const clock = runningClock();
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' },
    { probes: { ca: ca.cert }, clock },
  );
  t.teardown(async () => {
    await s.close();
    await plain.close();
    await tls.close();
    await dns.close();
  });
  const api = client(s.url, await s.token('Badge Team'));
  const p = (await api.post('/api/v1/portfolios', { name: 'Shown' })).body;
  const d = (await api.post('/api/v1/domains', { domain: 'badge-shop.example', portfolio_id: p.id })).body;
  const mk = async (body: Record<string, unknown>) =>
    (await api.post('/api/v1/endpoints', { domain_id: d.id, ...body })).body;
  const billing = await mk({ name: 'internal-billing', endpoint_type: 'http', port: plain.port, path: '/h' });
  const web = await mk({ name: 'internal-web', endpoint_type: 'https', subdomain: 'www', port: tls.port });
  const unlisted = await mk({ name: 'internal-admin', endpoint_type: 'http', port: plain.port, path: '/a' });
  for (const e of [billing, web, unlisted])
    t.equal(
      (
        await api.post('/api/v1/liveness', {
          endpoint_id: e.id,
          interval_seconds: 1,
          timeout_seconds: 2,
          failure_threshold: 1,
        })
      ).status,
      201,
    );
  const page = await api.post('/api/v1/status-pages', {
    portfolio_id: p.id,
    slug: 'badge-shop',
    title: 'Badge Shop',
    endpoints: [{ endpoint_id: billing.id, display_name: 'A <&"> B' }, { endpoint_id: web.id }],
  });
  t.equal(page.status, 201);

  const badge = (id: string, kind: string, headers: Record<string, string> = {}) =>
    request(s.url, 'GET', `/badge/badge-shop/${id}/${kind}.svg`, { headers });
  // Move the app's clock past the cache window until the page shows both endpoints up with a
  // certificate and a failed check of Payments in its uptime.
  let movedAt = 0;
  const fresh = (pred: (b: any) => boolean) =>
    waitFor(
      async () => {
        const b = (await request(s.url, 'GET', '/status/badge-shop.json')).body;
        if (pred(b)) return b;
        if (Date.now() - movedAt >= 1000) {
          clock.advance(STATUS_PAGE_CACHE_SECONDS * 1000);
          movedAt = Date.now();
        }
        return false;
      },
      30_000,
      250,
    );
  await fresh((b) => b.endpoints.every((e: any) => e.status === 'up') && b.endpoints[1].certificate);
  plain.behave({ kind: 'status', code: 503 });
  await fresh((b) => b.endpoints[0].status === 'down');
  plain.behave({ kind: 'status', code: 200 });
  const view = await fresh((b) => b.endpoints[0].status === 'up' && b.endpoints[0].uptime_90d < 100);

  // Within the same cache window: the badges come from the read the JSON came from.
  const st = await badge(billing.id, 'status');
  t.equal(st.status, 200);
  t.match(st.headers.get('content-type'), /^image\/svg\+xml/);
  t.equal(st.headers.get('cache-control'), `public, max-age=${STATUS_PAGE_CACHE_SECONDS}`);
  t.equal(st.headers.get('x-content-type-options'), 'nosniff');
  t.equal(st.headers.get('cross-origin-resource-policy'), 'cross-origin', 'embeddable in other pages');
  t.match(st.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  t.same(texts(st.text), ['A &lt;&amp;&quot;&gt; B', 'up'], 'the display name, XML-escaped');
  t.notMatch(st.text, 'A <&"> B');
  t.notMatch(st.text, 'internal-billing', 'never the endpoint name');
  const v = view.endpoints[0].uptime_90d;
  t.ok(v > 0 && v < 100, `uptime ${v}`);
  for (const kind of ['uptime-24h', 'uptime-7d', 'uptime-30d']) {
    // Every check of this test is in the last hour, so every window holds all of them.
    const r = await badge(billing.id, kind);
    t.equal(r.status, 200, kind);
    t.same(texts(r.text), [kind.replace('-', ' '), `${v}%`], kind);
  }
  const rt = texts((await badge(billing.id, 'response-time')).text);
  t.equal(rt[0], 'response time');
  t.match(rt[1], /^\d+ ms$/);
  t.ok(Number.parseInt(rt[1]!, 10) < 2000, `${rt[1]} from a loopback target`);
  const days = view.endpoints[1].certificate.days_left;
  t.ok([39, 40].includes(days));
  t.same(texts((await badge(web.id, 'certificate')).text), ['certificate', `${days} days left`]);
  t.same(texts((await badge(billing.id, 'certificate')).text), ['certificate', 'n/a'], 'plain HTTP: none');
  t.same(texts((await badge(web.id, 'status')).text), ['Service 2', 'up'], 'the public name');

  // Conditional requests: the ETag of the badge.
  // (fetch adds Cache-Control: no-cache to a conditional request unless the request names its own.)
  const again = await badge(billing.id, 'status', {
    'cache-control': 'max-age=0',
    'if-none-match': st.headers.get('etag')!,
  });
  t.equal(again.status, 304);

  // Nothing a public page does not show: another endpoint of the team, an unknown page, a bad kind.
  for (const [path, what] of [
    [`/badge/badge-shop/${unlisted.id}/status.svg`, 'an endpoint of the team not on the page'],
    [`/badge/no-such-page/${billing.id}/status.svg`, 'an unknown page'],
    [`/badge/badge-shop/${billing.id}/secrets.svg`, 'an unknown kind'],
    [`/badge/badge-shop/not-a-uuid/status.svg`, 'a malformed endpoint id'],
    [`/badge/Bad_Slug/${billing.id}/status.svg`, 'a malformed slug'],
  ]) {
    const r = await request(s.url, 'GET', path!);
    t.equal(r.status, 404, what);
    t.match(r.headers.get('content-type'), /^image\/svg\+xml/, what);
    t.same(texts(r.text), ['badge', 'not found'], what);
  }

  // A disabled page shows nothing, so its badges are gone too (after the cache window).
  t.equal((await api.put(`/api/v1/status-pages/${page.body.id}`, { enabled: false })).status, 200);
  clock.advance(STATUS_PAGE_CACHE_SECONDS * 1000);
  t.equal((await badge(billing.id, 'status')).status, 404, 'a disabled page');
});
