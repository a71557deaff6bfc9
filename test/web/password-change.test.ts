// A person changes their own password (docs/accounts.md#changing-your-password): POST
// /ui/session/password with the session's cookie and CSRF token, the current password and the new one.
// Every other session of the account (in any of its teams) ends on the spot, the asking one and the
// sessions made from the person's tokens stay; the change is audited, the password never shown; a
// wrong current password is a guess counted like a sign-in's, per address and per account.
// test/pg/web-password-change.test.ts runs it again on PostgreSQL.
import t from 'tap';
import { client, request, startApp, type TestApp } from '../support/app.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { manualClock } from '../support/clock.js';
import { TEST_PASSWORD_COST, testHash } from '../support/passwords.js';

// Many sign-ins and apps, on a machine shared with other jobs (the hashes are the tests' cheap ones).
t.setTimeout(120_000);

const OLD = 'correct horse battery';
const NEW = 'staple purple giraffe';
const HASH = await testHash(OLD);

/** An account of `email` with OLD (or none), a member (owner) of each of `teams`. */
async function person(s: TestApp, email: string, teams: string[], password = true) {
  const a = await s.app.services.accounts.ensure(email);
  if (password) await s.app.store.accounts.setPassword(a.id, HASH);
  for (const team of teams) {
    const u = await s.app.services.access.addUser(team, email, 'owner');
    await s.app.services.accounts.link(u.id, a.id);
  }
  return a;
}

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(s: TestApp, body: Record<string, string>, headers: Record<string, string> = {}) {
  const r = await request(s.url, 'POST', '/ui/session', { body, headers, unchecked: true });
  if (r.status !== 201) return { status: r.status, session: undefined };
  const c = r.headers.getSetCookie().find((x) => x.startsWith('dommon_session='))!;
  return { status: r.status, session: { cookie: c.split(';')[0]!, csrf: r.body.csrf_token as string } };
}

const change = (s: TestApp, who: Session, body: unknown, headers: Record<string, string> = {}) =>
  request(s.url, 'POST', '/ui/session/password', {
    body,
    headers: { cookie: who.cookie, [CSRF_HEADER]: who.csrf, ...headers },
    unchecked: true,
  });

/** Whether the session is still signed in. */
const alive = async (s: TestApp, who: Session) =>
  (await request(s.url, 'GET', '/ui/session', { headers: { cookie: who.cookie } })).body.signed_in === true;

t.test('the current password proves the person; every other session ends, this one stays', async (t) => {
  const s = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '100' });
  t.teardown(() => s.close());
  await person(s, 'ann@example.com', ['alpha', 'beta']);
  await person(s, 'bob@example.com', ['alpha']);
  const here = (await signIn(s, { email: 'ann@example.com', password: OLD })).session!;
  const elsewhere = (await signIn(s, { email: 'ANN@example.com', password: OLD })).session!;
  const otherTeam = (await signIn(s, { email: 'ann@example.com', password: OLD, team: 'beta' })).session!;
  const bobs = (await signIn(s, { email: 'bob@example.com', password: OLD })).session!;
  const token = await s.token('alpha', 'ann@example.com');
  const byToken = (await signIn(s, { token })).session!;

  // Refused before anything is checked: no CSRF token, another method, no session.
  const noCsrf = await change(s, here, { current_password: OLD, new_password: NEW }, { [CSRF_HEADER]: '' });
  t.equal(noCsrf.status, 403);
  t.equal(noCsrf.body.code, 'CSRF_TOKEN_INVALID');
  t.equal((await request(s.url, 'GET', '/ui/session/password', { unchecked: true })).status, 405);
  const anon = await request(s.url, 'POST', '/ui/session/password', {
    body: { current_password: OLD, new_password: NEW },
    unchecked: true,
  });
  t.equal(anon.status, 401);

  // Each mistake says which field and changes nothing.
  const wrong = await change(s, here, { current_password: 'not my password', new_password: NEW });
  t.equal(wrong.status, 403);
  t.match(wrong.body, {
    code: 'PASSWORD_WRONG',
    error: /^current_password: /,
    path: '/ui/session/password',
    timestamp: String,
  });
  const short = await change(s, here, { current_password: OLD, new_password: 'short' });
  t.equal(short.status, 400);
  t.match(short.body, { code: 'PASSWORD_INVALID', error: /^new_password: a password must be 10-1024 characters/ });
  const same = await change(s, here, { current_password: OLD, new_password: OLD });
  t.equal(same.status, 400);
  t.match(same.body, { code: 'PASSWORD_UNCHANGED', error: /^new_password: / });
  const missing = await change(s, here, { new_password: NEW });
  t.equal(missing.status, 400);
  t.equal(missing.body.code, 'VALIDATION_ERROR');
  t.match(missing.body.errors, [{ field: 'current_password' }]);
  const extra = await change(s, here, { current_password: OLD, new_password: NEW, email: 'bob@example.com' });
  t.equal(extra.status, 400, 'nothing but the two passwords');
  t.ok(await alive(s, elsewhere), 'a refused change ends no session');

  const done = await change(s, here, { current_password: OLD, new_password: NEW });
  t.equal(done.status, 200);
  t.same(done.body, { message: 'Password changed', ended_sessions: 2 });
  t.ok(await alive(s, here), 'the session that asked stays');
  t.notOk(await alive(s, elsewhere), "another of the account's sessions ended");
  t.notOk(await alive(s, otherTeam), "a session in another of the account's teams ended");
  t.ok(await alive(s, byToken), "a session made from the person's token stays (as with users set-password)");
  t.ok(await alive(s, bobs), "another person's session stays");
  const mine = await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: here.cookie } });
  t.equal(mine.status, 200, 'the asking session still reads');

  t.equal((await signIn(s, { email: 'ann@example.com', password: OLD })).status, 401, 'the old password is refused');
  t.equal((await signIn(s, { email: 'ann@example.com', password: NEW })).status, 201, 'the new one signs in');
  const stored = await s.app.store.db.selectFrom('accounts').select(['email', 'password_hash']).execute();
  const ann = stored.find((r) => r.email === 'ann@example.com')!;
  t.match(ann.password_hash, new RegExp(`^\\$scrypt\\$ln=${TEST_PASSWORD_COST},r=8,p=1\\$`));
  t.not(ann.password_hash, HASH);

  // Audited in the team the session acts in: who, through which session, what; no password in it.
  const audit = client(s.url, token);
  const entries = (await audit.get('/api/v1/audit?object_kind=user&action=update')).body.data;
  t.equal(entries.length, 1);
  t.match(entries[0], {
    actor: { email: 'ann@example.com' },
    via: { kind: 'session', id: /^[0-9a-f]{16}$/ },
    object: { kind: 'user', name: 'ann@example.com' },
    after: { via: 'account settings', ended_sessions: 2 },
    request_id: done.headers.get('x-request-id'),
  });
  const all = JSON.stringify(entries);
  t.notMatch(all, OLD);
  t.notMatch(all, NEW);
});

