// Tokens in account settings (docs/accounts.md): a person lists, creates (named, read-only or a role
// no higher than their own, with an expiry) and revokes their own tokens; an owner lists and revokes
// every token of the team. An expired token is refused like a revoked one, its sessions too; a removed
// member's tokens and sessions end at once.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { runningClock } from '../support/clock.js';
import { CSRF_HEADER } from '../../src/web/session.js';

t.setTimeout(120_000);

t.test('own tokens: create scoped, list, revoke; an owner sees and revokes every token', async (t) => {
  const clock = runningClock();
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  const access = s.app.services.access;
  const owner = client(s.url, await s.token('acme', 'boss@example.com'));
  await access.addUser('acme', 'ed@example.com', 'editor');
  const edToken = (await access.createToken({ team: 'acme', user: 'ed@example.com', name: 'cli' })).token;
  const ed = client(s.url, edToken);

  // Create: a viewer-scoped token with an expiry
  const expires = new Date(clock.now().getTime() + 3_600_000).toISOString();
  const c = await ed.post('/api/v1/account/tokens', { name: 'grafana', role: 'viewer', expires_at: expires });
  t.equal(c.status, 201);
  t.match(c.body, {
    name: 'grafana',
    user: 'ed@example.com',
    role: 'viewer',
    read_only: false,
    expires_at: expires,
    last_used_at: null,
    revoked_at: null,
  });
  t.match(c.body.token, /^dmn_[A-Za-z0-9_-]{43}$/);
  t.equal(c.body.prefix, c.body.token.slice(0, 10));
  const scoped = client(s.url, c.body.token as string);
  t.equal((await scoped.get('/api/v1/domains')).status, 200, 'the new token reads');
  const refused = await scoped.post('/api/v1/domains', { domain: 'x.example' });
  t.equal(refused.status, 403);
  t.equal(refused.body.code, 'FORBIDDEN_ROLE', 'and is a viewer, though its member is an editor');
  t.equal((await ed.post('/api/v1/domains', { domain: 'x.example' })).status, 201, 'the editor still writes');

  // No higher than one's own role; read-only is the spec's flag; an expiry must be ahead
  const tooHigh = await ed.post('/api/v1/account/tokens', { role: 'owner' });
  t.equal(tooHigh.status, 403);
  t.equal(tooHigh.body.code, 'FORBIDDEN_ROLE');
  t.match(tooHigh.body.error, /you are editor, not owner/);
  const ro = await ed.post('/api/v1/account/tokens', { read_only: true });
  t.equal(ro.status, 201);
  t.match(ro.body.name, /^token-/, 'a default name');
  t.equal((await client(s.url, ro.body.token).put(`/api/v1/domains/${c.body.id}`, {})).body.code, 'READ_ONLY_TOKEN');
  const past = await ed.post('/api/v1/account/tokens', { expires_at: '2020-01-01T00:00:00Z' });
  t.equal(past.status, 400);
  t.equal(past.body.code, 'INVALID_EXPIRY');
  t.equal((await ed.post('/api/v1/account/tokens', { role: 'admin' })).status, 400, 'not a role');
  t.equal(
    (await scoped.post('/api/v1/account/tokens', { role: 'editor' })).body.code,
    'FORBIDDEN_ROLE',
    'nor above the token',
  );

  // List: one's own only, with when each was last used
  await access.flushUsage();
  const mine = await ed.get('/api/v1/account/tokens');
  t.equal(mine.status, 200);
  t.same(mine.body.tokens.map((x: { name: string }) => x.name).sort(), ['cli', 'grafana', ro.body.name].sort());
  t.type(mine.body.tokens.find((x: { name: string }) => x.name === 'grafana').last_used_at, 'string', 'last used');
  t.notOk(JSON.stringify(mine.body).includes(c.body.token), 'no secret in a list, only its prefix');
  t.equal((await ed.get('/api/v1/tokens')).body.code, 'FORBIDDEN_ROLE', "the team's tokens are the owner's");
  const all = await owner.get('/api/v1/tokens');
  t.equal(all.status, 200);
  t.equal(all.body.tokens.length, 4, "the owner's token and the editor's three");
  t.ok(all.body.tokens.some((x: { user: string }) => x.user === 'boss@example.com'));

  // Revoke: one's own only by the account path (another's is not found), any by the owner's
  const bossId = all.body.tokens.find((x: { user: string }) => x.user === 'boss@example.com').id;
  t.equal((await ed.delete(`/api/v1/account/tokens/${bossId}`)).status, 404, "another member's token");
  const gone = await ed.delete(`/api/v1/account/tokens/${ro.body.id}`);
  t.equal(gone.status, 200);
  t.type(gone.body.revoked_token.revoked_at, 'string');
  t.equal((await client(s.url, ro.body.token).get('/api/v1/domains')).status, 401, 'refused at once');
  t.equal((await ed.delete(`/api/v1/account/tokens/${ro.body.id}`)).status, 404, 'already revoked');

  // An owner revokes a member's token: its dashboard session ends with it
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token: edToken }, unchecked: true });
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const session = { cookie, [CSRF_HEADER]: signIn.body.csrf_token as string };
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { headers: session, unchecked: true })).status, 200);
  const edId = all.body.tokens.find((x: { name: string }) => x.name === 'cli').id;
  t.equal((await owner.delete(`/api/v1/tokens/${edId}`)).status, 200);
  t.equal((await ed.get('/api/v1/domains')).status, 401, 'the token is refused');
  t.equal(
    (await request(s.url, 'GET', '/api/v1/domains', { headers: session, unchecked: true })).status,
    401,
    'its session too',
  );

  // Expiry: refused with 401, as a revoked token is, once its time has come
  t.equal((await scoped.get('/api/v1/domains')).status, 200);
  clock.advance(3_600_000);
  const expired = await scoped.get('/api/v1/domains');
  t.equal(expired.status, 401, 'an expired token is refused');
  t.equal(expired.body.code, 'UNAUTHORIZED');
});

t.test('a removed member loses every token and session at once', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const access = s.app.services.access;
  await access.addUser('acme', 'boss@example.com');
  await access.addUser('acme', 'leaver@example.com', 'editor');
  const a = (await access.createToken({ team: 'acme', user: 'leaver@example.com' })).token;
  const mine = await client(s.url, a).post('/api/v1/account/tokens', { name: 'second' });
  t.equal(mine.status, 201);
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token: mine.body.token }, unchecked: true });
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie }, unchecked: true })).status, 200);
  const r = await access.removeUser('acme', 'leaver@example.com');
  t.equal(r.revoked_tokens, 2);
  t.equal((await client(s.url, a).get('/api/v1/domains')).status, 401);
  t.equal((await client(s.url, mine.body.token).get('/api/v1/domains')).status, 401);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie }, unchecked: true })).status, 401);
});
