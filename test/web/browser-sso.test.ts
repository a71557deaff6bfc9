// Single sign-on in a real browser (Debian's chromium driven by playwright-core): the sign-in page's
// "Sign in with …" link, the provider's own sign-in and consent pages (oidc-provider's development
// pages on loopback), and back in the dashboard signed in, in the team and with the role the claims
// map to (docs/sso.md). Skipped, saying so, where chromium is missing.
import t from 'tap';
import { startApp } from '../support/app.js';
import { browser, firstPage, skipBrowser as skip, watch } from '../support/browser.js';
import { CLIENT_ID, CLIENT_SECRET, startOidcProvider, type Person } from '../support/oidc.js';
import { freePort } from '../support/targets.js';

t.setTimeout(180_000);

t.test('a person signs in through the provider and lands in the dashboard', { skip }, async (t) => {
  const people: Record<string, Person> = {
    gwen: { email: 'Gwen@Example.com', email_verified: true, groups: ['dommon-editors'] },
  };
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider(`${appUrl}/ui/oidc/callback`, people);
  t.teardown(() => idp.close());
  const s = await startApp(
    {
      DOMMON_PUBLIC_URL: appUrl,
      DOMMON_OIDC_ISSUER: idp.issuer,
      DOMMON_OIDC_CLIENT_ID: CLIENT_ID,
      DOMMON_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      DOMMON_OIDC_NAME: 'Test IdP',
      DOMMON_OIDC_SCOPES: 'openid email groups',
      DOMMON_OIDC_TEAMS: JSON.stringify([{ group: 'dommon-editors', team: 'web', role: 'editor' }]),
    },
    { port },
  );
  t.teardown(() => s.close());

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  // The provider's development pages name resources off this machine (a style sheet, a font): nothing
  // leaves loopback.
  await ctx.route(
    (u) => u.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  await page.goto(`${appUrl}/`);
  const link = page.getByRole('link', { name: 'Sign in with Test IdP' });
  await link.waitFor();
  t.same(problems, [], 'the sign-in page: no console error, CSP violation or failed request');
  await link.click();

  // The provider's pages: its sign-in form (any password, as its development pages allow), then consent.
  await page.waitForURL((u) => u.origin === idp.issuer);
  await page.locator('input[name="login"]').fill('gwen');
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  await page.waitForURL((u) => u.origin !== idp.issuer || u.pathname.startsWith('/interaction/'));
  if (new URL(page.url()).origin === idp.issuer) await page.locator('button[type="submit"]').click();

  // Back in the dashboard: signed in as the provider's person, in the team and role the claims give.
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  // What the provider's pages logged (their resources off loopback, refused above) is not the dashboard's.
  problems.length = 0;
  t.equal(new URL(page.url()).origin, appUrl, 'back at the dashboard');
  const header = await page.locator('header').innerText();
  t.match(header, /gwen@example\.com/, 'the e-mail the provider gave, case-folded');
  t.match(header, /editor/, 'the role the group maps to');
  const web = await s.app.store.teams.byName('web');
  t.ok(web, 'the team the rule names was made');
  t.equal((await s.app.store.users.byEmail(web!.id, 'gwen@example.com'))?.role, 'editor');
  // The session is the one a password sign-in makes: the Account page offers the password change.
  await page.goto(`${appUrl}/#/account`);
  await page.getByRole('form', { name: 'Change your password' }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
  t.same(problems, [], 'the dashboard: no console error, CSP violation or failed request');
});
