// Setting everything up in the browser (Debian's chromium driven by playwright-core, as in
// browser.test.ts), with forms made from the API's schemas: a person signs in, adds a portfolio, a
// domain in it, an https endpoint with an interval and a failure threshold (a bad value first, shown at
// its field), a webhook channel whose test send shows the loopback receiver's answer, and a status page
// with the endpoint under a display name; then pauses the endpoint from the domain's table and finds a
// 404 view at an unknown address. Everything is checked through the API afterwards.
// Skipped, saying so, where chromium is missing.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait.js';
import { browser, firstPage, shot, signIn, skipBrowser as skip, watch } from '../support/browser.js';

t.setTimeout(180_000);

t.test(
  'portfolio, domain, endpoint, channel with a test send, status page, pause: all from the browser',
  { skip },
  async (t) => {
    const rx = await startWebhookReceiver();
    t.teardown(() => rx.close());
    const s = await startApp({ DOMMON_RATE_LIMIT: '1000000', DOMMON_NOTIFY_INTERVAL: '1' });
    t.teardown(() => s.close());
    const token = await s.token('setup', 'owner@example.com');
    const api = client(s.url, token);

    const ctx = await browser(t);
    const page = await firstPage(ctx);
    const problems = watch(page);
    await signIn(page, s.url, token);

    // A portfolio: the form comes from portfolio-create.
    await page.goto(`${s.url}/#/portfolios`);
    await page.getByTestId('empty').waitFor();
    const addPortfolio = page.getByRole('form', { name: 'Add a portfolio' });
    await addPortfolio.getByLabel('Name').fill('Production');
    await addPortfolio.getByLabel('Description').fill('What customers use');
    await addPortfolio.getByRole('button', { name: 'Add portfolio' }).click();
    await page.getByTestId('portfolios-table').getByText('Production').waitFor();
    await shot(t, page, 'portfolios');
    const portfolios = (await api.get('/api/v1/portfolios')).body.data;
    t.match(portfolios, [{ name: 'Production', description: 'What customers use' }]);

    // A domain in it, from the Domains page.
    await page.goto(`${s.url}/#/domains`);
    const addDomain = page.getByRole('form', { name: 'Add a domain' });
    // A refused name: the API's message under the field, not under the form.
    await addDomain.getByLabel('Domain name').fill('not a domain');
    await addDomain.getByRole('button', { name: 'Add domain' }).click();
    const domainError = addDomain.locator('label:has(input[name="domain"]) .field-error');
    await domainError.waitFor();
    t.equal(await addDomain.getByLabel('Domain name').getAttribute('aria-invalid'), 'true');
    t.notMatch(
      await addDomain.locator('p[role="alert"]').innerText(),
      await domainError.innerText(),
      'the form says which field to fix, not the message again',
    );
    await addDomain.getByLabel('Domain name').fill('example.com');
    await addDomain.getByLabel('Portfolio').selectOption({ label: 'Production' });
    await addDomain.getByRole('button', { name: 'Add domain' }).click();
    await page.getByTestId('domains-table').getByRole('link', { name: 'example.com' }).click();
    await page.getByRole('heading', { name: 'example.com', level: 1 }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    t.equal(await page.getByLabel('Manual expiry').inputValue(), '', 'the manual expiry is not pre-filled');
    await page.getByText('Exposure scans run on verified domains only').waitFor();
    t.equal(await page.getByText('None found.').count(), 0, 'no "None" findings on an unverified domain');
    // No registry answered (the test runs offline): said in words, not as "— (— days)".
    t.equal(await page.getByTestId('registration-expires').innerText(), 'not known yet');
    t.notMatch(await page.locator('main').innerText(), /\(— days\)/, 'no "(— days)"');
    const domain = (await api.get('/api/v1/domains')).body.data[0];
    t.equal(domain.portfolio_id, portfolios[0].id, 'the domain is in the portfolio');

    // An https endpoint: every endpoint type is offered (port too), the liveness fields are there.
    const addEndpoint = page.getByRole('form', { name: 'Add an endpoint' });
    const types = await addEndpoint.getByLabel('Endpoint type').locator('option').allInnerTexts();
    t.ok(
      ['https', 'http', 'port', 'smtp', 'imap'].every((x) => types.includes(x)),
      `every type is offered: ${types.join(', ')}`,
    );
    // A type's own fields (generated from its plug-in) show while that type is chosen, and only then.
    await addEndpoint.getByLabel('Endpoint type').selectOption('icmp');
    await addEndpoint.getByLabel(/^Count/).fill('7');
    t.equal(await addEndpoint.getByLabel(/^Max loss percent/).count(), 1, 'icmp: its fields are shown');
    await addEndpoint.getByLabel(/^Name( \(required\))?$/).fill('web');
    await addEndpoint.getByLabel('Endpoint type').selectOption('https');
    t.equal(await addEndpoint.getByLabel(/^Count/).count(), 0, 'https: the icmp fields are gone');
    await addEndpoint.getByLabel('Subdomain').fill('www');
    await addEndpoint.getByLabel('Interval seconds').fill('0');
    await addEndpoint.getByLabel('Failure threshold').fill('0');
    await addEndpoint.getByRole('button', { name: 'Add endpoint' }).click();
    // The API's answer names every failed check: each at the field it names.
    const intervalError = addEndpoint.locator('[data-field="liveness.interval_seconds"] .field-error');
    await intervalError.waitFor();
    t.match(await intervalError.innerText(), /must be >= 1/);
    const thresholdError = addEndpoint.locator('[data-field="liveness.failure_threshold"] .field-error');
    t.match(await thresholdError.innerText(), /must be >= 1/, 'the second error too, at its field');
    await addEndpoint.getByText('2 fields need a fix').waitFor();
    t.equal(await addEndpoint.getByLabel('Interval seconds').getAttribute('aria-invalid'), 'true');
    t.equal(
      await page.evaluate(() => (globalThis as any).document.activeElement?.name),
      'liveness.interval_seconds',
      'focus moves to the field in error',
    );
    await shot(t, page, 'endpoint-form-error');
    t.equal((await api.get('/api/v1/endpoints')).body.data.length, 0, 'nothing written');
    await addEndpoint.getByLabel('Interval seconds').fill('30');
    await addEndpoint.getByLabel('Failure threshold').fill('3');
    await addEndpoint.getByRole('button', { name: 'Add endpoint' }).click();
    await addEndpoint.getByText('Added web.').waitFor();
    t.equal(await intervalError.count(), 0, 'the error is gone');
    await page.getByTestId('endpoints-table').getByRole('link', { name: 'web' }).waitFor();
    const ep = (await api.get('/api/v1/endpoints')).body.data[0];
    t.match(ep, { name: 'web', endpoint_type: 'https', subdomain: 'www', domain_id: domain.id });
    t.notOk('count' in ep, 'the icmp field typed before was not sent for https');
    const live = (await api.get(`/api/v1/liveness?endpoint_id=${ep.id}`)).body.data[0];
    t.match(live, { is_enabled: true, interval_seconds: 30, failure_threshold: 3 });

    // A webhook channel: its form comes from schemas/channels/webhook.json; the secret is a password field.
    await page.goto(`${s.url}/#/notifications`);
    await page.getByRole('button', { name: 'Add a channel…' }).click();
    const channelForm = page.getByRole('form', { name: 'Set up a channel' });
    const kinds = await channelForm.getByLabel('Channel').locator('option').allInnerTexts();
    t.ok(kinds.includes('webhook') && kinds.includes('opsgenie') && kinds.length >= 13, 'every registered channel');
    await channelForm.getByLabel('Channel').selectOption('webhook');
    await channelForm.getByLabel('Webhook url').fill(rx.url);
    t.equal(await channelForm.getByLabel('Secret key').getAttribute('type'), 'password');
    await channelForm.getByLabel('Secret key').fill('webhook-signing-key');
    // A property of several types (object, array or string): JSON text.
    await channelForm.getByLabel('Template').fill('{"text": "{{event_type}}"}');
    await channelForm.getByLabel('Delivery class').selectOption('instant');
    await channelForm.getByRole('button', { name: 'Add channel' }).click();
    await page.getByTestId('channels-table').getByText('webhook', { exact: true }).waitFor();
    const settings = (await api.get('/api/v1/notifications/settings')).body;
    t.match(settings, [{ notification_type: 'webhook', delivery_class: 'instant', is_enabled: true }]);
    t.equal(settings[0].config.webhook_url, rx.url);
    t.same(settings[0].config.template, { text: '{{event_type}}' }, 'the JSON text sent as an object');
    t.match(settings[0].config.secret_key, /^\*{8}/, 'the secret is stored (and shown masked)');

    // Editing it keeps the secret when its field is left empty.
    await page.getByTestId('channels-table').getByRole('button', { name: 'Edit' }).click();
    const editForm = page.getByRole('form', { name: 'Edit the webhook channel' });
    t.match(await editForm.getByLabel('Secret key').getAttribute('placeholder'), /^unchanged/);
    await editForm.getByLabel('Min severity').selectOption('high');
    await editForm.getByRole('button', { name: 'Save channel' }).click();
    await page.getByText('Saved the webhook channel.').waitFor();
    const after = (await api.get('/api/v1/notifications/settings')).body[0];
    t.equal(after.min_severity, 'high');
    t.equal(after.config.secret_key, settings[0].config.secret_key, 'the secret is unchanged');

    // A test send: its outcome shows once the daemon sent it to the loopback receiver.
    await page.getByTestId('channels-table').getByRole('button', { name: 'Test…' }).click();
    const test = page.getByRole('form', { name: 'Send a test notification' });
    t.equal(await test.getByLabel('Recipient').inputValue(), rx.url, 'the channel is the recipient');
    t.equal(await test.getByLabel('Channel').inputValue(), 'webhook');
    await test.getByRole('button', { name: 'Send test' }).click();
    const outcome = page.getByTestId('test-outcome');
    await outcome
      .filter({ hasText: /Sent|Not sent/ })
      .waitFor({ timeout: 30_000 })
      .catch(async (e: unknown) => {
        t.comment(`outcome: ${await outcome.innerText().catch(() => 'none')}; receiver: ${rx.requests.length}`);
        throw e;
      });
    t.match(await outcome.innerText(), /Sent: the receiver answered 200/);
    t.equal(rx.requests.length, 1, 'the receiver got it');
    t.equal(rx.requests[0]!.path, new URL(rx.url).pathname, 'at the address set up');
    // The delivery log's filters.
    await page.getByTestId('delivery-log').getByText(rx.url).waitFor();
    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByText('Nothing sent matches these filters.').waitFor();
    await page.getByLabel('Outcome').selectOption('success');
    await page.getByTestId('delivery-log').getByText(rx.url).waitFor();
    await shot(t, page, 'notifications-setup');

    // A status page with the endpoint under a display name.
    await page.goto(`${s.url}/#/status-pages`);
    const sp = page.getByRole('form', { name: 'Create a status page' });
    await sp.getByLabel('Title').fill('Acme status');
    await sp.getByLabel('example.com · web').check();
    await sp.getByLabel('Display name of web').fill('Website');
    await sp.getByRole('button', { name: 'Create status page' }).click();
    await page
      .getByRole('link', { name: /\/status\/acme-status/ })
      .first()
      .waitFor();
    const pages = (await api.get('/api/v1/status-pages')).body.data;
    t.match(pages, [{ slug: 'acme-status', title: 'Acme status', portfolio_id: portfolios[0].id }]);
    t.match(pages[0].endpoints, [{ endpoint_id: ep.id, display_name: 'Website' }]);

    // The endpoint's own settings page: the liveness form holds the values set above.
    await page.goto(`${s.url}/#/endpoints/${ep.id}`);
    const liveForm = page.getByRole('form', { name: 'Liveness settings' });
    // Not inspected yet (nothing answers at www.example.com): the certificate's expiry in words.
    t.equal(await page.getByTestId('certificate-expires').innerText(), 'not known yet');
    t.notMatch(await page.locator('main').innerText(), /\(— days\)/, 'no "(— days)" on the endpoint page');
    t.equal(await liveForm.getByLabel('Interval seconds').inputValue(), '30');
    t.equal(await liveForm.getByLabel('Failure threshold').inputValue(), '3');
    await liveForm.getByLabel('Expected status code').fill('204');
    // An array of strings: one a line.
    await liveForm.getByLabel('Regions').fill('eu-west\nus-east');
    await liveForm.getByLabel('Confirm from').fill('2');
    await liveForm.getByRole('button', { name: 'Save liveness settings' }).click();
    await liveForm.getByText('Saved.').waitFor();
    t.match((await api.get(`/api/v1/liveness/${live.id}`)).body, {
      expected_status_code: 204,
      regions: ['eu-west', 'us-east'],
      confirm_from: 2,
      interval_seconds: 30,
    });
    await shot(t, page, 'endpoint-settings');

    // Pause it from the domain's table (ticked rows).
    await page.goto(`${s.url}/#/domains/${domain.id}`);
    await page.getByLabel('Select web').check();
    await page.getByRole('button', { name: 'Pause checks' }).click();
    await page.getByText('Paused 1 endpoint.').waitFor();
    t.equal((await api.get(`/api/v1/liveness/${live.id}`)).body.is_enabled, false, 'paused');
    await page.getByTestId('endpoints-table').getByTestId('endpoint-state').filter({ hasText: 'paused' }).waitFor();
    await shot(t, page, 'domain-endpoints');

    // The Home's Type filter offers the same endpoint types as the form (the probe registry's), each one.
    await page.goto(`${s.url}/#/home`);
    const typeFilter = page.getByRole('form', { name: 'Filter' }).getByLabel('Type');
    await typeFilter.locator('option', { hasText: /^icmp$/ }).waitFor({ state: 'attached' });
    t.same(
      (await typeFilter.locator('option').allInnerTexts()).slice(3),
      types,
      'the Type filter: any, domains, endpoints, then every endpoint type of the form',
    );
    await typeFilter.selectOption('https');
    const homeNames = async () =>
      Promise.all((await page.getByTestId('home-row').all()).map((r) => r.getAttribute('data-name')));
    await waitFor(async () => (await homeNames().catch(() => [])).join() === 'web', 15_000).catch(() => undefined);
    t.same(await homeNames(), ['web'], 'type=https: the https endpoint only');

    // An unknown address: a 404 view, not the overview.
    await page.goto(`${s.url}/#/nonexistent`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await shot(t, page, 'not-found');
    t.equal(await page.title(), 'Not found · dommon');
    t.equal(await page.getByRole('heading', { name: 'Endpoints down now' }).count(), 0);

    // The two 400s (the bad domain name, the bad interval) are logged by the browser as failed resources: expected.
    t.match(problems, [/status of 400/, /status of 400/]);
    t.equal(problems.length, 2, `no other console error, CSP violation or failed request: ${problems.join('; ')}`);
  },
);

t.test(
  'finish: empty states, natural sort, key columns at 390 px, a status page that reloads itself',
  { skip },
  async (t) => {
    const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
    t.teardown(() => s.close());
    const token = await s.token('finish', 'owner@example.com');
    const api = client(s.url, token);
    const ctx = await browser(t);
    const page = await firstPage(ctx);
    const problems = watch(page);
    await signIn(page, s.url, token);

    // Empty views say what to do next: the Home (the page after sign-in), then the Overview.
    await page.getByTestId('home-empty').getByText('Nothing is monitored yet').waitFor();
    await page.goto(`${s.url}/#/overview`);
    await page.getByText('No endpoints yet: open a domain').waitFor();
    await page.getByTestId('events-empty').getByRole('link', { name: 'add a domain' }).waitFor();
    await page.getByTestId('notifications-empty').getByRole('link', { name: 'Notifications' }).waitFor();
    await page.goto(`${s.url}/#/domains`);
    t.match(await page.getByTestId('empty').innerText(), /No domains yet\. Add one above/);
    await page.goto(`${s.url}/#/notifications`);
    t.match(await page.getByTestId('empty').first().innerText(), /No channel is set up yet.*Add one below/s);
    await page.goto(`${s.url}/#/status-pages`);
    await page.getByRole('link', { name: 'add a portfolio' }).waitFor();

    const pf = (await api.post('/api/v1/portfolios', { name: 'Shop' })).body;
    for (const name of ['example-10.com', 'example-2.com', 'example-1.com'])
      t.equal((await api.post('/api/v1/domains', { domain: name, portfolio_id: pf.id })).status, 201);
    await page.goto(`${s.url}/#/domains`);
    const table = page.getByTestId('domains-table');
    await table.getByRole('link', { name: 'example-10.com' }).waitFor();
    t.same(
      await table.locator('tbody tr th').allInnerTexts(),
      ['example-1.com', 'example-2.com', 'example-10.com'],
      'natural order: example-2 before example-10',
    );
    // A manual expiry date reads as a day, not as ISO text.
    const first = (await api.get('/api/v1/domains')).body.data.find(
      (d: { domain: string }) => d.domain === 'example-1.com',
    );
    t.equal((await api.put(`/api/v1/domains/${first.id}`, { expiry_date: '2031-05-04' })).status, 200);
    const expiryCell = table.locator('tbody tr', { hasText: 'example-1.com' }).locator('td').nth(2);
    await expiryCell.filter({ hasText: '2031' }).waitFor();
    t.notMatch(
      await expiryCell.innerText(),
      /\d{4}-\d{2}-\d{2}/,
      `the expiry as a day (${await expiryCell.innerText()})`,
    );
    // A filter that matches nothing says so, with a way back, instead of a table of headers.
    await page.getByLabel('Filter').fill('nothing-like-this');
    t.match(await page.getByTestId('empty').innerText(), /No domain of 3 matches “nothing-like-this”/);
    t.equal(await table.count(), 0, 'no table of headers only');
    await page.getByRole('button', { name: 'Clear the filter' }).click();
    t.equal(await table.locator('tbody tr').count(), 3, 'all three again');

    // 390 px: the key columns (days left, health) stay in view; the minor ones give way.
    await page.setViewportSize({ width: 390, height: 800 });
    for (const name of ['Domain', 'Days left', 'Certificate', 'Health']) {
      const box = await table.getByRole('columnheader', { name }).boundingBox();
      t.ok(box && box.x >= 0 && box.x + box.width <= 390, `${name} is in view at 390 px`);
    }
    for (const name of ['Portfolio', 'Registrar', 'Security'])
      t.notOk(await table.getByRole('columnheader', { name }).isVisible(), `${name} gives way at 390 px`);
    await shot(t, page, 'domains-390px');
    // The Home at 390 px: state, name, uptime and days left stay in view; the bars and figures give way.
    await page.goto(`${s.url}/#/home`);
    const home = page.getByTestId('home');
    await home.getByRole('link', { name: 'example-10.com' }).waitFor();
    for (const name of ['state', 'name', 'uptime 24 h', 'days left']) {
      const box = await home.getByRole('columnheader', { name, exact: true }).boundingBox();
      t.ok(box && box.x >= 0 && box.x + box.width <= 390, `Home: ${name} is in view at 390 px`);
    }
    for (const name of ['last checks', 'response', 'grade / last check'])
      t.notOk(await home.getByRole('columnheader', { name }).isVisible(), `Home: ${name} gives way at 390 px`);
    await shot(t, page, 'home-390px');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The public status page reloads itself (no script: a meta refresh).
    const ep = (
      await api.post('/api/v1/endpoints', {
        domain_id: (await api.get('/api/v1/domains')).body.data[0].id,
        name: 'shop',
        endpoint_type: 'https',
      })
    ).body;
    t.equal(
      (
        await api.post('/api/v1/status-pages', {
          portfolio_id: pf.id,
          slug: 'shop',
          title: 'Shop',
          endpoints: [{ endpoint_id: ep.id }],
        })
      ).status,
      201,
    );
    const html = await (await fetch(`${s.url}/status/shop`)).text();
    t.match(html, /<meta http-equiv="refresh" content="60">/);
    const missing = await (await fetch(`${s.url}/status/no-such-page`)).text();
    t.notMatch(missing, /http-equiv="refresh"/, 'the 404 does not reload');
    t.same(problems, [], 'no console error, CSP violation or failed request');
  },
);
