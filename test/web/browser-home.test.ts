// The Home and an endpoint's "why is it down" in a real browser (test/support/browser.ts): an
// endpoint probed every second by a loopback target goes down (the target stops answering), and the
// open Home shows it down with its reason without a reload, pushed by the live feed (/ui/live), then
// up again when the target answers; a domain added through the API appears the same way. Filters
// and natural sort; the endpoint's page with its reason, incident, check history and ranged chart.
// The reason shows on the domain's endpoint table and the Overview too.
// Screenshots: home.png, home-down.png, endpoint-why.png. Skipped where chromium is missing.
import net from 'node:net';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import { browser, firstPage, shot, signIn, skipBrowser as skip, watch, type PageGlobals } from '../support/browser.js';

t.setTimeout(180_000);

/** A loopback HTTP server that answers 200, or (stopped) refuses connections on the same port. */
async function switchableTarget() {
  const answer = (sock: net.Socket) => {
    sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'));
    sock.on('error', () => undefined);
  };
  let server = net.createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
    },
    async start() {
      server = net.createServer(answer);
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

t.test('the Home shows an endpoint go down with its reason and come back, without a reload', { skip }, async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const target = await switchableTarget();
  let targetUp = true;
  t.teardown(() => (targetUp ? target.close() : undefined));
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('home', 'home@example.com');
  const api = client(s.url, token);
  const shop = (await api.post('/api/v1/portfolios', { name: 'Shop' })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'example-2.com', portfolio_id: shop.id })).body;
  await api.post('/api/v1/domains', { domain: 'example-10.com' });
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: d2.id,
      name: 'web',
      endpoint_type: 'http',
      port: target.port,
      liveness: { interval_seconds: 1, timeout_seconds: 1 },
    })
  ).body;
  const status = async () => (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body.status;
  await waitFor(async () => (await status()) === 'up', 20_000);

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);
  const summary = page.getByTestId('home-summary');
  await summary.getByText('1 up').waitFor();
  const names = async () =>
    Promise.all((await page.getByTestId('home-row').all()).map((r) => r.getAttribute('data-name')));
  t.same(await names(), ['example-2.com', 'web', 'example-10.com'], 'natural order: example-2 before example-10');
  const row = page.locator('[data-testid="home-row"][data-name="web"]');
  await row.getByTestId('beats').waitFor();
  await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 42));
  await shot(t, page, 'home');
  // From here the page reads only the rows the live feed names as changed, never its whole list.
  const homeReads: URL[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/v1/home') homeReads.push(u);
  });

  // The target stops answering: the open page shows it down, with the reason, pushed by the feed.
  const stopped = Date.now();
  await target.stop();
  targetUp = false;
  await page.locator('[data-testid="home-row"][data-name="web"][data-state="down"]').waitFor({ timeout: 30_000 });
  t.ok(true, `shown down ${Date.now() - stopped} ms after the target stopped`);
  // The reason in words (waited for: on a loaded host a check timed out at 1 s just before the target
  // stopped, and the row showed that reason first).
  await row
    .getByTestId('reason')
    .getByText('Connection refused: nothing answers on that port')
    .waitFor({ timeout: 30_000 });
  t.equal(
    await row.getByTestId('reason').innerText(),
    'Connection refused: nothing answers on that port',
    'the reason, in words',
  );
  await summary.getByText('1 down').waitFor();
  t.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker), 42, 'no reload');
  t.ok(homeReads.length > 0, 'the Home read the change');
  // (The domain's own row may change too, as its first DNS look-ups settle.)
  const asked = homeReads.map((u) => u.searchParams.get('ids'));
  t.same(
    asked.filter((ids) => ids === null || ids.split(',').some((id) => ![ep.id, d2.id].includes(id))),
    [],
    `each read since named the changed rows, no whole list (${homeReads.map((u) => u.search).join(' ')})`,
  );
  t.ok(
    asked.some((ids) => ids?.split(',').includes(ep.id)),
    'the endpoint that went down was read',
  );
  await shot(t, page, 'home-down');

  // Filters: only what is down; a text that matches nothing says what to do.
  await page.getByLabel('State').selectOption('down');
  await page.waitForFunction(() => {
    const g = globalThis as unknown as PageGlobals;
    return [...g.document.querySelectorAll('[data-testid="home-row"]')].length === 1;
  });
  t.same(await names(), ['web']);
  await page.getByLabel('State').selectOption('');
  await page.getByLabel('Search').fill('nothing-like-this');
  await page.getByTestId('home-empty').getByRole('button', { name: 'Clear the filters' }).click();
  await row.waitFor();

  // The endpoint's page: why it is down, the incident, the history, the chart of failures.
  await row.getByRole('link', { name: 'web' }).click();
  await page.getByRole('heading', { name: 'web', level: 1 }).waitFor();
  t.match(await page.getByTestId('down-reason').innerText(), /Connection refused/);
  await page.getByTestId('incidents').getByText('Down now').waitFor();
  // The history says it in the same words as the reason above (the stored error on hover).
  const failedCheck = page
    .getByTestId('check-history')
    .getByText('Connection refused: nothing answers on that port', { exact: true })
    .first();
  await failedCheck.waitFor();
  t.equal(await failedCheck.getAttribute('title'), 'refused: connection refused', 'the stored error on hover');
  await page.getByRole('button', { name: '1 h' }).click();
  t.match(await page.getByTestId('range-summary').innerText(), /checks, [1-9]\d* failed/, 'the failures are counted');
  await page.getByTestId('chart').locator('canvas').waitFor();
  t.equal(
    await page.getByRole('link', { name: 'example-2.com' }).getAttribute('href'),
    `#/domains/${d2.id}`,
    'back to its domain',
  );
  t.equal(
    await page.getByRole('heading', { name: 'Certificate', exact: true }).count(),
    0,
    'no certificate for plain http',
  );
  await shot(t, page, 'endpoint-why');
  // The same words beside it on its domain's endpoint table and in the Overview's list of what is down.
  await page.getByRole('link', { name: 'example-2.com' }).click();
  const epRow = page.getByTestId('endpoints-table').locator('tbody tr', { hasText: 'web' });
  // (Waited for by its words: on a loaded host one of the 1 s checks may time out instead, and the
  // reason shown is the last check's until the next one is refused again.)
  await epRow.getByTestId('reason').filter({ hasText: 'Connection refused' }).waitFor();
  t.match(
    await epRow.getByTestId('endpoint-state').innerText(),
    /^down\s+Connection refused: nothing answers on that port$/,
    "the domain's endpoint table: down, and why",
  );
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  const downNow = page.getByRole('region', { name: 'Endpoints down now' });
  await downNow.getByTestId('reason').filter({ hasText: 'Connection refused' }).waitFor();
  t.equal(
    await downNow.getByTestId('reason').innerText(),
    'Connection refused: nothing answers on that port',
    'the Overview: why it is down',
  );

  // It answers again: the Home shows it up without a reload, and a domain added through the API.
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await target.start();
  targetUp = true;
  await page.locator('[data-testid="home-row"][data-name="web"][data-state="up"]').waitFor({ timeout: 30_000 });
  await api.post('/api/v1/domains', { domain: 'added-by-api.com' });
  await page.locator('[data-testid="home-row"][data-name="added-by-api.com"]').waitFor({ timeout: 15_000 });
  t.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker), 42, 'still no reload');
  await page.getByRole('link', { name: 'web' }).click();
  // At least one closed incident: on a loaded machine a probe of the 1 s timeout can fail on its own and
  // open one more.
  await page
    .getByTestId('incidents')
    .getByText(/Down from .* to /)
    .first()
    .waitFor({ timeout: 15_000 });
  t.same(problems, [], 'no console error, CSP violation or failed request');
});

