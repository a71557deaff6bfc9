// The web dashboard in a real browser (Debian's chromium driven by playwright-core, as in
// browser.test.ts) over objects a configuration file manages (`dommon serve --config`): a
// "managed by config" badge on their rows (the home's too) and pages, their change controls disabled with the reason
// as a tooltip, the hand-made objects beside them untouched; with `editable: true` in the file the
// badge stays and the controls work again. Skipped, saying so, where chromium is missing.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { managedConfig, serveApply } from '../support/managed.js';
import { browser, firstPage, signIn, skipBrowser as skip, watch } from '../support/browser.js';

t.setTimeout(180_000);

t.test('managed objects: a badge, and their change controls disabled with the reason', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('gitops', 'owner@example.com');
  const api = client(s.url, token);
  await serveApply(s, managedConfig(false));
  const hand = (await api.post('/api/v1/domains', { domain: 'hand.example.org' })).body;
  await api.post('/api/v1/portfolios', { name: 'Hand' });
  const managed = (await api.get('/api/v1/domains?domain=example.com')).body.data[0];
  const www = (await api.get(`/api/v1/endpoints?domain_id=${managed.id}`)).body.data[0];

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);

  const WHY = /Managed by the configuration file/;
  // The home: the badge on the file's domain and endpoint rows, none on the hand-made domain's.
  await page.goto(`${s.url}/#/`);
  const homeRow = (name: string) => page.locator(`[data-testid="home-row"][data-name="${name}"]`);
  await homeRow('hand.example.org').waitFor();
  t.equal(await homeRow('example.com').getByTestId('managed-badge').innerText(), 'managed by config');
  t.equal(await homeRow('www').getByTestId('managed-badge').count(), 1, "the file's endpoint row");
  t.equal(await homeRow('hand.example.org').getByTestId('managed-badge').count(), 0, 'no badge on a hand-made row');
  // The domain list: the badge on the file's row only; its Remove disabled with the reason, the other's not.
  await page.goto(`${s.url}/#/domains`);
  const table = page.getByTestId('domains-table');
  await table.getByRole('link', { name: 'hand.example.org' }).waitFor();
  const row = (name: string) => table.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });
  t.equal(await row('example.com').getByTestId('managed-badge').innerText(), 'managed by config');
  t.equal(await row('hand.example.org').getByTestId('managed-badge').count(), 0, 'no badge on a hand-made row');
  const removeManaged = row('example.com').getByRole('button', { name: 'Remove example.com' });
  t.ok(await removeManaged.isDisabled(), 'Remove is disabled on the managed row');
  t.match(await removeManaged.getAttribute('title'), WHY, 'the tooltip says why');
  t.notOk(await row('hand.example.org').getByRole('button', { name: 'Remove hand.example.org' }).isDisabled());

  // The domain's page: badge in the heading; Save and Remove disabled; its endpoint's row has the badge.
  await page.goto(`${s.url}/#/domains/${managed.id}`);
  await page
    .getByRole('heading', { name: /example\.com/, level: 1 })
    .getByTestId('managed-badge')
    .waitFor();
  t.ok(await page.getByRole('button', { name: 'Remove domain' }).isDisabled());
  const save = page.getByRole('form', { name: 'Edit the domain' }).getByRole('button', { name: 'Save' });
  t.ok(await save.isDisabled());
  t.match(await save.getAttribute('title'), WHY);
  t.match(await page.getByTestId('managed-note').innerText(), WHY);
  await page.getByTestId('endpoints-table').getByTestId('managed-badge').waitFor();
  // A hand-made domain's page: nothing disabled.
  await page.goto(`${s.url}/#/domains/${hand.id}`);
  await page.getByRole('heading', { name: 'hand.example.org', level: 1 }).waitFor();
  t.notOk(await page.getByRole('button', { name: 'Remove domain' }).isDisabled());
  t.equal(await page.getByTestId('managed-badge').count(), 0);

  // The endpoint's page: Remove disabled, the settings' Save too; pausing stays allowed (operation).
  await page.goto(`${s.url}/#/endpoints/${www.id}`);
  await page.getByRole('heading', { name: /www/, level: 1 }).getByTestId('managed-badge').waitFor();
  t.ok(await page.getByRole('button', { name: 'Remove endpoint' }).isDisabled());
  const saveEndpoint = page.getByRole('button', { name: 'Save endpoint' });
  await saveEndpoint.waitFor();
  t.ok(await saveEndpoint.isDisabled());

  // Portfolios, status pages, channels: the badge on the file's row, Edit/Delete disabled there.
  const lists: [string, string, string, string][] = [
    ['#/portfolios', 'portfolios-table', 'Web', 'Hand'],
    ['#/status-pages', 'status-pages-table', 'Managed page', ''],
    ['#/notifications', 'channels-table', 'email', ''],
  ];
  for (const [hash, id, name, other] of lists) {
    await page.goto(`${s.url}/${hash}`);
    const tbl = page.getByTestId(id);
    const r = tbl.locator('tbody tr', { hasText: name });
    await r.getByTestId('managed-badge').waitFor();
    const edit = r.getByRole('button', { name: /^Edit/ });
    t.ok(await edit.isDisabled(), `${hash}: Edit disabled`);
    t.match(await edit.getAttribute('title'), WHY, `${hash}: the tooltip says why`);
    if (other) {
      const o = tbl.locator('tbody tr', { hasText: other });
      t.equal(await o.getByTestId('managed-badge').count(), 0, `${hash}: no badge on the hand-made row`);
      t.notOk(await o.getByRole('button', { name: /^Edit/ }).isDisabled(), `${hash}: the hand-made row's Edit works`);
    }
  }

  // `editable: true` in the file: the badge stays (the file still owns them), the controls work again.
  await serveApply(s, managedConfig(true));
  await page.goto(`${s.url}/#/domains`);
  await row('example.com').getByTestId('managed-badge').waitFor();
  await page.locator('button[aria-label="Remove example.com"]:not([disabled])').waitFor();
  t.match(
    await row('example.com').getByTestId('managed-badge').getAttribute('title'),
    /allows editing it here/,
    'the badge says the file allows editing',
  );
  t.same(problems, [], 'no console error, CSP violation or failed request');
});
