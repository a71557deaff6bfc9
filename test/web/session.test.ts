// The dashboard's server-side sessions (src/services/sessions.ts, src/web/session.ts; issue 38 item 4):
// the cookie holds a random session id (never the token; only its SHA-256 is stored), sign-out ends
// the session so the old cookie gets 401, revoking the token or removing the user ends it (also done
// by another instance on the same database), idle and absolute expiry, a cookie holding a token's value
// signs nobody in, the CSRF token is bound to the session, and over TLS (behind a trusted proxy) the
// cookie is Secure with the __Host- prefix while a plain-named cookie planted beside it is never read.
import { createHash } from 'node:crypto';
import t from 'tap';
import { pino } from 'pino';
import { request, startApp } from '../support/app.js';
import { createApp } from '../../src/app.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import type { Clock } from '../../src/domain/clock.js';

t.setTimeout(120_000);

function cookieOf(h: Headers, name = 'dommon_session'): string {
  const c = h.getSetCookie().find((x) => x.startsWith(`${name}=`));
  if (!c) throw new Error(`no ${name} cookie set`);
  return c;
}

async function signIn(url: string, token: string, headers: Record<string, string> = {}) {
  const r = await request(url, 'POST', '/ui/session', { body: { token }, headers, unchecked: true });
  if (r.status !== 201) throw new Error(`sign-in answered ${r.status}`);
  const cookie = cookieOf(r.headers, headers['x-forwarded-proto'] === 'https' ? '__Host-dommon_session' : undefined);
  const jar = cookie.split(';')[0]!;
  return { jar, id: jar.slice(jar.indexOf('=') + 1), csrf: r.body.csrf_token as string, cookie };
}

const domains = (url: string, headers: Record<string, string>) =>
  request(url, 'GET', '/api/v1/domains', { headers, unchecked: true });

t.test('the cookie holds a random session id, stored only as its hash; sign-out ends it', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('web', 'web@example.com');
  const a = await signIn(s.url, token);
  t.match(a.id, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.not(a.id, token, 'the cookie is not the token');
  const b = await signIn(s.url, token);
  t.not(a.id, b.id, 'each sign-in is a session of its own');
  t.not(a.csrf, b.csrf, 'with a CSRF token of its own');
  const withA = { cookie: a.jar, [CSRF_HEADER]: a.csrf };
  t.equal((await domains(s.url, withA)).status, 200);
  // The CSRF token of another session does not authorise this one's writes.
  const cross = await request(s.url, 'POST', '/api/v1/domains', {
    body: { domain: 'cross.example' },
    headers: { cookie: a.jar, [CSRF_HEADER]: b.csrf },
    unchecked: true,
  });
  t.equal(cross.status, 403);
  t.equal(cross.body.code, 'CSRF_TOKEN_INVALID');

  const out = await request(s.url, 'DELETE', '/ui/session', { headers: withA, unchecked: true });
  t.equal(out.status, 204);
  t.match(cookieOf(out.headers), /^dommon_session=;/, 'the cookie is cleared');
  // The old cookie, kept by whoever copied it, is worth nothing now.
  t.equal((await domains(s.url, withA)).status, 401, 'a read with the old cookie: 401');
  const write = await request(s.url, 'POST', '/api/v1/domains', {
    body: { domain: 'after.example' },
    headers: withA,
    unchecked: true,
  });
  t.equal(write.status, 401, 'a write with the old cookie and its CSRF token: 401');
  t.same((await request(s.url, 'GET', '/ui/session', { headers: withA, unchecked: true })).body, {
    signed_in: false,
  });
  t.equal((await domains(s.url, { cookie: b.jar })).status, 200, 'the other session lives on');
  const rows = await s.app.store.db.selectFrom('web_sessions').select(['id_hash']).execute();
  t.same(
    rows.map((r) => r.id_hash),
    [createHash('sha256').update(b.id).digest('hex')],
    'the database holds the live session, its id hashed',
  );
});

t.test('a cookie holding an API token (planted, or from before) signs nobody in', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('victim-team', 'v@example.com');
  const planted = { cookie: `dommon_session=${token}` };
  t.equal((await domains(s.url, planted)).status, 401);
  t.same((await request(s.url, 'GET', '/ui/session', { headers: planted, unchecked: true })).body, {
    signed_in: false,
  });
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).status, 200, 'the token itself still works');
});

t.test('revoking the token or removing the user ends its sessions, also from another instance', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const keep = await s.token('team', 'keep@example.com');
  const gone = await s.token('team', 'gone@example.com');
  const revoked = await s.token('team', 'revoked@example.com');
  const [k, g, r] = [await signIn(s.url, keep), await signIn(s.url, gone), await signIn(s.url, revoked)];
  for (const x of [k, g, r]) t.equal((await domains(s.url, { cookie: x.jar })).status, 200);

  // A second instance on the same database (as `dommon token revoke` / `dommon users remove` would be).
  const other = await createApp(s.config, { log: pino({ level: 'silent' }) });
  t.teardown(() => other.stop());
  const tok = (await other.services.access.listTokens('team')).find((x) => x.user === 'revoked@example.com')!;
  await other.services.access.revokeToken(tok.id);
  await other.services.access.removeUser('team', 'gone@example.com');

  t.equal((await domains(s.url, { cookie: r.jar })).status, 401, 'the revoked token: its session ended');
  t.equal((await domains(s.url, { cookie: g.jar })).status, 401, 'the removed user: the session ended');
  t.equal((await domains(s.url, { cookie: k.jar })).status, 200, 'the others live on');
  const left = await s.app.store.db.selectFrom('web_sessions').select('token_id').execute();
  t.equal(left.length, 1, 'the ended sessions are gone from the database');
});

