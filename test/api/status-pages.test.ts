// Public status pages: the owner's API (CRUD, validation, slug conflicts, two teams), and the public
// page /status/<slug> (HTML) and /status/<slug>.json with real data from a real liveness check of a
// loopback target and a real TLS inspection: what it shows, what it must not leak, its headers, and
// that many views within the cache window cost one read of the store.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { waitFor } from '../support/wait.js';
import { runningClock } from '../support/clock.js';
import { STATUS_PAGE_CACHE_SECONDS } from '../../src/domain/status-page.js';

t.setTimeout(180_000);

const MISSING = '00000000-0000-4000-8000-000000000000';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

t.test('status page CRUD, validation, slug conflicts and team isolation', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const a = client(s.url, await s.token('alpha'));
  const b = client(s.url, await s.token('beta'));

  const p = (await a.post('/api/v1/portfolios', { name: 'Customer facing' })).body;
  const other = (await a.post('/api/v1/portfolios', { name: 'Internal' })).body;
  const d = (await a.post('/api/v1/domains', { domain: 'shop.example', portfolio_id: p.id })).body;
  const d2 = (await a.post('/api/v1/domains', { domain: 'intra.example', portfolio_id: other.id })).body;
  const e1 = (await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const e2 = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'api', endpoint_type: 'https', subdomain: 'api' })
  ).body;
  const e3 = (await a.post('/api/v1/endpoints', { domain_id: d2.id, name: 'wiki', endpoint_type: 'https' })).body;
  const bp = (await b.post('/api/v1/portfolios', { name: 'beta' })).body;
  const bd = (await b.post('/api/v1/domains', { domain: 'beta.example', portfolio_id: bp.id })).body;
  const be = (await b.post('/api/v1/endpoints', { domain_id: bd.id, name: 'web', endpoint_type: 'https' })).body;

  const c = await a.post('/api/v1/status-pages', {
    portfolio_id: p.id,
    slug: 'shop-status',
    title: 'Shop status',
    endpoints: [{ endpoint_id: e2.id, display_name: '  Public API ' }, { endpoint_id: e1.id }],
  });
  t.equal(c.status, 201);
  t.match(c.body, {
    portfolio_id: p.id,
    slug: 'shop-status',
    url: '/status/shop-status',
    title: 'Shop status',
    description: null,
    show_certificates: true,
    enabled: true,
  });
  t.same(c.body.endpoints, [
    { endpoint_id: e2.id, display_name: 'Public API', name: 'Public API', public_name: 'Public API' },
    { endpoint_id: e1.id, display_name: null, name: 'web', public_name: 'Service 2' },
  ]);
  const id = c.body.id as string;
  t.same((await a.get(`/api/v1/status-pages/${id}`)).body, c.body);

  // Validation: every refusal is a 400 with the spec body, naming the field.
  const base = { portfolio_id: p.id, title: 'T' };
  for (const [body, what] of [
    [{ ...base, slug: 'Shop' }, 'uppercase slug'],
    [{ ...base, slug: 'ab' }, 'short slug'],
    [{ ...base, slug: '-shop' }, 'leading hyphen'],
    [{ ...base, slug: 'shop-' }, 'trailing hyphen'],
    [{ ...base, slug: 'a'.repeat(65) }, 'long slug'],
    [{ ...base, slug: 'sh op' }, 'space'],
    [{ portfolio_id: p.id, slug: 'fine-slug' }, 'no title'],
    [{ ...base, slug: 'fine-slug', title: '   ' }, 'blank title'],
    [{ ...base, slug: 'fine-slug', secret: 1 }, 'unknown field'],
    [{ ...base, slug: 'fine-slug', endpoints: [{ endpoint_id: 'x' }] }, 'endpoint id not a uuid'],
    [{ ...base, slug: 'fine-slug', endpoints: [{ endpoint_id: e1.id, name: 'x' }] }, 'unknown endpoint field'],
    [{ ...base, slug: 'fine-slug', show_certificates: 'yes' }, 'not a boolean'],
  ] as const) {
    const r = await a.post('/api/v1/status-pages', body);
    t.equal(r.status, 400, what);
    t.equal(r.body.path, '/api/v1/status-pages', what);
  }
  const dup = await a.post('/api/v1/status-pages', {
    ...base,
    slug: 'fine-slug',
    endpoints: [{ endpoint_id: e1.id }, { endpoint_id: e1.id }],
  });
  t.equal(dup.status, 400);
  t.match(dup.body.error, /listed twice/);
  const outside = await a.post('/api/v1/status-pages', {
    ...base,
    slug: 'fine-slug',
    endpoints: [{ endpoint_id: e3.id }],
  });
  t.equal(outside.status, 400, "an endpoint of the team's other portfolio");
  t.equal(outside.body.code, 'ENDPOINT_NOT_IN_PORTFOLIO');
  for (const endpoint_id of [be.id, MISSING]) {
    const r = await a.post('/api/v1/status-pages', { ...base, slug: 'fine-slug', endpoints: [{ endpoint_id }] });
    t.equal(r.status, 404, "another team's endpoint answers as a missing one");
    t.equal(r.body.error, 'Endpoint not found');
  }
  for (const portfolio_id of [bp.id, MISSING]) {
    const r = await a.post('/api/v1/status-pages', { ...base, portfolio_id, slug: 'fine-slug' });
    t.equal(r.status, 404);
    t.equal(r.body.error, 'Portfolio not found');
  }
  t.equal((await a.get('/api/v1/status-pages')).body.total, 1, 'no refused create left a page behind');

  // Slugs are unique across the installation (they are public addresses).
  const taken = await b.post('/api/v1/status-pages', { portfolio_id: bp.id, slug: 'shop-status', title: 'Beta' });
  t.equal(taken.status, 409);
  t.equal(taken.body.code, 'SLUG_TAKEN');
  const bs = await b.post('/api/v1/status-pages', {
    portfolio_id: bp.id,
    slug: 'beta-status',
    title: 'Beta',
    endpoints: [{ endpoint_id: be.id }],
  });
  t.equal(bs.status, 201);
  const clash = await a.put(`/api/v1/status-pages/${id}`, { slug: 'beta-status' });
  t.equal(clash.status, 409);
  t.equal(clash.body.code, 'SLUG_TAKEN');

  // Another team's page: 404 on every verb, absent from lists; its own list holds only its page.
  for (const [m, body] of [
    ['GET', undefined],
    ['PUT', { title: 'stolen' }],
    ['DELETE', undefined],
  ] as const) {
    const r = await request(s.url, m, `/api/v1/status-pages/${id}`, { token: await s.token('beta'), body });
    t.equal(r.status, 404, `${m} of another team's page`);
    t.equal(r.body.error, 'Status page not found');
  }
  const bl = (await b.get('/api/v1/status-pages')).body;
  t.same(
    bl.data.map((x: { slug: string }) => x.slug),
    ['beta-status'],
  );
  t.equal((await a.get(`/api/v1/status-pages/${id}`)).body.title, 'Shop status', 'unchanged by the other team');

  // Update: fields given only; `endpoints` replaces the list; display names can be cleared.
  const u = await a.put(`/api/v1/status-pages/${id}`, {
    title: 'Shop',
    description: 'Our public services',
    show_certificates: false,
    endpoints: [{ endpoint_id: e1.id, display_name: 'Storefront' }],
  });
  t.equal(u.status, 200);
  t.match(u.body, { slug: 'shop-status', title: 'Shop', description: 'Our public services', show_certificates: false });
  t.same(u.body.endpoints, [
    { endpoint_id: e1.id, display_name: 'Storefront', name: 'Storefront', public_name: 'Storefront' },
  ]);
  t.ok(u.body.updated_at >= c.body.updated_at);
  // Moving the page to another portfolio checks the kept list against it.
  const move = await a.put(`/api/v1/status-pages/${id}`, { portfolio_id: other.id });
  t.equal(move.status, 400);
  t.equal(move.body.code, 'ENDPOINT_NOT_IN_PORTFOLIO');
  const moved = await a.put(`/api/v1/status-pages/${id}`, {
    portfolio_id: other.id,
    endpoints: [{ endpoint_id: e3.id }],
  });
  t.equal(moved.status, 200);
  t.equal(moved.body.portfolio_id, other.id);
  await a.put(`/api/v1/status-pages/${id}`, { portfolio_id: p.id, endpoints: [{ endpoint_id: e1.id }] });

  // Listing: both variants, pagination and the portfolio filter.
  await a.post('/api/v1/status-pages', { portfolio_id: other.id, slug: 'intra', title: 'Intra' });
  const l = (await a.get('/api/v1/status-pages?limit=1')).body;
  t.equal(l.total, 2);
  t.equal(l.pagination.has_more, true);
  t.equal(l.status_pages[0].slug, 'shop-status');
  t.same(
    (await a.get(`/api/v1/status-pages?portfolio_id=${other.id}`)).body.data.map((x: { slug: string }) => x.slug),
    ['intra'],
  );
  t.equal((await a.get('/api/v1/status-pages?portfolio_id=nope')).status, 400);
  t.equal((await a.get('/api/v1/status-pages/not-a-uuid')).status, 404);

  // An endpoint deleted is gone from the page; a portfolio deleted takes its pages along.
  await a.delete(`/api/v1/endpoints/${e1.id}`);
  t.same((await a.get(`/api/v1/status-pages/${id}`)).body.endpoints, []);
  await a.delete(`/api/v1/domains/${d2.id}`);
  t.equal((await a.delete(`/api/v1/portfolios/${other.id}`)).status, 200);
  t.same(
    (await a.get('/api/v1/status-pages')).body.data.map((x: { slug: string }) => x.slug),
    ['shop-status'],
  );

  const del = await a.delete(`/api/v1/status-pages/${id}`);
  t.equal(del.status, 200);
  t.equal(del.body.message, 'Status page deleted');
  t.equal(del.body.deleted_status_page.slug, 'shop-status');
  t.equal((await a.get(`/api/v1/status-pages/${id}`)).status, 404);
  t.equal((await request(s.url, 'GET', '/status/shop-status')).status, 404, 'its public page is gone at once');
  // Owner text is escaped, never markup.
  const x = await a.post('/api/v1/status-pages', {
    portfolio_id: p.id,
    slug: 'escaped',
    title: '<script>alert(1)</script> & "co"',
    description: "<img src=x onerror=alert('1')>",
  });
  t.equal(x.status, 201);
  const xh = await request(s.url, 'GET', '/status/escaped');
  t.match(xh.text, /<h1>&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;co&quot;<\/h1>/);
  t.match(xh.text, /&lt;img src=x onerror=alert\(&#39;1&#39;\)&gt;/);
  t.notMatch(xh.text, /<script|<img/);
  const head = await request(s.url, 'HEAD', '/status/escaped');
  t.equal(head.status, 200, 'HEAD answers like GET');
  t.equal(head.text, '');
  t.ok(head.headers.get('content-security-policy'));

  // The slug is free again.
  t.equal((await b.put(`/api/v1/status-pages/${bs.body.id}`, { slug: 'shop-status' })).status, 200);
  t.equal((await request(s.url, 'GET', '/status/shop-status.json')).body.title, 'Beta');
});

