// The web dashboard in a real browser (test/support/browser.ts): an open page shows a domain added
// through the API without a reload (the dashboard polls with If-None-Match: unchanged reads come back
// 304), and the Nodes page lists this node as GET /api/v1/nodes does. Skipped where chromium is missing.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { browser, firstPage, shot, signIn, skipBrowser as skip, watch, type PageGlobals } from '../support/browser.js';

t.setTimeout(120_000);
/** How often the dashboard's views poll (web/src/hooks.ts). */
const POLL_MS = 10_000;

t.test('live updates without reload; the Nodes page', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('live', 'live@example.com');
  const api = client(s.url, token);
  await api.post('/api/v1/domains', { domain: 'first.example' });

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  // The page's timers run on playwright's clock: it runs with real time, and each wait for a poll below
  // moves it on by one poll interval (POLL_MS in web/src/hooks.ts) instead of waiting 10 s for it.
  await page.clock.install();
  const problems = watch(page);
  const domainReads: number[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/domains' && r.request().method() === 'GET') domainReads.push(r.status());
  });
  await signIn(page, s.url, token);
  await page.goto(`${s.url}/#/domains`);
  const table = page.getByTestId('domains-table');
  await table.getByRole('link', { name: 'first.example' }).waitFor();
  // Marks this document: a reload would lose it.
  await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 42));

  // Unchanged polls: 304s with no body.
  const unchanged = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/domains' && r.status() === 304, {
    timeout: 25_000,
  });
  await page.clock.fastForward(POLL_MS);
  await unchanged;
  t.ok(domainReads.includes(200) && domainReads.includes(304), `reads: ${domainReads.join(' ')}`);

  // A domain added elsewhere (the API) shows in the open page.
  const added = Date.now();
  await api.post('/api/v1/domains', { domain: 'added-elsewhere.example' });
  await page.clock.fastForward(POLL_MS);
  await table.getByRole('link', { name: 'added-elsewhere.example' }).waitFor({ timeout: 25_000 });
  t.ok(
    Date.now() - added < 15_000,
    `shown ${Date.now() - added} ms (and one poll interval of the page clock) after it was added`,
  );
  t.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker), 42, 'no reload');
  t.equal(await table.locator('tbody tr').count(), 2);

  // The Nodes page, as the API answers this team's token: counts and regions, no node details (those
  // are the operator's: issue 38 item 8).
  const nodes = (await api.get('/api/v1/nodes')).body;
  t.equal(nodes.detail, 'summary');
  t.notOk('data' in nodes, "a team's token reads no node details");
  t.ok(nodes.regions.length >= 1, 'the app runs as a node');
  const region = nodes.regions[0];
  await page.getByRole('link', { name: 'Nodes', exact: true }).click();
  await page.getByRole('heading', { name: 'Nodes', level: 1 }).waitFor();
  const row = page
    .getByTestId('nodes-regions')
    .locator('tbody tr')
    .filter({ hasText: region.region || '—' });
  await row.waitFor();
  t.same(await row.locator('td').allInnerTexts(), [String(region.nodes), String(region.live)], 'nodes and live');
  await page.getByText('dommon token create --operator').waitFor();
  await page.getByText(`${nodes.live} of ${nodes.total} live`).waitFor();
  await shot(t, page, 'nodes');
  t.same(problems, [], 'no console error, CSP violation or failed request');
});