t.test('a session ends when idle (12 h) and at the latest 7 days after sign-in', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const clock: Clock = { now: () => new Date(now) };
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  const token = await s.token('clock', 'c@example.com');
  const a = await signIn(s.url, token);
  const lastSeen = async () =>
    Number((await s.app.store.db.selectFrom('web_sessions').select('last_seen').executeTakeFirstOrThrow()).last_seen);

  // Used every 11 hours, it lives on. 15 uses 11 h apart: the last at 165 h, within the 168 h (7 days) of its absolute lifetime.
  for (let i = 1; i <= 15; i++) {
    now += 11 * 3_600_000;
    t.equal((await domains(s.url, { cookie: a.jar })).status, 200, `${i * 11} h after sign-in`);
  }
  // Past 7 days it ends however recently it was used.
  now += 3 * 3_600_000 + 1;
  t.equal((await domains(s.url, { cookie: a.jar })).status, 401, 'past the absolute end: 401');

  const b = await signIn(s.url, token);
  const signedInAt = now;
  // The last use is written at most once a minute, not per request.
  now += 30_000;
  t.equal((await domains(s.url, { cookie: b.jar })).status, 200);
  t.equal(await lastSeen(), signedInAt, 'not written again within the minute');
  now += 31_000;
  t.equal((await domains(s.url, { cookie: b.jar })).status, 200);
  t.equal(await lastSeen(), now, 'written after a minute');
  now += 12 * 3_600_000;
  t.equal((await domains(s.url, { cookie: b.jar })).status, 401, '12 h unused: 401');
  const c = await signIn(s.url, token);
  now += 8 * 86_400_000;
  // The retention job removes what has expired.
  t.equal((await s.app.retention.runOnce()).deleted.web_sessions, 1, 'the retention job removes it');
  t.equal((await domains(s.url, { cookie: c.jar })).status, 401);
});

t.test('over TLS behind a trusted proxy: Secure, __Host-, and a planted plain cookie is not read', async (t) => {
  const trusted = await startApp({ DOMMON_TRUST_PROXY: 'true' });
  t.teardown(() => trusted.close());
  const token = await trusted.token('tls', 't@example.com');
  const https = { 'x-forwarded-proto': 'https' };
  const a = await signIn(trusted.url, token, https);
  t.match(a.cookie, /^__Host-dommon_session=[A-Za-z0-9_-]{43}; /);
  t.match(a.cookie, /; secure/i);
  t.match(a.cookie, /; path=\/;/i);
  t.notMatch(a.cookie, /domain=/i, 'no Domain attribute (__Host- forbids it)');
  t.match(a.cookie, /; samesite=strict/i);
  t.match(a.cookie, /; httponly/i);
  t.equal((await domains(trusted.url, { ...https, cookie: a.jar })).status, 200);
  // A session id in the plain-named cookie (as a sibling host could set for the parent domain) is
  // not read over TLS, even a valid one.
  const plain = await signIn(trusted.url, token);
  t.match(plain.cookie, /^dommon_session=/, 'plain HTTP through the proxy: the plain name');
  t.notMatch(plain.cookie, /secure/i);
  t.equal((await domains(trusted.url, { ...https, cookie: plain.jar })).status, 401);

  // Without --trust-proxy the header is anybody's: ignored.
  const direct = await startApp();
  t.teardown(() => direct.close());
  const d = await signIn(direct.url, await direct.token('tls', 't@example.com'), {});
  const spoofed = await request(direct.url, 'POST', '/ui/session', {
    body: { token: await direct.token('tls2', 'u@example.com') },
    headers: https,
    unchecked: true,
  });
  t.equal(spoofed.status, 201);
  t.match(cookieOf(spoofed.headers), /^dommon_session=/, 'X-Forwarded-Proto is not believed');
  t.notMatch(cookieOf(spoofed.headers), /secure/i);
  t.equal((await domains(direct.url, { cookie: d.jar })).status, 200);
});

t.test('a session acts as the token it came from: an operator token signs in to the node details', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const nodes = async (token: string) => {
    const a = await signIn(s.url, token);
    return (await request(s.url, 'GET', '/api/v1/nodes', { headers: { cookie: a.jar }, unchecked: true })).body;
  };
  const op = await nodes(await s.token('ops', 'op@example.com', { operator: true }));
  t.equal(op.detail, 'full');
  t.ok(Array.isArray(op.data) && op.data.length >= 1, 'the node table');
  const team = await nodes(await s.token('web', 'web@example.com'));
  t.equal(team.detail, 'summary');
  t.equal(team.data, undefined, 'no node details from an ordinary token');
});