t.test('a token session has no password; an account without one is told how to get one', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  await person(s, 'cat@example.com', ['gamma']);
  const token = await s.token('gamma', 'cat@example.com');
  const byToken = (await signIn(s, { token })).session!;
  const r = await change(s, byToken, { current_password: OLD, new_password: NEW });
  t.equal(r.status, 403);
  t.equal(r.body.code, 'ACCOUNT_SESSION_REQUIRED');

  // An account made by single sign-on has no password: its session comes from the provider.
  await person(s, 'sso@example.com', ['gamma'], false);
  const member = (await s.app.services.access.listUsers('gamma')).find((u) => u.email === 'sso@example.com')!;
  const made = (await s.app.services.sessions.createForMember(member.id))!;
  const sso = { cookie: `dommon_session=${made.id}`, csrf: made.csrf };
  const none = await change(s, sso, { current_password: 'anything at all', new_password: NEW });
  t.equal(none.status, 409);
  t.match(none.body, { code: 'NO_PASSWORD', error: /Forgot your password/ });
  t.ok(await alive(s, sso));
});

t.test('a wrong current password is a guess: counted per address and per account', async (t) => {
  // A clock that stands still: the counts' one-minute window never rolls over under a slow machine.
  const clock = manualClock('2030-01-01T00:00:10Z');
  const s = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '3', DOMMON_TRUST_PROXY: 'true' }, { clock });
  t.teardown(() => s.close());
  await person(s, 'dan@example.com', ['delta']);
  await person(s, 'eve@example.com', ['delta']);
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const dan = (await signIn(s, { email: 'dan@example.com', password: OLD }, from('10.0.0.1'))).session!;
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++)
    statuses.push(
      (await change(s, dan, { current_password: 'guess guess', new_password: NEW }, from('10.0.0.1'))).status,
    );
  t.same(statuses, [403, 403, 403, 429]);
  const later = await change(s, dan, { current_password: OLD, new_password: NEW }, from('10.0.0.2'));
  t.equal(later.status, 429, 'the right password from a new address: the account waits out the minute');
  t.equal(later.body.code, 'TOO_MANY_FAILURES');
  const signInNow = await signIn(s, { email: 'dan@example.com', password: OLD }, from('10.0.0.3'));
  t.equal(signInNow.status, 429, "the account's sign-in shares the count");
  t.equal(
    (await signIn(s, { email: 'eve@example.com', password: OLD }, from('10.0.0.3'))).status,
    201,
    'another account signs in',
  );
  clock.advance(60_000);
  const next = await change(s, dan, { current_password: OLD, new_password: NEW }, from('10.0.0.2'));
  t.equal(next.status, 200, 'the next minute: the change goes through');
});