t.test('ticked Home rows are paused, resumed and removed, one request per action', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  // The endpoints' own checks are not the subject here.
  await s.app.probing.stop(0);
  const token = await s.token('bulk', 'bulk@example.com');
  const api = client(s.url, token);
  const d1 = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const add = async (domainId: string, name: string, liveness = true) =>
    (
      await api.post('/api/v1/endpoints', {
        domain_id: domainId,
        name,
        endpoint_type: 'https',
        ...(liveness && { liveness: { interval_seconds: 60 } }),
      })
    ).body;
  const a = await add(d1.id, 'a');
  const b = await add(d1.id, 'b');
  const c = await add(d2.id, 'c');
  const bare = await add(d2.id, 'bare', false);
  const enabled = async (id: string) =>
    (await api.get(`/api/v1/liveness?endpoint_id=${id}`)).body.data[0]?.is_enabled as boolean | undefined;

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  const writes: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/v1/')) writes.push(new URL(r.url()).pathname);
    if (['PUT', 'DELETE'].includes(r.method()) && r.url().includes('/api/v1/')) writes.push(r.method());
  });
  await signIn(page, s.url, token);
  const row = (name: string) => page.locator(`[data-testid="home-row"][data-name="${name}"]`);
  await row('bare').waitFor();
  t.equal(await row('example.com').getByRole('checkbox').count(), 0, 'a domain row has no tick');

  // Two endpoints of two domains: paused with one request.
  await page.getByLabel('Select a', { exact: true }).check();
  await page.getByLabel('Select c', { exact: true }).check();
  await page.getByText('2 selected:').waitFor();
  await page.getByRole('button', { name: 'Pause checks' }).click();
  await page.getByText('Paused 2 endpoints.').waitFor();
  await row('a').and(page.locator('[data-state="paused"]')).waitFor();
  await row('c').and(page.locator('[data-state="paused"]')).waitFor();
  t.same([await enabled(a.id), await enabled(b.id), await enabled(c.id)], [false, true, false], 'a and c paused');
  t.same(writes, ['/api/v1/endpoints/bulk-actions'], 'one request for both');
  // Nothing up or down, two paused: the summary leads with that, not with "0 up / 0 down".
  await page.getByTestId('summary-paused').getByText('2 paused').waitFor();
  t.notMatch(await page.getByTestId('home-summary').innerText(), /0 up/, 'no "0 up" when all that runs is paused');
  await page.getByText('0 selected:').waitFor();

  // Every endpoint of the page: the one without checks is named with the reason, the others resumed.
  await page.getByLabel('Select every endpoint on this page').check();
  await page.getByText('4 selected:').waitFor();
  await shot(t, page, 'home-bulk');
  await page.getByRole('button', { name: 'Resume checks' }).click();
  const failure = page.getByRole('alert');
  await failure.waitFor();
  t.equal(
    await failure.innerText(),
    'Resumed 3 of 4; bare: the endpoint has no liveness checks to pause or resume',
    'how many were done, and why one was not',
  );
  t.same([await enabled(a.id), await enabled(b.id), await enabled(c.id)], [true, true, true], 'all resumed');
  t.equal(writes.length, 2, 'one request for four');

  // Remove, after a confirmation.
  page.once('dialog', (dlg) => void dlg.accept());
  await page.getByLabel('Select b', { exact: true }).check();
  await page.getByLabel('Select bare', { exact: true }).check();
  await page.getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Removed 2 endpoints.').waitFor();
  await row('b').waitFor({ state: 'detached' });
  await row('bare').waitFor({ state: 'detached' });
  t.equal((await api.get(`/api/v1/endpoints/${b.id}`)).status, 404, 'b removed');
  t.equal((await api.get(`/api/v1/endpoints/${bare.id}`)).status, 404, 'bare removed');
  t.equal((await api.get(`/api/v1/endpoints/${a.id}`)).status, 200, 'a stays');
  t.same(writes, Array(3).fill('/api/v1/endpoints/bulk-actions'), 'one request per action, none per row');
  t.same(problems, [], 'no console error, CSP violation or failed request');
});

