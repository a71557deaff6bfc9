// Passkeys (docs/accounts.md#passkeys) in a real browser: Chromium with a virtual authenticator over
// CDP (internal transport, resident keys, user verification) on http://localhost, a secure context.
// A person signed in with a password adds a passkey in the account settings, signs out and signs in
// with it (the same server-side session a password makes); a removed passkey signs in no more. The
// challenges: a response sent again, or one signed over a challenge the server never handed out, is
// refused; a registration answer cannot be used twice; a token has no passkeys and cannot add one.
import t from 'tap';
import type { Page } from 'playwright-core';
import { request, startApp, type TestApp } from '../support/app.js';
import { browser, firstPage, skipBrowser, watch } from '../support/browser.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { testHash } from '../support/passwords.js';

t.setTimeout(300_000);

const PASSWORD = 'correct horse battery';

async function person(s: TestApp, email: string, team: string) {
  const a = await s.app.services.accounts.ensure(email);
  const u = await s.app.services.access.addUser(team, email, 'owner');
  await s.app.services.accounts.link(u.id, a.id);
  return { account: a, user: u };
}

/** A virtual platform authenticator (as a laptop's): resident keys, user verification that passes. */
async function authenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

/** The JSON body of the next POST to `path` the page sends. */
const nextPost = (page: Page, path: string) =>
  page
    .waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === path)
    .then((r) => r.postDataJSON() as Record<string, unknown>);

