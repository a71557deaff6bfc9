// The Audit page in a real browser (test/support/browser.ts): an owner sees the team's changes with
// the fields each moved, filters them by object kind and action, and pages to older ones by the
// API's cursor; an editor is not offered the page. Skipped where chromium is missing.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { browser, firstPage, shot, signIn, skipBrowser as skip, watch } from '../support/browser.js';

t.setTimeout(120_000);

t.test('the Audit page: changes, their fields, filters, older pages; owners only', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('audit', 'owner@example.com');
  const api = client(s.url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'audited.example' })).body;
  await api.put(`/api/v1/domains/${d.id}`, { notes: 'the shop' });
  // 55 portfolios: more than one page (50) of changes.
  for (let i = 0; i < 55; i++) await api.post('/api/v1/portfolios', { name: `p${String(i).padStart(2, '0')}` });

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, token);
  await page.getByRole('link', { name: 'Audit', exact: true }).click();
  await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
  const table = page.getByTestId('audit-table');
  await table.locator('tbody tr').first().waitFor();
  t.equal(await table.locator(':scope > tbody > tr').count(), 50, 'a page of 50, newest first');
  t.match(await table.locator(':scope > tbody > tr').first().innerText(), /owner@example\.com[\s\S]*create[\s\S]*p54/);

  // Older changes by the cursor: the last five portfolios and the domain's two.
  await page.getByRole('button', { name: 'Older changes' }).click();
  await table.getByRole('rowheader', { name: 'audited.example domain' }).first().waitFor();
  t.equal(await table.locator(':scope > tbody > tr').count(), 7);
  await page.getByRole('button', { name: 'Newest changes' }).click();
  await table.getByRole('rowheader', { name: 'p54 portfolio' }).waitFor();

  // Filtered to the domain's update: the row opens to the field it moved, before and after.
  await page.getByLabel('Object').selectOption('domain');
  await page.getByLabel('Action').selectOption('update');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('1 change', { exact: true }).waitFor();
  const row = table.locator(':scope > tbody > tr').first();
  t.match(await row.innerText(), /audited\.example[\s\S]*notes/);
  await row.locator('summary').click();
  t.match(await row.locator('details table').innerText(), /notes\s+null\s+"the shop"/);
  await shot(t, page, 'audit');
  t.same(problems, [], 'no console errors or failed requests');

  // An editor's session is not offered the page (the API refuses it: test/api/audit.test.ts).
  const editor = (await s.app.services.access.createToken({ team: 'audit', role: 'editor' })).token;
  const other = await firstPage(await browser(t));
  await signIn(other, s.url, editor);
  await other.getByRole('link', { name: 'Home', exact: true }).waitFor();
  t.equal(await other.getByRole('link', { name: 'Audit', exact: true }).count(), 0);
});
