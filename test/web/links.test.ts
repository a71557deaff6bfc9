// One-time links (docs/accounts.md#one-time-links) over HTTP: a set-up link makes the first owner, a
// sign-in link (`dommon users add`) lets a member choose a password and signs in, an invitation makes
// the account and membership, a reset (an owner's, or "forgot password" by mail through a real SMTP
// peer) sets a new password and ends the other sessions; a link works once,
// for 24 hours, and is refused the same way whether unknown, used or expired; a link that cannot be
// used counts as a failed sign-in of the address; the secret is stored only as its hash.
import { createHash } from 'node:crypto';
import t from 'tap';
import { client, request, startApp, type TestApp } from '../support/app.js';
import { startSmtp } from '../support/smtp.js';
import { manualClock } from '../support/clock.js';
import { CSRF_HEADER } from '../../src/web/session.js';

// Many apps and link uses on a machine shared with other jobs (the hashes are the tests' cheap ones).
t.setTimeout(120_000);

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
  // Each team's owner first: a new team's first member is its owner, whatever the role asked.
  for (const team of ['alpha', 'beta']) await access.addUser(team, 'owner@example.com');
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

t.test('an owner invites by e-mail; the link makes the account and the membership', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const s = await startApp(
    { DOMMON_SMTP_URL: smtp.url, DOMMON_PUBLIC_URL: 'https://dommon.example.com' },
    { smtp: { ca: smtp.ca } },
  );
  t.teardown(() => s.close());
  const owner = client(s.url, await s.token('alpha', 'owner@example.com'));
  await s.app.services.access.addUser('alpha', 'ed@example.com', 'editor');
  const editor = client(
    s.url,
    (await s.app.services.access.createToken({ team: 'alpha', user: 'ed@example.com' })).token,
  );

  const quiet = await owner.post('/api/v1/invitations', { email: 'Quinn@Example.com', role: 'viewer' });
  t.equal(quiet.status, 201);
  t.match(quiet.body, {
    email: 'quinn@example.com',
    role: 'viewer',
    team: 'alpha',
    email_sent: null,
    email_error: null,
  });
  t.match(quiet.body.url, /^https:\/\/dommon\.example\.com\/#\/link\/[A-Za-z0-9_-]{43}$/, 'on DOMMON_PUBLIC_URL');
  const refused = await editor.post('/api/v1/invitations', { email: 'x@example.com', role: 'viewer' });
  t.equal(refused.status, 403, 'an editor may not invite');
  t.equal(refused.body.code, 'FORBIDDEN_ROLE');
  t.equal(
    (await owner.post('/api/v1/invitations', { email: 'ed@example.com', role: 'viewer' })).body.code,
    'USER_EXISTS',
  );

  // With an e-mail channel the link goes out by mail too.
  const channel = await owner.put('/api/v1/notifications/settings/email', {
    delivery_class: 'instant',
    config: { recipients: ['ops@example.com'] },
  });
  t.equal(channel.status, 200, JSON.stringify(channel.body));
  const zoe = await owner.post('/api/v1/invitations', { email: 'zoe@example.com', role: 'editor' });
  t.equal(zoe.status, 201);
  t.match(zoe.body, { email_sent: true, email_error: null });
  const [mail] = await smtp.waitFor(1);
  t.same(mail!.to, ['zoe@example.com'], 'to the invitee, not the channel recipients');
  t.match(mail!.subject, /invited to team alpha/);
  t.ok(mail!.text.includes(zoe.body.url), 'the mail holds the link');

  const list = await owner.get('/api/v1/invitations');
  t.same(
    list.body.invitations.map((i: { email: string; role: string }) => [i.email, i.role]),
    [
      ['zoe@example.com', 'editor'],
      ['quinn@example.com', 'viewer'],
    ],
  );
  t.equal((await editor.get('/api/v1/invitations')).status, 403);
  const withdrawn = await owner.delete(`/api/v1/invitations/${quiet.body.id}`);
  t.equal(withdrawn.status, 200);
  const token = (u: string) => u.split('/#/link/')[1]!;
  t.equal((await post(s, '/ui/link', { token: token(quiet.body.url) })).body.code, 'LINK_INVALID', 'withdrawn');
  t.equal((await owner.delete(`/api/v1/invitations/${quiet.body.id}`)).status, 404, 'once');

  const view = await post(s, '/ui/link', { token: token(zoe.body.url) });
  t.same(
    { ...view.body, expires_at: undefined },
    {
      purpose: 'invitation',
      email: 'zoe@example.com',
      team: 'alpha',
      role: 'editor',
      password: 'required',
      expires_at: undefined,
    },
  );
  const joined = await post(s, '/ui/link/use', { token: token(zoe.body.url), password: PASSWORD });
  t.equal(joined.status, 201);
  t.match(joined.body, { team: 'alpha', user: 'zoe@example.com', role: 'editor', account: true });
  t.same((await owner.get('/api/v1/invitations')).body.invitations, [], 'used: no longer open');

  // Another team invites Zoe: she has an account and password. The link is shown to beta's owner, so
  // it proves nothing about Zoe: it is accepted with her password, which it never changes (else beta's
  // owner could take over her account, and alpha with it).
  const other = client(s.url, await s.token('beta', 'boss@example.com'));
  const beta = await other.post('/api/v1/invitations', { email: 'ZOE@example.com', role: 'viewer' });
  t.equal((await post(s, '/ui/link', { token: token(beta.body.url) })).body.password, 'current');
  for (const password of [undefined, 'a-new-password-of-the-owner']) {
    const taken = await post(s, '/ui/link/use', { token: token(beta.body.url), ...(password ? { password } : {}) });
    t.equal(taken.status, 401, `without Zoe's password (${password ?? 'none'}): refused`);
    t.equal(taken.body.code, 'PASSWORD_WRONG');
  }
  t.equal(
    (await post(s, '/ui/session', { email: 'zoe@example.com', password: 'a-new-password-of-the-owner' })).status,
    401,
    'her password was not changed',
  );
  const second = await post(s, '/ui/link/use', { token: token(beta.body.url), password: PASSWORD });
  t.match(second.body, { team: 'beta', role: 'viewer', teams: ['alpha', 'beta'] });
  t.equal((await other.delete(`/api/v1/invitations/${zoe.body.id}`)).status, 404, "another team's invitation: 404");
});

