// One-time links (docs/accounts.md#one-time-links) over HTTP: a set-up link makes the first owner, a
// sign-in link (`dommon users add`) lets a member choose a password and signs in; a link works once,
// for 24 hours, and is refused the same way whether unknown, used or expired; a link that cannot be
// used counts as a failed sign-in of the address; the secret is stored only as its hash.
import { createHash } from 'node:crypto';
import t from 'tap';
import { request, startApp, type TestApp } from '../support/app.js';
import { manualClock } from '../support/clock.js';
import { CSRF_HEADER } from '../../src/web/session.js';

// Each use with a password hashes it with scrypt (N=2^17): seconds on a busy machine.
t.setTimeout(240_000);

const PASSWORD = 'correct horse battery';

const post = (s: TestApp, path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(s.url, 'POST', path, { body, headers, unchecked: true });

function jarOf(h: Headers): string {
  const c = h.getSetCookie().find((x) => x.startsWith('dommon_session='));
  if (!c) throw new Error('no session cookie set');
  return c.split(';')[0]!;
}

t.test('a set-up link makes the first owner, once', async (t) => {
  const clock = manualClock('2030-01-01T00:00:10Z');
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  const links = s.app.services.links;
  const first = await links.setupLink();
  const setup = await links.setupLink();
  t.ok(first && setup, 'no account yet: a set-up link');
  t.match(setup!.token, /^[A-Za-z0-9_-]{43}$/);
  t.equal(setup!.expires_at, '2030-01-02T00:00:10.000Z', 'it works for 24 hours');
  const stored = await s.app.store.db.selectFrom('one_time_links').select(['token_hash', 'purpose']).execute();
  t.same(
    stored,
    [{ token_hash: createHash('sha256').update(setup!.token).digest('hex'), purpose: 'setup' }],
    'only the hash is kept, and a new set-up link replaces the one before',
  );
  t.equal(
    (await post(s, '/ui/link', { token: first!.token })).body.code,
    'LINK_INVALID',
    'the replaced one is refused',
  );

  const view = await post(s, '/ui/link', { token: setup!.token });
  t.equal(view.status, 200);
  t.same(view.body, {
    purpose: 'setup',
    email: null,
    team: null,
    role: 'owner',
    password: 'required',
    expires_at: '2030-01-02T00:00:10.000Z',
  });
  const noPassword = await post(s, '/ui/link/use', { token: setup!.token, email: 'ann@example.com', team: 'ops' });
  t.equal(noPassword.status, 400, 'a set-up needs a password');
  t.equal(noPassword.body.code, 'PASSWORD_INVALID');
  const short = await post(s, '/ui/link/use', { token: setup!.token, email: 'a@b.c', team: 'ops', password: 'short' });
  t.equal(short.status, 400, 'of 10 characters at least');
  const used = await post(s, '/ui/link/use', {
    token: setup!.token,
    email: 'Ann@Example.com',
    team: 'ops',
    password: PASSWORD,
  });
  t.equal(used.status, 201, 'the refused attempts left the link usable');
  t.match(used.body, { signed_in: true, team: 'ops', user: 'ann@example.com', role: 'owner', account: true });
  const jar = jarOf(used.headers);
  const made = await request(s.url, 'POST', '/api/v1/domains', {
    body: { domain: 'ann.example' },
    headers: { cookie: jar, [CSRF_HEADER]: used.body.csrf_token as string },
  });
  t.equal(made.status, 201, 'the new owner is signed in and writes');

  const again = await post(s, '/ui/link/use', {
    token: setup!.token,
    email: 'eve@example.com',
    team: 'x',
    password: PASSWORD,
  });
  t.equal(again.status, 404, 'a used link is refused');
  t.equal(again.body.code, 'LINK_INVALID');
  t.equal(await links.setupLink(), null, 'an account exists: no more set-up links');
  const signIn = await post(s, '/ui/session', { email: 'ann@example.com', password: PASSWORD });
  t.equal(signIn.status, 201, 'the password chosen signs in');
});

t.test('a sign-in link lets a member choose a password; links end after 24 hours', async (t) => {
  const clock = manualClock('2030-01-01T00:00:10Z');
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  const { access, links } = s.app.services;
  const bob = await access.addUser('alpha', 'Bob@Example.com', 'editor');
  const link = await links.signInLink(bob.team_id, 'bob@example.com');
  t.match(link, { purpose: 'sign-in', email: 'bob@example.com', team: 'alpha' });
  const view = await post(s, '/ui/link', { token: link.token });
  t.match(view.body, { purpose: 'sign-in', email: 'bob@example.com', team: 'alpha', password: 'required' });
  const used = await post(s, '/ui/link/use', { token: link.token, password: PASSWORD });
  t.equal(used.status, 201);
  t.match(used.body, { signed_in: true, team: 'alpha', user: 'bob@example.com', role: 'editor', teams: ['alpha'] });

  // Bob added to a second team: he has a password, so that link may keep it.
  const beta = await access.addUser('beta', 'bob@example.com', 'viewer');
  const second = await links.signInLink(beta.team_id, 'bob@example.com');
  t.equal((await post(s, '/ui/link', { token: second.token })).body.password, 'optional');
  const kept = await post(s, '/ui/link/use', { token: second.token });
  t.equal(kept.status, 201, 'no password: his own is kept');
  t.match(kept.body, { team: 'beta', role: 'viewer', teams: ['alpha', 'beta'] });
  t.equal((await post(s, '/ui/session', { email: 'bob@example.com', password: PASSWORD })).status, 201);

  const carol = await access.addUser('alpha', 'carol@example.com', 'viewer');
  const late = await links.signInLink(carol.team_id, 'carol@example.com');
  clock.advance(24 * 3_600_000);
  const expired = await post(s, '/ui/link', { token: late.token });
  t.equal(expired.status, 404, 'after 24 hours the link is refused');
  t.same(
    { code: expired.body.code, error: expired.body.error },
    {
      code: 'LINK_INVALID',
      error: 'this link is not valid: it was used already, has expired or was replaced by a newer one',
    },
  );
  const removed = await access.addUser('alpha', 'dave@example.com', 'viewer');
  const orphan = await links.signInLink(removed.team_id, 'dave@example.com');
  await access.removeUser('alpha', 'dave@example.com');
  t.equal((await post(s, '/ui/link', { token: orphan.token })).body.code, 'LINK_INVALID', 'a removed member: refused');
});

t.test('a link that cannot be used counts as a failed sign-in of the address', async (t) => {
  const clock = manualClock('2030-01-01T00:00:10Z');
  const s = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '3' }, { clock });
  t.teardown(() => s.close());
  const form = await request(s.url, 'POST', '/ui/link', {
    body: 'token=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    unchecked: true,
  });
  t.equal(form.status, 400, 'JSON only');
  t.equal(form.body.code, 'INVALID_JSON');
  const extra = await post(s, '/ui/link/use', { token: 'x', role: 'owner' });
  t.equal(extra.status, 400, 'an unknown field is refused by the schema');
  t.equal((await request(s.url, 'GET', '/ui/link', { unchecked: true })).status, 405);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await post(s, '/ui/link', { token: `${'A'.repeat(42)}${i}` })).status);
  t.same(statuses, [404, 404, 404, 429], 'guesses run into the sign-in limit');
});
