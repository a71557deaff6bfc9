// The whole story in one browser session, as a person new to dommon lives it (issue 41's words): sign
// in; create a portfolio, a domain in it, an https endpoint with an interval and a failure
// threshold, a webhook channel and a status page, all from the forms; see the endpoint go down on the
// Home with its reason, pushed by the live feed, and come back, with the incident and its alert on the
// endpoint's page; pause it from the Home; and see a change made through the API appear without a
// reload. The same page all along: a marker set in it survives. (browser-setup.test.ts and browser-home.test.ts go deeper into each part.)
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { issue, makeCa } from '../support/certs.js';
import { browser, firstPage, signIn, skipBrowser as skip, watch, type PageGlobals } from '../support/browser.js';

t.setTimeout(180_000);

t.test(
  'sign in, set everything up, see an outage and its recovery, pause, a change from the API',
  { skip },
  async (t) => {
    const dns = await startLoopbackDns();
    t.teardown(() => dns.close());
    const rx = await startWebhookReceiver();
    t.teardown(() => rx.close());
    const ca = makeCa('Story Root');
    const target = await startHttpTarget({ tls: issue({ ca, cn: 'www.example.com', toDays: 90 }) });
    t.teardown(() => target.close());
    const s = await startApp(
      { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000', DOMMON_NOTIFY_INTERVAL: '1' },
      { probes: { ca: ca.cert } },
    );
    t.teardown(() => s.close());
    const token = await s.token('story', 'story@example.com');
    const api = client(s.url, token);

    const ctx = await browser(t);
    const page = await firstPage(ctx);
    const problems = watch(page);
    const marker = () => page.evaluate(() => (globalThis as unknown as PageGlobals).marker);
    // Sign in: the Home comes first, empty, saying what to do.
    await signIn(page, s.url, token);
    await page.getByTestId('home-empty').getByText('Nothing is monitored yet').waitFor();
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 42));
    const go = (name: string) => page.getByRole('link', { name, exact: true }).first().click();

    // A portfolio.
    await go('Portfolios');
    const addPortfolio = page.getByRole('form', { name: 'Add a portfolio' });
    await addPortfolio.getByLabel('Name').fill('Production');
    await addPortfolio.getByRole('button', { name: 'Add portfolio' }).click();
    await page.getByTestId('portfolios-table').getByText('Production').waitFor();

    // A domain in it.
    await go('Domains');
    const addDomain = page.getByRole('form', { name: 'Add a domain' });
    await addDomain.getByLabel('Domain name').fill('example.com');
    await addDomain.getByLabel('Portfolio').selectOption({ label: 'Production' });
    await addDomain.getByRole('button', { name: 'Add domain' }).click();
    await page.getByTestId('domains-table').getByRole('link', { name: 'example.com' }).click();
    await page.getByRole('heading', { name: 'example.com', level: 1 }).waitFor();

    // An https endpoint on it, checked every second, down after 2 failed checks.
    const addEndpoint = page.getByRole('form', { name: 'Add an endpoint' });
    await addEndpoint.getByLabel(/^Name( \(required\))?$/).fill('web');
    await addEndpoint.getByLabel('Endpoint type').selectOption('https');
    await addEndpoint.getByLabel('Subdomain').fill('www');
    await addEndpoint.getByLabel(/^Port/).fill(String(target.port));
    await addEndpoint.getByLabel('Interval seconds').fill('1');
    await addEndpoint.getByLabel('Failure threshold').fill('2');
    await addEndpoint.getByRole('button', { name: 'Add endpoint' }).click();
    await addEndpoint.getByText('Added web.').waitFor();
    const ep = (await api.get('/api/v1/endpoints')).body.data[0];
    t.match(ep, { name: 'web', endpoint_type: 'https', subdomain: 'www', port: target.port });
    const live = (await api.get(`/api/v1/liveness?endpoint_id=${ep.id}`)).body.data[0];
    t.match(live, { interval_seconds: 1, failure_threshold: 2, is_enabled: true });

    // A webhook channel.
    await go('Notifications');
    await page.getByRole('button', { name: 'Add a channel…' }).click();
    const channelForm = page.getByRole('form', { name: 'Set up a channel' });
    await channelForm.getByLabel('Channel').selectOption('webhook');
    await channelForm.getByLabel('Webhook url').fill(rx.url);
    await channelForm.getByLabel('Delivery class').selectOption('instant');
    await channelForm.getByRole('button', { name: 'Add channel' }).click();
    await page.getByTestId('channels-table').getByText('webhook', { exact: true }).waitFor();

    // A status page with the endpoint.
    await go('Status pages');
    const sp = page.getByRole('form', { name: 'Create a status page' });
    await sp.getByLabel('Title').fill('Acme status');
    await sp.getByLabel('example.com · web').check();
    await sp.getByRole('button', { name: 'Create status page' }).click();
    await page
      .getByRole('link', { name: /\/status\/acme-status/ })
      .first()
      .waitFor();
    t.match((await api.get('/api/v1/status-pages')).body.data[0].endpoints, [{ endpoint_id: ep.id }]);

    // The Home: the endpoint up, then down with its reason when the target answers 503, then up again,
    // each pushed by the live feed; the webhook told of the outage.
    await go('Home');
    const row = page.locator(`[data-testid="home-row"][data-name="web"]`);
    await row.and(page.locator('[data-state="up"]')).waitFor({ timeout: 30_000 });
    target.behave({ kind: 'status', code: 503 });
    await row.and(page.locator('[data-state="down"]')).waitFor({ timeout: 30_000 });
    t.match(await row.getByTestId('reason').innerText(), /503/, 'why it is down, in words');
    await page.getByTestId('home-summary').getByText('1 down').waitFor();
    target.behave({ kind: 'status', code: 200 });
    await row.and(page.locator('[data-state="up"]')).waitFor({ timeout: 30_000 });
    const told = await rx.waitFor(1, 30_000);
    t.match(told[0]!.raw.toString(), /endpoint_down/, 'the webhook channel was told of the outage');

    // The endpoint's page: the outage in its incident timeline, how long, and the alert sent for it.
    await row.getByRole('link', { name: 'web' }).click();
    const incident = page
      .getByTestId('incidents')
      .locator('li')
      .filter({ hasText: /Down from .* to .*503/ });
    await incident.filter({ hasText: `Alert via webhook to ${rx.url}: ` }).waitFor({ timeout: 30_000 });
    t.match(await incident.innerText(), /\(\d+ (s|min)/, 'how long it lasted');
    t.match(
      await incident.innerText(),
      new RegExp(`Alert via webhook to ${rx.url}: (sent|success)`),
      'the alert, sent',
    );
    await go('Home');

    // Paused from the Home.
    await page.getByLabel('Select web', { exact: true }).check();
    await page.getByRole('button', { name: 'Pause checks' }).click();
    await page.getByText('Paused 1 endpoint.').waitFor();
    await row.and(page.locator('[data-state="paused"]')).waitFor();
    t.equal((await api.get(`/api/v1/liveness/${live.id}`)).body.is_enabled, false, 'paused');

    // A change made through the API shows without a reload.
    await api.post('/api/v1/domains', { domain: 'added-by-api.com' });
    await page.locator('[data-testid="home-row"][data-name="added-by-api.com"]').waitFor({ timeout: 15_000 });
    t.equal(await marker(), 42, 'the same page all along: no reload');
    t.same(problems, [], 'no console error, CSP violation or failed request');
  },
);