t.test('the public page: real data, nothing private, strict headers, one read per cache window', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Status Page Test CA');
  const plain = await startHttpTarget();
  const tls = await startHttpTarget({ tls: issue({ ca, cn: 'www.public-shop.example', toDays: 40 }) });
  // Real time, moved on past the page's cache window by the waits below instead of sleeping through it.
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
  const api = client(s.url, await s.token('Secret Team Name', 'owner@secret-team.example'));
  const p = (await api.post('/api/v1/portfolios', { name: 'Secret Portfolio Name' })).body;
  const d = (await api.post('/api/v1/domains', { domain: 'public-shop.example', portfolio_id: p.id })).body;
  const hidden = (await api.post('/api/v1/domains', { domain: 'hidden-domain.example' })).body;
  const mk = async (domain_id: string, body: Record<string, unknown>) =>
    (await api.post('/api/v1/endpoints', { domain_id, ...body })).body;
  const billing = await mk(d.id, {
    name: 'internal-billing-api',
    endpoint_type: 'http',
    port: plain.port,
    path: '/health',
  });
  const web = await mk(d.id, {
    name: 'internal-web-frontend',
    endpoint_type: 'https',
    subdomain: 'www',
    port: tls.port,
  });
  const unlisted = await mk(d.id, {
    name: 'internal-admin-panel',
    endpoint_type: 'http',
    port: plain.port,
    path: '/a',
  });
  const elsewhere = await mk(hidden.id, { name: 'internal-hidden-thing', endpoint_type: 'http', port: plain.port });
  // Payments is down at its first failing check; the others, which stay up throughout, only after three
  // (a TLS check that ran past its 2 s on a loaded machine once turned Website down: a major outage).
  for (const e of [billing, web, unlisted, elsewhere])
    t.equal(
      (
        await api.post('/api/v1/liveness', {
          endpoint_id: e.id,
          interval_seconds: 1,
          timeout_seconds: 2,
          failure_threshold: e === billing ? 1 : 3,
        })
      ).status,
      201,
    );
  const page = await api.post('/api/v1/status-pages', {
    portfolio_id: p.id,
    slug: 'public-shop',
    title: 'Public Shop status',
    description: 'Live status of the shop',
    endpoints: [
      { endpoint_id: billing.id, display_name: 'Payments' },
      { endpoint_id: web.id, display_name: 'Website' },
    ],
  });
  t.equal(page.status, 201);

  const json = async () => {
    const r = await request(s.url, 'GET', '/status/public-shop.json');
    t.equal(r.status, 200);
    return r.body;
  };
  // The service caches for 10 s (of the app's clock): each wait below moves the clock past the window
  // after an answer that does not yet show what it waits for, so the next read is a fresh one; at most
  // once a second, so the app's clock runs no more than ten times as fast as real time meanwhile.
  let movedAt = 0;
  const fresh = async (pred: (b: any) => boolean) => {
    let last: unknown;
    return waitFor(
      async () => {
        const b = await json();
        if (pred(b)) return b;
        last = b;
        if (Date.now() - movedAt >= 1000) {
          clock.advance(STATUS_PAGE_CACHE_SECONDS * 1000);
          movedAt = Date.now();
        }
        return false;
      },
      30_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the last answer: ${JSON.stringify(last)}`);
    });
  };

  const up = await fresh((b) => b.endpoints.every((e: any) => e.status === 'up') && b.endpoints[1].certificate);
  t.equal(up.status, 'operational');
  t.same(
    up.endpoints.map((e: any) => e.name),
    ['Payments', 'Website'],
    'only the listed endpoints, in order, under their display names',
  );
  t.ok([39, 40].includes(up.endpoints[1].certificate.days_left), `${up.endpoints[1].certificate.days_left} days left`);
  t.match(up.endpoints[1].certificate.expires_on, /^\d{4}-\d{2}-\d{2}$/);
  const today = new Date().toISOString().slice(0, 10);
  for (const e of up.endpoints) {
    t.equal(e.days.length, 90);
    t.equal(e.days[89].date, today);
    t.equal(e.days[89].uptime, 100);
    t.equal(e.days[0].uptime, null, '89 days ago: no checks');
    t.equal(e.uptime_90d, 100);
  }

  // Payments goes down and comes back: an incident, from the recorded down/recovery events.
  plain.behave({ kind: 'status', code: 503 });
  const down = await fresh((b) => b.endpoints[0].status === 'down');
  t.equal(down.status, 'partial_outage');
  t.match(down.incidents, [{ endpoint: 'Payments', resolved_at: null, duration_seconds: null }]);
  t.ok(down.endpoints[0].days[89].uptime < 100);
  plain.behave({ kind: 'status', code: 200 });
  const back = await fresh((b) => b.endpoints[0].status === 'up' && b.incidents[0]?.resolved_at);
  t.equal(back.incidents.length, 1);
  const inc = back.incidents[0];
  t.equal(inc.endpoint, 'Payments');
  t.ok(inc.started_at < inc.resolved_at);
  t.equal(inc.duration_seconds, Math.round((Date.parse(inc.resolved_at) - Date.parse(inc.started_at)) / 1000));
  t.ok(back.endpoints[0].uptime_90d > 0 && back.endpoints[0].uptime_90d < 100);

  const html = await request(s.url, 'GET', '/status/public-shop');
  t.equal(html.status, 200);
  t.match(html.headers.get('content-type'), /^text\/html; charset=utf-8/);
  const body = html.text;
  t.match(body, /<h1>Public Shop status<\/h1>/);
  t.match(body, /Live status of the shop/);
  t.match(body, /<main>/);
  t.match(body, /<header>/);
  t.match(body, /<footer>/);
  t.match(body, /<h2 id="h-endpoints">Endpoints<\/h2>/);
  t.match(body, /<span>Payments<\/span> <span class="state up">Up<\/span>/);
  t.match(body, /<span>Website<\/span> <span class="state up">Up<\/span>/);
  t.match(body, /Certificate: (39|40) day\(s\) left/);
  t.match(body, /90 days: \d+\.\d{2} % uptime/, 'a textual uptime percentage');
  t.match(body, /Payments<\/strong> down from <time datetime="[^"]+">/);
  // Each endpoint's 90 bars are one image with a text alternative naming the weak days, and each bar
  // has a tooltip with its date and share.
  const bars = [...body.matchAll(/<span class="u-[a-z]+" title="\d{4}-\d{2}-\d{2}: (\d+\.\d{2} %|no data)"><\/span>/g)];
  t.equal(bars.length, 180, '90 bars per endpoint, each with a title');
  t.match(body, new RegExp(`title="${today}: \\d+\\.\\d{2} %"`));
  t.match(
    body,
    new RegExp(
      `<div class="bars" role="img" aria-label="Daily uptime of Payments, last 90 days: \\d+\\.\\d{2} %\\. 1 day\\(s\\) under 99\\.5 %: ${today} \\d+\\.\\d{2} %\\.">`,
    ),
  );
  t.match(body, /aria-label="Daily uptime of Website, last 90 days: /);
  // Compressed for clients that take gzip (fetch does), plain for those that do not; same text.
  t.equal(html.headers.get('content-encoding'), 'gzip');
  const plainText = await request(s.url, 'GET', '/status/public-shop', { headers: { 'accept-encoding': 'identity' } });
  t.equal(plainText.headers.get('content-encoding'), null);
  const noFooter = (x: string) => x.replace(/<footer>[\s\S]*<\/footer>/, '');
  t.equal(
    noFooter(plainText.text),
    noFooter(body),
    'the same page (read again, at most, should the window have passed)',
  );
  t.not(plainText.headers.get('etag'), html.headers.get('etag'), 'one ETag per representation');

  // Nothing private: no ids, no team, portfolio, internal names, hosts, ports or unlisted endpoints.
  for (const [what, text] of [
    ['html', body],
    ['json', JSON.stringify(back)],
  ] as const) {
    t.notMatch(text, UUID, `${what}: no ids`);
    for (const secret of [
      'Secret Team Name',
      'secret-team',
      'Secret Portfolio Name',
      'internal-',
      'public-shop.example',
      'hidden-domain',
      '127.0.0.1',
      `:${plain.port}`,
      `:${tls.port}`,
      '/health',
      'Status Page Test CA',
    ])
      t.notOk(text.includes(secret), `${what}: does not contain ${secret}`);
    // The failing check's status code, not digits of a time's milliseconds (".503Z") or of a share.
    t.notMatch(text, /(?<![.\d])503(?!\d)/, `${what}: does not contain the failure's status code 503`);
  }
  t.notMatch(body, /<script/i, 'no script');
  t.notMatch(body, /<style|\sstyle=/i, 'no inline style');
  t.notMatch(body, /https?:\/\//, 'nothing from the internet');
  t.same(
    [...body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
    ['/status/assets/status-page.css'],
  );

  // Headers: a strict CSP and the usual security headers, on the page, its JSON and its 404.
  const unknown = await request(s.url, 'GET', '/status/no-such-page');
  for (const r of [html, unknown, await request(s.url, 'GET', '/status/public-shop.json')]) {
    const h = r.headers;
    t.equal(
      h.get('content-security-policy'),
      "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    t.equal(h.get('x-content-type-options'), 'nosniff');
    t.equal(h.get('referrer-policy'), 'no-referrer');
    t.equal(h.get('x-frame-options'), 'DENY');
    t.equal(h.get('cache-control'), 'public, max-age=10');
  }
  t.ok(html.headers.get('etag'));
  t.ok(html.headers.get('last-modified'));
  // fetch adds Cache-Control: no-cache to a conditional request unless the request names its own.
  const revalidate = { 'cache-control': 'max-age=0' };
  const again = await request(s.url, 'GET', '/status/public-shop', {
    headers: { ...revalidate, 'if-none-match': html.headers.get('etag')! },
  });
  t.equal(again.status, 304);
  t.equal(again.text, '');
  const since = await request(s.url, 'GET', '/status/public-shop.json', {
    headers: { ...revalidate, 'if-modified-since': html.headers.get('last-modified')! },
  });
  t.equal(since.status, 304, 'If-Modified-Since too');
  const css = await request(s.url, 'GET', '/status/assets/status-page.css');
  t.equal(css.status, 200);
  t.match(css.headers.get('content-type'), /^text\/css/);
  t.match(css.text, /prefers-color-scheme: dark/);
  t.equal(
    (
      await request(s.url, 'GET', '/status/assets/status-page.css', {
        headers: { ...revalidate, 'if-none-match': css.headers.get('etag')! },
      })
    ).status,
    304,
  );

  // Cost: many views within the window, concurrent and one after another, HTML and JSON: one read.
  const svc = s.app.services.statusPages;
  await api.put(`/api/v1/status-pages/${page.body.id}`, { title: 'Public Shop' }); // empties this slug's entry
  const before = svc.publicReads();
  const viewsStarted = Date.now();
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      request(s.url, 'GET', i % 2 ? '/status/public-shop' : '/status/public-shop.json'),
    ),
  );
  for (let i = 0; i < 50; i++) t.equal((await request(s.url, 'GET', '/status/public-shop')).status, 200);
  // One read per cache window the views spanned: one, unless a loaded machine took longer than the
  // window (10 s) for the hundred.
  const windows = 1 + Math.floor((Date.now() - viewsStarted) / (STATUS_PAGE_CACHE_SECONDS * 1000));
  const reads = svc.publicReads() - before;
  t.ok(reads >= 1 && reads <= windows, `100 views, ${reads} read(s) in ${windows} window(s)`);
  t.match(
    (await request(s.url, 'GET', '/status/public-shop')).text,
    /<h1>Public Shop<\/h1>/,
    'an update shows at once',
  );
  // Unknown slugs are cached alike; malformed ones never reach the store.
  const u0 = svc.publicReads();
  for (let i = 0; i < 20; i++) await request(s.url, 'GET', '/status/made-up-page');
  t.equal(svc.publicReads() - u0, 1, 'an unknown slug: one read for 20 views');
  for (const bad of ['/status/AB', '/status/a', '/status/x%00y', '/status/..%2F..'])
    t.equal((await request(s.url, 'GET', bad)).status, 404, bad);
  t.equal(svc.publicReads() - u0, 1, 'malformed slugs: no read');

  // A disabled page answers exactly as an unknown one (no existence oracle).
  await api.put(`/api/v1/status-pages/${page.body.id}`, { enabled: false });
  const off = await request(s.url, 'GET', '/status/public-shop');
  const none = await request(s.url, 'GET', '/status/never-existed');
  t.equal(off.status, 404);
  t.equal(off.text, none.text);
  t.match(off.text, /Status page not found/);
  t.same([...off.headers.keys()].sort(), [...none.headers.keys()].sort());
  const offJson = await request(s.url, 'GET', '/status/public-shop.json');
  const noneJson = await request(s.url, 'GET', '/status/never-existed.json');
  t.equal(offJson.status, 404);
  const strip = (b: any) => ({ ...b, timestamp: undefined, path: undefined });
  t.same(strip(offJson.body), strip(noneJson.body));
  t.same(strip(offJson.body), { error: 'Status page not found', code: 'NOT_FOUND' });
  await api.put(`/api/v1/status-pages/${page.body.id}`, { enabled: true, show_certificates: false });
  const noCert = await json();
  t.same(
    noCert.endpoints.map((e: any) => e.certificate),
    [null, null],
    'show_certificates false hides them',
  );
});

t.test('an endpoint without a display name is "Service N" on the public page, never its own name', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const a = client(s.url, await s.token('alpha'));
  const p = (await a.post('/api/v1/portfolios', { name: 'Billing' })).body;
  const d = (await a.post('/api/v1/domains', { domain: 'internal.corp', portfolio_id: p.id })).body;
  const internal = 'db-admin.internal.corp:5432 prod billing';
  const e1 = (await a.post('/api/v1/endpoints', { domain_id: d.id, name: internal, endpoint_type: 'https' })).body;
  const e2 = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https', subdomain: 'www' })
  ).body;
  const e3 = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'pay-gw-7', endpoint_type: 'https', subdomain: 'pay' })
  ).body;
  const c = await a.post('/api/v1/status-pages', {
    portfolio_id: p.id,
    slug: 'billing',
    title: 'Billing',
    endpoints: [{ endpoint_id: e1.id }, { endpoint_id: e2.id, display_name: 'Website' }, { endpoint_id: e3.id }],
  });
  t.equal(c.status, 201);
  t.same(
    c.body.endpoints.map((e: { name: string; public_name: string }) => [e.name, e.public_name]),
    [
      [internal, 'Service 1'],
      ['Website', 'Website'],
      ['pay-gw-7', 'Service 3'],
    ],
    'the owner sees both the own name and what the public page shows',
  );
  const json = await request(s.url, 'GET', '/status/billing.json');
  t.equal(json.status, 200);
  t.same(
    json.body.endpoints.map((e: { name: string }) => e.name),
    ['Service 1', 'Website', 'Service 3'],
  );
  const html = await request(s.url, 'GET', '/status/billing');
  t.equal(html.status, 200);
  t.match(html.text, /Service 1/);
  for (const leak of ['db-admin', 'internal.corp', '5432', 'pay-gw-7', 'prod billing']) {
    t.notOk(html.text.includes(leak), `the HTML does not show ${leak}`);
    t.notOk(json.text.includes(leak), `the JSON does not show ${leak}`);
  }
});
