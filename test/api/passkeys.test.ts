// Passkey challenges at the API (docs/accounts.md#passkeys), with a software passkey
// (test/support/webauthn.ts; test/web/passkeys.test.ts does it all in Chromium): a challenge signs
// one answer only, on the purpose and account it was handed out for, within its five minutes; the
// signature counter must go up; a sign-in makes the session a password sign-in makes.
import t from 'tap';
import { request, startApp, type TestApp } from '../support/app.js';
import { SoftPasskey } from '../support/webauthn.js';
import { manualClock } from '../support/clock.js';
import { CSRF_HEADER } from '../../src/web/session.js';

async function person(s: TestApp, email: string, team: string) {
  const a = await s.app.services.accounts.ensure(email);
  const u = await s.app.services.access.addUser(team, email, 'editor');
  await s.app.services.accounts.link(u.id, a.id);
  const ses = (await s.app.services.sessions.createForMember(u.id))!;
  return { account: a, headers: { cookie: `dommon_session=${ses.id}`, [CSRF_HEADER]: ses.csrf } };
}

const signInOptions = async (s: TestApp) =>
  (await request(s.url, 'POST', '/ui/session/passkey/options', { body: {}, unchecked: true })).body as {
    challenge: string;
    rpId: string;
    allowCredentials?: unknown[];
    userVerification: string;
  };
const signIn = (s: TestApp, response: unknown, team?: string) =>
  request(s.url, 'POST', '/ui/session/passkey', { body: { response, ...(team && { team }) }, unchecked: true });

t.test('a challenge signs one answer, for its purpose and account, in its time', async (t) => {
  const clock = manualClock(new Date('2026-03-01T12:00:00Z'));
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  // The team's owner first: a new team's first member is its owner, and Ann and Bob are editors.
  await s.app.services.access.addUser('alpha', 'owner@example.com');
  const ann = await person(s, 'ann@example.com', 'alpha');
  const bob = await person(s, 'bob@example.com', 'alpha');
  const key = new SoftPasskey(s.url);

  // Registration: a challenge handed out to Bob does not register a passkey to Ann.
  const bobs = await request(s.url, 'POST', '/api/v1/account/passkeys/options', { body: {}, headers: bob.headers });
  const stolen = await request(s.url, 'POST', '/api/v1/account/passkeys', {
    body: { name: 'x', response: key.create(bobs.body) },
    headers: ann.headers,
    unchecked: true,
  });
  t.equal(stolen.status, 400, "another account's challenge");
  t.equal(stolen.body.code, 'PASSKEY_NOT_VERIFIED');
  const opts = await request(s.url, 'POST', '/api/v1/account/passkeys/options', { body: {}, headers: ann.headers });
  t.match(opts.body, {
    rp: { id: '127.0.0.1', name: 'dommon' },
    user: { name: 'ann@example.com' },
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const answer = key.create(opts.body);
  const made = await request(s.url, 'POST', '/api/v1/account/passkeys', {
    body: { name: 'soft', response: answer },
    headers: ann.headers,
  });
  t.equal(made.status, 201);
  t.match(made.body, { name: 'soft', transports: ['internal'], sign_count: 0, last_used_at: null });

  // Sign-in: options name no credential (discoverable), and need user verification.
  const o1 = await signInOptions(s);
  t.equal(o1.rpId, '127.0.0.1');
  t.same(o1.allowCredentials ?? [], []);
  t.equal(o1.userVerification, 'required');
  const ok = await signIn(s, key.get(o1.challenge));
  t.equal(ok.status, 201, 'signed in');
  t.match(ok.body, { signed_in: true, team: 'alpha', user: 'ann@example.com', role: 'editor', account: true });
  t.match(ok.headers.getSetCookie()[0], /^dommon_session=[A-Za-z0-9_-]{43}; path=\/; samesite=strict; httponly/);
  t.equal((await signIn(s, key.get(o1.challenge))).status, 401, 'the same challenge again: refused');

  // A challenge never handed out; one handed out to register; one past its five minutes.
  t.equal((await signIn(s, key.get('bm90LWhhbmRlZC1vdXQtYnktdGhlLXNlcnZlcg'))).status, 401, 'never handed out');
  const reg = await request(s.url, 'POST', '/api/v1/account/passkeys/options', { body: {}, headers: ann.headers });
  t.equal((await signIn(s, key.get(reg.body.challenge))).status, 401, "a registration's challenge");
  const late = await signInOptions(s);
  clock.advance(5 * 60_000 + 1);
  t.equal((await signIn(s, key.get(late.challenge))).status, 401, 'expired');

  // A counter that does not go up (a cloned authenticator): the stored one is the sign-in's, 1.
  const { sign_count } = (await s.app.store.passkeys.list(ann.account.id))[0]!;
  t.equal(sign_count, 1, 'the counter as the accepted sign-in reported it');
  const clone = Object.assign(Object.create(Object.getPrototypeOf(key) as object), key, { counter: 0 }) as SoftPasskey;
  t.equal((await signIn(s, clone.get((await signInOptions(s)).challenge))).status, 401, 'a counter gone back');

  // A team the account is not in; then the named team.
  t.equal((await signIn(s, key.get((await signInOptions(s)).challenge), 'beta')).status, 401, 'not its team');
  t.equal((await signIn(s, key.get((await signInOptions(s)).challenge), 'alpha')).status, 201);

  // A disabled account signs in no more.
  await s.app.store.accounts.setDisabled(ann.account.id, true);
  t.equal((await signIn(s, key.get((await signInOptions(s)).challenge))).status, 401, 'disabled');
  t.equal(
    await s.app.store.db
      .selectFrom('webauthn_challenges')
      .select('challenge')
      .where('purpose', '=', 'sign-in')
      .execute()
      .then((r) => r.length),
    0,
    'every sign-in challenge was spent by its one answer',
  );
});
