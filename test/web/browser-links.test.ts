// One-time links in a real browser (test/support/browser.ts): the set-up link that `serve` prints
// opens the set-up page, the first owner chooses a password and is signed in, invites a second person
// as editor from the Invitations page, copies the link; the second person opens it, chooses a
// password and is signed in with the editor's role (no owner's pages). Skipped where chromium is missing.
import t from 'tap';
import { startApp } from '../support/app.js';
import { browser, firstPage, shot, skipBrowser as skip, watch } from '../support/browser.js';

// A browser through two set-ups and sign-ins on a machine shared with other jobs.
t.setTimeout(180_000);

t.test('set-up link -> first owner signed in -> invitation -> the invitee signs in as editor', { skip }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const setup = await s.app.services.links.setupLink();
  t.ok(setup, 'no account yet: a set-up link');

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  await page.goto(`${s.url}/#/link/${setup!.token}`);
  await page.getByRole('heading', { name: 'Set up dommon' }).waitFor();
  await page.getByLabel('Your e-mail').fill('ann@example.com');
  await page.getByLabel('Team').fill('ops');
  await page.getByLabel('Choose a password').fill('correct horse battery');
  await page.getByLabel('The password again').fill('correct horse battery');
  await shot(t, page, 'link-setup');
  await page.getByRole('button', { name: 'Create and sign in' }).click();

  // Signed in as the owner of ops: the owner's pages are offered.
  await page.getByRole('link', { name: 'Invitations', exact: true }).click();
  await page.getByRole('heading', { name: 'Invitations', level: 1 }).waitFor();
  t.match(await page.locator('.who').innerText(), /ops · ann@example\.com\s+owner/);
  await page.getByLabel('E-mail', { exact: true }).fill('Ed@Example.com');
  await page.getByLabel('Role').selectOption('editor');
  await page.getByRole('button', { name: 'Invite' }).click();
  const box = page.getByRole('textbox', { name: 'Link' });
  await box.waitFor();
  const link = await box.inputValue();
  t.match(link, new RegExp(`^${s.url}/#/link/[A-Za-z0-9_-]{43}$`), 'the link, on the address the owner uses');
  await page.getByText('The team has no e-mail channel: pass the link on yourself.').waitFor();
  await page.getByTestId('invitations').getByRole('rowheader', { name: 'ed@example.com' }).waitFor();
  await shot(t, page, 'link-invited');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();

  // The invitee opens the link (a browser of its own would do the same), chooses a password.
  const other = await ctx.newPage();
  const otherProblems = watch(other);
  await other.goto(link);
  await other.getByRole('heading', { name: 'Join a team' }).waitFor();
  t.match(await other.locator('main').innerText(), /ed@example\.com · team ops · editor/);
  await other.getByLabel('Choose a password').fill('another fine passphrase');
  await other.getByLabel('The password again').fill('another fine passphrase');
  await other.getByRole('button', { name: 'Join and sign in' }).click();
  await other.locator('.who').getByText('editor').waitFor();
  t.match(await other.locator('.who').innerText(), /ops · ed@example\.com\s+editor/);
  t.equal(
    await other
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('link', { name: 'Invitations', exact: true })
      .count(),
    0,
    "no owner's page",
  );
  const nav = other.getByRole('navigation', { name: 'Pages' });
  t.equal(await nav.getByRole('link', { name: 'Domains', exact: true }).count(), 1, "an editor's pages");
  t.equal(new URL(other.url()).hash, '#/home', 'the link is gone from the address bar');

  // The link worked once.
  await other.goto(link);
  await other.getByText('this link is not valid').waitFor();
  t.same(problems, []);
  t.same(
    otherProblems.filter((p) => !p.includes('404')),
    [],
    'nothing failed but the used link (404)',
  );
});