t.test('password reset: by an owner, and "forgot password" by mail; using it ends the other sessions', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const s = await startApp(
    { DOMMON_SMTP_URL: smtp.url, DOMMON_PUBLIC_URL: 'https://dommon.example.com' },
    { smtp: { ca: smtp.ca } },
  );
  t.teardown(() => s.close());
  const owner = client(s.url, await s.token('alpha', 'owner@example.com'));
  await s.app.services.access.addUser('alpha', 'pat@example.com', 'editor');
  await s.app.services.access.setPassword('alpha', 'pat@example.com', PASSWORD);
  const before = await post(s, '/ui/session', { email: 'pat@example.com', password: PASSWORD });
  t.equal(before.status, 201);
  const oldJar = jarOf(before.headers);

  t.equal((await owner.post('/api/v1/password-resets', { email: 'nobody@example.com' })).status, 404, 'not a member');
  // A person of another team too: this team's owner may not take the other team with a reset link.
  await s.app.services.access.createToken({ team: 'gamma', user: 'gil@example.com' });
  await s.app.services.access.addUser('alpha', 'gil@example.com', 'viewer');
  await s.app.services.access.setPassword('gamma', 'gil@example.com', PASSWORD);
  await s.app.services.access.setPassword('alpha', 'gil@example.com', PASSWORD);
  const shared = await owner.post('/api/v1/password-resets', { email: 'gil@example.com' });
  t.equal(shared.status, 409);
  t.match(shared.body, { code: 'ACCOUNT_SHARED', error: /gil@example\.com belongs to other teams too/ });
  const reset = await owner.post('/api/v1/password-resets', { email: 'Pat@example.com' });
  t.equal(reset.status, 201);
  t.match(reset.body, { email: 'pat@example.com', team: 'alpha', email_sent: null });
  const token = reset.body.url.split('/#/link/')[1];
  t.match((await post(s, '/ui/link', { token })).body, { purpose: 'reset', password: 'required' });
  t.equal((await post(s, '/ui/link/use', { token })).status, 400, 'a reset needs a new password');
  const NEW = 'a brand new passphrase';
  const used = await post(s, '/ui/link/use', { token, password: NEW });
  t.equal(used.status, 201);
  t.match(used.body, { team: 'alpha', user: 'pat@example.com', role: 'editor' });
  const old = await request(s.url, 'GET', '/ui/session', { headers: { cookie: oldJar }, unchecked: true });
  t.same(old.body, { signed_in: false }, 'the session signed in with the old password ended');
  const fresh = await request(s.url, 'GET', '/ui/session', {
    headers: { cookie: jarOf(used.headers) },
    unchecked: true,
  });
  t.equal(fresh.body.signed_in, true, 'the link signed in anew');
  t.equal((await post(s, '/ui/session', { email: 'pat@example.com', password: PASSWORD })).status, 401, 'old password');

  // Forgot password: the same answer for a known and an unknown e-mail; only the known one gets mail,
  // and only through a team with an e-mail channel.
  const noChannel = await post(s, '/ui/password-reset', { email: 'pat@example.com' });
  t.equal(noChannel.status, 202);
  await owner.put('/api/v1/notifications/settings/email', { delivery_class: 'instant', config: {} });
  const unknown = await post(s, '/ui/password-reset', { email: 'stranger@example.com' });
  const known = await post(s, '/ui/password-reset', { email: 'PAT@example.com' });
  t.equal(unknown.status, 202);
  t.same(unknown.body, known.body, 'the answer tells nothing');
  t.same(noChannel.body, known.body);
  const [mail] = await smtp.waitFor(1);
  t.same(mail!.to, ['pat@example.com']);
  const m = /https:\/\/dommon\.example\.com\/#\/link\/([A-Za-z0-9_-]{43})/.exec(mail!.text);
  t.ok(m, 'the mail holds a reset link');
  t.equal(smtp.mails.length, 1, 'no mail for the unknown e-mail, nor without a channel');
  const last = await post(s, '/ui/link/use', { token: m![1], password: PASSWORD });
  t.equal(last.status, 201, 'the mailed link sets a new password');
  t.equal(
    (await request(s.url, 'GET', '/ui/session', { headers: { cookie: jarOf(used.headers) }, unchecked: true })).body
      .signed_in,
    false,
    'and ends the other sessions',
  );
});

t.test('forgot password is throttled per address and per e-mail', async (t) => {
  const clock = manualClock('2030-01-01T00:00:10Z');
  const s = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '2', DOMMON_TRUST_PROXY: 'true' }, { clock });
  t.teardown(() => s.close());
  const from = (ip: string, email: string) =>
    post(s, '/ui/password-reset', { email }, { 'x-forwarded-for': ip }).then((r) => r.status);
  t.same(
    [
      await from('192.0.2.1', 'a@example.com'),
      await from('192.0.2.2', 'a@example.com'),
      await from('192.0.2.3', 'a@example.com'),
    ],
    [202, 202, 429],
    'one e-mail from several addresses',
  );
  t.same(
    [
      await from('192.0.2.9', 'b@example.com'),
      await from('192.0.2.9', 'c@example.com'),
      await from('192.0.2.9', 'd@example.com'),
    ],
    [202, 202, 429],
    'several e-mails from one address',
  );
  clock.advance(60_000);
  t.equal(await from('192.0.2.9', 'e@example.com'), 202, 'the next minute');
});
