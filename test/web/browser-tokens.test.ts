// The Tokens page in a real browser (test/support/browser.ts): a person makes a token of their own with a
// name, a scope no higher than their role and an expiry, sees its secret once and copies it, sees when it
// was last used, and revokes it; an owner sees every token of the team and revokes another member's, whose
// dashboard session made from it ends. Skipped where chromium is missing.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { browser, firstPage, shot, signIn, skipBrowser as skip, watch } from '../support/browser.js';

t.setTimeout(120_000);

t.test('the Tokens page: own tokens made, copied, used and revoked; an owner revokes any', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const ownerToken = await s.token('ops', 'owner@example.com');
  await s.app.services.access.addUser('ops', 'ed@example.com', 'editor');
  const edSignIn = (await s.app.services.access.createToken({ team: 'ops', user: 'ed@example.com', name: 'laptop' }))
    .token;

  // The editor: a token scoped to viewer, expiring in 30 days.
  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await signIn(page, s.url, edSignIn);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
  await page.getByRole('link', { name: 'Tokens', exact: true }).click();
  await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
  const own = page.getByTestId('own-tokens');
  await own.getByRole('rowheader', { name: 'laptop' }).waitFor();
  t.equal(await page.getByTestId('team-tokens').count(), 0, "an editor sees no one else's tokens");
  t.equal(await page.getByRole('link', { name: 'Members', exact: true }).count(), 0, 'nor the Members page');
  const scope = page.getByLabel('May do');
  t.same(
    await scope.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value)),
    ['', 'editor', 'viewer', 'read-only'],
    'no role above the editor is offered',
  );
  await page.getByLabel('Name').fill('grafana');
  await scope.selectOption('viewer');
  await page.getByLabel('Expires').selectOption('30');
  const before = Date.now();
  await page.getByRole('button', { name: 'Make token' }).click();
  const secretBox = page.getByRole('textbox', { name: 'Token secret' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  t.match(secret, /^dmn_[A-Za-z0-9_-]{43}$/, 'the secret, shown once');
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'the copy button copies it');

  const ownerApi = client(s.url, ownerToken);
  const mine = (await ownerApi.get('/api/v1/tokens')).body.tokens.find((x: any) => x.name === 'grafana');
  t.match(mine, { user: 'ed@example.com', role: 'viewer', read_only: false, last_used_at: null });
  const exp = Date.parse(mine.expires_at);
  t.ok(exp >= before + 30 * 86_400_000 - 60_000 && exp <= Date.now() + 30 * 86_400_000, mine.expires_at);
  // The token works, as a viewer.
  const g = client(s.url, secret);
  t.equal((await g.get('/api/v1/domains')).status, 200);
  const write = await g.post('/api/v1/portfolios', { name: 'nope' });
  t.equal(write.status, 403);
  t.equal(write.body.code, 'FORBIDDEN_ROLE');
  await s.app.services.access.flushUsage();

  await page.getByRole('button', { name: 'Done' }).click();
  t.equal(await secretBox.count(), 0, 'the secret is gone from the page');
  await page.reload();
  const row = own.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'grafana' }) });
  await row.waitFor();
  const cells = await row.locator('td').allInnerTexts();
  t.equal(cells[1], 'viewer');
  t.not(cells[2], 'never', `expires: ${cells[2]}`);
  t.not(cells[3], 'never', `last used: ${cells[3]}`);
  t.notOk((await page.content()).includes(secret), 'the list never holds the secret');
  await shot(t, page, 'tokens');

  // Revoked from the page: refused at once.
  page.once('dialog', (dlg) => void dlg.accept());
  await page.getByRole('button', { name: 'Revoke grafana' }).click();
  await row.waitFor({ state: 'detached' });
  t.equal((await g.get('/api/v1/domains')).status, 401, 'a revoked token is refused');
  t.same(problems, [], 'no console errors or failed requests');

  // The owner sees every token of the team, and revokes the editor's sign-in token: the editor's session ends.
  const op = await firstPage(await browser(t));
  await signIn(op, s.url, ownerToken);
  await op.getByRole('link', { name: 'Tokens', exact: true }).click();
  const team = op.getByTestId('team-tokens');
  await team.getByRole('rowheader', { name: 'laptop' }).waitFor();
  t.match(await team.innerText(), /laptop\s+ed@example\.com/);
  t.same(
    await op
      .getByLabel('May do')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value)),
    ['', 'owner', 'editor', 'viewer', 'read-only'],
  );
  op.once('dialog', (dlg) => void dlg.accept());
  await team.getByRole('button', { name: 'Revoke laptop' }).click();
  await team.getByRole('rowheader', { name: 'laptop' }).waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.pass("the editor's session made from the revoked token ended");
});

t.test('the Members page: an owner changes a role and removes a member; the last owner stays', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const bossToken = await s.token('ops', 'boss@example.com');
  await s.app.services.access.addUser('ops', 'ed@example.com', 'editor');
  const ed = client(s.url, (await s.app.services.access.createToken({ team: 'ops', user: 'ed@example.com' })).token);
  const page = await firstPage(await browser(t));
  const problems = watch(page);
  await signIn(page, s.url, bossToken);
  await page.getByRole('link', { name: 'Members', exact: true }).click();
  const table = page.getByTestId('members-table');
  await table.getByRole('rowheader', { name: 'ed@example.com' }).waitFor();
  t.match(await table.getByRole('rowheader', { name: /boss@example\.com/ }).innerText(), /\(you\)/);

  await page.getByLabel('Role of ed@example.com').selectOption('viewer');
  await page.getByRole('status').filter({ hasText: 'ed@example.com is now viewer.' }).waitFor();
  t.equal((await ed.post('/api/v1/portfolios', { name: 'p' })).body.code, 'FORBIDDEN_ROLE', 'ed is a viewer at once');

  // The last owner: the server refuses, the page says why and shows the role unchanged.
  await page.getByLabel('Role of boss@example.com').selectOption('editor');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.match(await alert.innerText(), /boss@example\.com is the last owner of team "ops"/);
  await page.waitForFunction(
    () =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }
      ).document.querySelector('select[aria-label="Role of boss@example.com"]')?.value === 'owner',
  );
  t.pass('the select shows owner again');
  await shot(t, page, 'members');

  page.once('dialog', (dlg) => void dlg.accept());
  await page.getByRole('button', { name: 'Remove ed@example.com' }).click();
  await table.getByRole('rowheader', { name: 'ed@example.com' }).waitFor({ state: 'detached' });
  t.equal((await ed.get('/api/v1/domains')).status, 401, "the removed member's token is refused");
  // The refused change's 409 is the one the browser logs.
  t.same(
    problems.filter((p) => !p.includes('status of 409')),
    [],
    'no other console errors or failed requests',
  );
});
