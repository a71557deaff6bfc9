// What the dashboard shows when a read fails, in a real browser (chromium, as in browser.test.ts): a
// 429 from the session's own rate-limit budget (spent for real, then renewed by moving the app's
// clock past the window) and a network error (the browser offline) each show as an alert saying what
// happened, with a Retry button that reads again; and an endpoint that never answered (every check
// failed) shows `0.00 %` with no average response time, on its page and on the Home, and no
// certificate line for plain http. Skipped, saying so, where chromium is missing.
import net from 'node:net';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { freshWindowClock } from '../support/clock.js';
import { startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import { browser, firstPage, signIn, skipBrowser as skip, watch, type PageGlobals } from '../support/browser.js';

t.setTimeout(120_000);

t.test('a 429 and a network error are shown, each with a Retry that reads again', { skip }, async (t) => {
  // A second into a fixed one-minute window: the budget spent below is still spent when the page reads
  // (a loaded host's spend that ended as the minute turned left the page a new budget and no 429).
  const clock = freshWindowClock();
  // 2 a minute for tokens: the dashboard session's budget is 5 times that (10 reads a minute).
  const s = await startApp({ DOMMON_RATE_LIMIT: '2' }, { clock });
  t.teardown(() => s.close());
  const token = await s.token('errors', 'owner@example.com');
  const api = client(s.url, token);
  t.equal((await api.post('/api/v1/portfolios', { name: 'Shop' })).status, 201);

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);
  await page.getByTestId('home-empty').waitFor();
  await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 42));

  // Spend the session's budget for this minute with its own cookie, as more open pages would.
  const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const statuses: number[] = [];
  for (let i = 0; i < 20 && statuses.at(-1) !== 429; i++)
    statuses.push((await fetch(`${s.url}/api/v1/portfolios`, { headers: { cookie } })).status);
  t.equal(statuses.at(-1), 429, `the session's budget is spent (${statuses.join(' ')})`);

  await page.getByRole('link', { name: 'Portfolios', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Too many requests for now' });
  await alert.waitFor();
  t.match(
    await alert.innerText(),
    /Too many requests for now: try again in \d+ s\./,
    'the 429 in words, with the wait',
  );
  t.equal(await page.getByTestId('portfolios-table').count(), 0, 'no table of dashes');
  // A new window: the same Retry button reads again, and the page shows.
  clock.advance(60_000);
  await alert.getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('portfolios-table').getByText('Shop').waitFor();
  t.equal(await alert.count(), 0, 'the alert is gone');

  // The network gone: the next view says the server cannot be reached; back online, Retry reads it.
  await ctx.setOffline(true);
  await page.getByRole('link', { name: 'Domains', exact: true }).click();
  const lost = page.getByRole('alert').filter({ hasText: 'cannot be reached' });
  await lost.waitFor();
  t.match(await lost.innerText(), /The dommon server cannot be reached \(network error\)\./);
  await ctx.setOffline(false);
  await lost.getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('empty').getByText('No domains yet').waitFor();
  t.equal(await lost.count(), 0, 'the alert is gone');
  t.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker), 42, 'no reload');
  // The browser logs the refused and the failed loads; nothing else went wrong.
  t.same(
    problems.filter((p) => !/status of 429|ERR_INTERNET_DISCONNECTED/.test(p)),
    [],
    `no other console error or failed request: ${problems.join('; ')}`,
  );
});

t.test('an endpoint that never answered: 0.00 %, no average response, no certificate line', { skip }, async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  // A port nothing listens on: every check is refused.
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('never', 'owner@example.com');
  const api = client(s.url, token);
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'web',
      endpoint_type: 'http',
      port,
      liveness: { interval_seconds: 1, timeout_seconds: 1 },
    })
  ).body;
  // Checks failed and their times averaged: the figure the page must not show as a response time.
  const status = await waitFor(async () => {
    const l = (await api.get(`/api/v1/endpoints/${ep.id}/status`)).body.liveness;
    return l.status === 'down' && l.uptime_24h === 0 && l.avg_response_time_ms !== null && l;
  }, 30_000);
  t.equal(status.uptime_24h, 0);

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);
  const row = page.locator('[data-testid="home-row"][data-name="web"][data-state="down"]');
  await row.waitFor({ timeout: 15_000 });
  const cells = await row.locator('td').allInnerTexts();
  t.ok(cells.includes('0.00 %'), `the Home row's uptime (${cells.join(' | ')})`);
  t.notOk(
    cells.some((c) => /\d+ ms/.test(c)),
    'no response time on the Home row of an endpoint that never answered',
  );
  t.ok(cells.includes('no TLS'), 'plain http: no TLS, not a days-left dash');

  await row.getByRole('link', { name: 'web' }).click();
  const statusCard = page.getByRole('region', { name: 'Status' });
  await statusCard.waitFor();
  t.equal(await statusCard.locator('dt:text-is("Uptime 24 h") + dd').innerText(), '0.00 %');
  t.equal(await statusCard.locator('dt:text-is("Average response") + dd').innerText(), '—', 'no average at 0 %');
  t.equal(await page.getByRole('region', { name: 'Certificate' }).count(), 0, 'no certificate card for plain http');
  t.notMatch(await page.locator('main').innerText(), /Certificate unknown/, 'no "Certificate unknown" line');
  t.same(problems, [], 'no console error, CSP violation or failed request');
});