t.test('a passkey is added, signs in, and once removed signs in no more', { skip: skipBrowser }, async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  // localhost, not 127.0.0.1: a relying party id is a host name, and localhost is a secure context over HTTP.
  const url = s.url.replace('127.0.0.1', 'localhost');
  const { account } = await person(s, 'pat@example.com', 'alpha');
  await s.app.store.accounts.setPassword(account.id, await testHash(PASSWORD));

  const ctx = await browser(t);
  const page = await firstPage(ctx);
  const problems = watch(page);
  page.on('dialog', (d) => void d.accept());
  await authenticator(page);

  // Signed in with the password, the person adds a passkey named "laptop".
  await page.goto(url + '/');
  await page.getByLabel('E-mail').fill('pat@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.goto(url + '/#/account');
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  await page.getByText('No passkeys yet.').waitFor();
  await page.getByLabel('Name').fill('laptop');
  const registration = nextPost(page, '/api/v1/account/passkeys');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').filter({ hasText: 'Added the passkey laptop.' }).waitFor();
  await page.getByTestId('passkeys').getByRole('cell', { name: 'laptop', exact: true }).waitFor();
  const stored = await s.app.store.passkeys.list(account.id);
  t.equal(stored.length, 1, 'one passkey stored');
  t.match(stored[0], { name: 'laptop', transports: ['internal'], last_used_at: null });
  const row = await s.app.store.passkeys.byCredential(stored[0]!.credential_id);
  t.match(row?.public_key, /^[A-Za-z0-9_-]{40,}$/, 'its public key is kept');

  // The registration's answer again, with the same session: its challenge is spent.
  const jar = (await ctx.cookies()).find((c) => c.name === 'dommon_session');
  t.ok(jar, 'the session cookie');
  const session = await request(url, 'GET', '/ui/session', { headers: { cookie: `dommon_session=${jar!.value}` } });
  const auth = { cookie: `dommon_session=${jar!.value}`, [CSRF_HEADER]: session.body.csrf_token as string };
  const again = await request(url, 'POST', '/api/v1/account/passkeys', {
    body: { ...(await registration), name: 'copy' },
    headers: auth,
  });
  t.equal(again.status, 400, 'a registration answer replayed: refused');
  t.equal(again.body.code, 'PASSKEY_NOT_VERIFIED');
  t.equal((await s.app.store.passkeys.list(account.id)).length, 1, 'and nothing added');

  // Signed out, the sign-in page asks for a passkey at once (conditional UI: the browser offers its
  // passkeys in the e-mail field's autofill; the virtual authenticator picks its one): the person is
  // signed in again, with the same kind of session as the password's.
  const signInBody = nextPost(page, '/ui/session/passkey');
  await page.getByRole('button', { name: 'Sign out' }).click();
  const body = await signInBody;
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.match(await page.locator('header .who').textContent(), /pat@example\.com/, 'signed in as the person');
  const used = (await s.app.store.passkeys.list(account.id))[0]!;
  t.type(used.last_used_at, 'string', 'the passkey shows when it was last used');
  const cookie = (await ctx.cookies()).find((c) => c.name === 'dommon_session');
  t.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict', 'an HttpOnly, SameSite=Strict session cookie');
  const viaPasskey = await request(url, 'GET', '/ui/session', {
    headers: { cookie: `dommon_session=${cookie!.value}` },
  });
  t.match(viaPasskey.body, { signed_in: true, team: 'alpha', user: 'pat@example.com', role: 'owner', account: true });

  // A browser without conditional UI: the "Use a passkey" button.
  await page.addInitScript(() => {
    const g = globalThis as unknown as { PublicKeyCredential: { isConditionalMediationAvailable?: unknown } };
    g.PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  });
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  const twice = (await s.app.store.passkeys.list(account.id))[0]!;
  t.ok(twice.last_used_at! >= used.last_used_at!, 'signed in with the button');

  // The same sign-in answer sent again (a replay): its challenge was taken by the first.
  const replay = await request(url, 'POST', '/ui/session/passkey', { body, unchecked: true });
  t.equal(replay.status, 401, 'a replayed sign-in is refused');
  t.notOk(replay.headers.getSetCookie().some((c) => c.includes('dommon_session=') && !c.includes('dommon_session=;')));

  // A response signed over a challenge the server never handed out.
  const foreign = await page.evaluate(async () => {
    const g = globalThis as unknown as {
      navigator: { credentials: { get(o: unknown): Promise<{ toJSON(): unknown }> } };
      crypto: { getRandomValues(a: Uint8Array): Uint8Array };
    };
    const challenge = g.crypto.getRandomValues(new Uint8Array(32));
    const c = await g.navigator.credentials.get({
      publicKey: { challenge, rpId: 'localhost', userVerification: 'required', timeout: 30_000 },
    });
    return c.toJSON();
  });
  const forged = await request(url, 'POST', '/ui/session/passkey', { body: { response: foreign }, unchecked: true });
  t.equal(forged.status, 401, 'a challenge the server did not hand out is refused');

  // A token has no account: no passkeys, and it cannot ask to register one.
  const token = await s.token('alpha', 'pat@example.com');
  t.same((await request(url, 'GET', '/api/v1/account/passkeys', { token })).body, { passkeys: [] });
  const byToken = await request(url, 'POST', '/api/v1/account/passkeys/options', { token, body: {} });
  t.equal(byToken.status, 403);
  t.equal(byToken.body.code, 'ACCOUNT_SESSION_REQUIRED');

  // Another person cannot remove it (404, as for a passkey that does not exist).
  const other = await person(s, 'sam@example.com', 'alpha');
  const otherSession = await s.app.services.sessions.createForMember(other.user.id);
  const notYours = await request(url, 'DELETE', `/api/v1/account/passkeys/${used.id}`, {
    headers: { cookie: `dommon_session=${otherSession!.id}`, [CSRF_HEADER]: otherSession!.csrf },
  });
  t.equal(notYours.status, 404, "another person's passkey is not found");

  // Removed in the account settings, the passkey signs in no more.
  await page.goto(url + '/#/account');
  await page.getByRole('button', { name: 'Remove the passkey laptop' }).click();
  await page.getByText('No passkeys yet.').waitFor();
  t.same(await s.app.store.passkeys.list(account.id), [], 'removed');
  const trail = await s.app.store.db
    .selectFrom('audit_log')
    .select(['action'])
    .where('object_kind', '=', 'passkey')
    .orderBy('id')
    .execute();
  t.same(
    trail.map((r) => r.action),
    ['create', 'delete'],
    'the trail has the passkey added and removed',
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByRole('alert').filter({ hasText: 'That passkey did not sign in' }).waitFor();
  t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'still signed out');
  t.same(
    problems.filter((p) => !/status of 401/.test(p)),
    [],
    'no console errors, page errors or failed requests (but the refused sign-in)',
  );
  t.ok(
    problems.some((p) => /status of 401/.test(p)),
    'the refused sign-in was a 401',
  );
});