t.test('an endpoint in a maintenance window: its state, the count and the filter on the Home', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('upkeep', 'upkeep@example.com');
  const api = client(s.url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const made = [];
  for (const name of ['api', 'web'])
    made.push(
      (
        await api.post('/api/v1/endpoints', {
          domain_id: d.id,
          name,
          endpoint_type: 'https',
          subdomain: name,
          liveness: { interval_seconds: 3600 },
        })
      ).body,
    );
  const now = Date.now();
  t.equal(
    (
      await api.post('/api/v1/maintenance-windows', {
        name: 'upgrade',
        starts_at: new Date(now - 60_000).toISOString(),
        ends_at: new Date(now + 3_600_000).toISOString(),
        endpoint_ids: [made[1].id],
      })
    ).status,
    201,
  );
  t.equal((await api.get(`/api/v1/home?ids=${made[1].id}`)).body.data[0].state, 'maintenance', 'the API says so first');

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);
  const web = page.locator('[data-testid="home-row"][data-name="web"]');
  await web.and(page.locator('[data-state="maintenance"]')).waitFor();
  t.equal(await web.locator('.badge').first().innerText(), 'maintenance', 'its badge');
  t.match(await page.getByTestId('home-summary').innerText(), /· 1 in maintenance ·/, 'counted on top');
  await page.getByLabel('State').selectOption('maintenance');
  await waitFor(async () => (await page.getByTestId('home-row').count()) === 1, 10_000);
  t.equal(
    await page.getByTestId('home-row').getAttribute('data-name'),
    'web',
    'the filter: only the one in maintenance',
  );
  t.same(problems, [], 'no console error, CSP violation or failed request');
});
