// The web dashboard in a real browser (Debian's chromium driven by playwright-core, as in
// browser.test.ts): a read-only token's session shows no write control on any page.
// Skipped, saying so, where chromium is missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { client, startApp } from '../support/app.js';
import { PACKAGE_ROOT } from '../../src/package.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(PACKAGE_ROOT, 'test-artifacts', 'web');
const skip = fs.existsSync(CHROMIUM)
  ? false
  : `chromium not found at ${CHROMIUM} (apt-get install chromium): the browser test is skipped`;
if (skip) console.log(`# ${skip}`);
t.setTimeout(180_000);

/** A fresh chromium profile (closed and removed at the end of the test). */
async function browser(t: Test): Promise<BrowserContext> {
  if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist/web/index.html')))
    throw new Error('dist/web is not built: run `npm run build` (or node scripts/web.mjs) first');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-chromium-'));
  t.teardown(() => fs.rmSync(profile, { recursive: true, force: true }));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  t.teardown(() => ctx.close());
  return ctx;
}

/** Collects console errors, page errors and failed requests. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}

async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url + '/');
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Endpoints down now' }).waitFor();
}

t.test('a read-only session shows no add, edit, remove or send control', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('ro', 'owner@example.com'));
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'http' })).body;
  t.equal((await api.put('/api/v1/notifications/settings/email', { delivery_class: 'instant' })).status, 200);
  const ro = await s.app.services.access.createToken({ team: 'ro', name: 'viewer', readOnly: true });

  const ctx = await browser(t);
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const problems = watch(page);
  await signIn(page, s.url, ro.token);
  await page.getByText('read-only', { exact: true }).waitFor();

  const writeButtons = /^(Add|Remove|Save|Send|Test|Check now|Pause|Resume|Delete|Create)/;
  const visibleWrites = async () =>
    (await page.getByRole('button').allInnerTexts()).filter((x) => writeButtons.test(x.trim()));
  const pages: [string, () => Promise<void>][] = [
    ['#/domains', () => page.getByTestId('domains-table').getByRole('link', { name: 'example.com' }).waitFor()],
    [`#/domains/${d.id}`, () => page.getByText('_dommon-verify.example.com').waitFor()],
    [`#/endpoints/${ep.id}`, () => page.getByRole('heading', { name: 'web', level: 1 }).waitFor()],
    ['#/notifications', () => page.getByRole('heading', { name: 'Delivery log' }).waitFor()],
  ];
  for (const [hash, ready] of pages) {
    await page.goto(`${s.url}/${hash}`);
    await ready();
    t.same(await visibleWrites(), [], `no write button on ${hash}`);
    t.equal(await page.locator('form').count(), 0, `no form on ${hash}`);
  }
  await page.goto(`${s.url}/#/domains`);
  await page.getByLabel('Filter').fill('example');
  t.equal(await page.getByTestId('domains-table').locator('tbody tr').count(), 1, 'reading tools still work');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API token').waitFor();
  t.same(problems, [], 'no console error, CSP violation or failed request');
});
