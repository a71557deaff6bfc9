// /health, /api/v1/validate, /api/v1/auth, the three ways to pass a token, revocation, token storage,
// rate limiting, unknown routes and the error body.
import fs from 'node:fs';
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { manualClock } from '../support/clock.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function isErrorBody(t: any, body: any, path: string) {
  t.type(body?.error, 'string', 'error is a message');
  t.match(body?.timestamp, ISO, 'timestamp is ISO 8601');
  t.equal(body?.path, path, 'path is the request path');
}

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('health: 200 while the database answers, 503 degraded once it is unusable', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close().catch(() => undefined));
  const ok = await request(s.url, 'GET', '/health');
  t.equal(ok.status, 200);
  t.match(ok.body, { status: 'healthy', service: 'dommon', version: 'v1', database: 'connected' });
  t.match(ok.body.timestamp, ISO);
  // Break the database underneath the running server.
  await s.app.store.close();
  const bad = await request(s.url, 'GET', '/health');
  t.equal(bad.status, 503);
  t.match(bad.body, { status: 'degraded', service: 'dommon', database: 'disconnected' });
  t.type(bad.body.error, 'string');
});

t.test('validate and auth answer the caller; 401 with the error body otherwise', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const created = await s.app.services.access.createToken({ team: 'ops', user: 'alice@example.com', name: 'ci' });
  const api = client(s.url, created.token);
  const v = await api.get('/api/v1/validate');
  t.equal(v.status, 200);
  t.match(v.body, { valid: true, team_id: created.team_id, token_name: 'ci' });
  t.type(v.body.message, 'string');
  const a = await api.post('/api/v1/auth');
  t.equal(a.status, 200);
  t.match(a.body, { authenticated: true, team_id: created.team_id, user_id: created.user_id, token_name: 'ci' });
  t.type(a.body.message, 'string');

  for (const [name, headers] of [
    ['no token', {}],
    ['unknown token', { authorization: 'Bearer dmn_notarealtoken' }],
    ['not a bearer scheme', { authorization: `Basic ${created.token}` }],
    ['empty bearer', { authorization: 'Bearer ' }],
  ] as const) {
    for (const [method, p] of [
      ['GET', '/api/v1/validate'],
      ['POST', '/api/v1/auth'],
      ['GET', '/api/v1/domains'],
    ] as const) {
      const r = await request(s.url, method, p, { headers: { ...headers } });
      t.equal(r.status, 401, `${name}: ${method} ${p}`);
      isErrorBody(t, r.body, p);
    }
  }
});

t.test('the three ways to pass a token', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const bearer = await request(s.url, 'GET', '/api/v1/validate', { headers: { authorization: `Bearer ${token}` } });
  t.equal(bearer.status, 200, 'Bearer header');
  const query = await request(s.url, 'GET', `/api/v1/validate?api_key=${encodeURIComponent(token)}`);
  t.equal(query.status, 200, 'api_key query');
  const body = await request(s.url, 'POST', '/api/v1/auth', { body: { api_key: token } });
  t.equal(body.status, 200, 'api_key body');
  t.equal(body.body.authenticated, true);
  // api_key in a create body authenticates and is not an unknown field
  const created = await request(s.url, 'POST', '/api/v1/portfolios', { body: { api_key: token, name: 'p1' } });
  t.equal(created.status, 201, 'api_key alongside the fields of a create');
  t.equal(created.body.name, 'p1');
  t.notOk('api_key' in created.body);
  // api_key in the query next to list filters is not an unknown filter
  const list = await request(s.url, 'GET', `/api/v1/portfolios?api_key=${encodeURIComponent(token)}&limit=5`);
  t.equal(list.status, 200);
  t.equal(list.body.total, 1);
  const wrongQuery = await request(s.url, 'GET', '/api/v1/validate?api_key=dmn_wrong');
  t.equal(wrongQuery.status, 401);
  const wrongBody = await request(s.url, 'POST', '/api/v1/auth', { body: { api_key: 'dmn_wrong' } });
  t.equal(wrongBody.status, 401);
});

t.test('revoked token is refused at once; last_used_at is recorded; only the hash is stored', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const access = s.app.services.access;
  const created = await access.createToken({ team: 'ops', name: 'to-revoke' });
  const other = await access.createToken({ team: 'ops', name: 'stays' });
  t.match(created.token, /^dmn_[A-Za-z0-9_-]{43,}$/, 'prefix + 32 random bytes');
  t.equal((await client(s.url, created.token).get('/api/v1/validate')).status, 200, 'valid and now cached');

  await access.flushUsage();
  const listed = (await access.listTokens('ops')).find((x) => x.id === created.id)!;
  t.match(listed.last_used_at, ISO, 'last_used_at written');
  t.equal((await access.listTokens('ops')).find((x) => x.id === other.id)!.last_used_at, null, 'unused token has none');
  t.notOk(JSON.stringify(await access.listTokens()).includes(created.token), 'token list never holds the secret');

  await access.revokeToken(created.id);
  const after = await client(s.url, created.token).get('/api/v1/validate');
  t.equal(after.status, 401, 'revoked token refused on the very next request');
  t.equal((await client(s.url, other.token).get('/api/v1/validate')).status, 200, 'other token still valid');

  // The database file holds the SHA-256 hash and never the raw token.
  void s.app.store.db; // keep the app open: read the files as they are (WAL included)
  const files = fs.readdirSync(s.dataDir).filter((f) => f.startsWith('dommon.db'));
  const raw = Buffer.concat(files.map((f) => fs.readFileSync(`${s.dataDir}/${f}`)));
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(other.token).digest('hex');
  t.ok(raw.includes(Buffer.from(hash)), 'the hash is in the database');
  t.notOk(raw.includes(Buffer.from(other.token)), 'the raw token is not');
  t.notOk(raw.includes(Buffer.from(other.token.slice(4))), 'nor its secret part');
});

t.test('a revoke by another process (the CLI) invalidates the daemon cache', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const created = await s.app.services.access.createToken({ team: 'ops' });
  t.equal((await client(s.url, created.token).get('/api/v1/validate')).status, 200);
  // A second store on the same file, as `dommon token revoke` opens it.
  const { openLocal } = await import('../../src/app.js');
  const other = await openLocal(s.config);
  await other.services.access.revokeToken(created.id);
  await other.store.close();
  t.equal((await client(s.url, created.token).get('/api/v1/validate')).status, 401);
});

t.test('unknown routes and methods answer the error body, never an empty 404', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  for (const p of ['/nope', '/api/v1/nope', '/api/v2/domains', '/api/v1/domains/x/y/z']) {
    const r = await api.get(p);
    t.equal(r.status, 404, p);
    isErrorBody(t, r.body, p);
  }
  const r = await request(s.url, 'GET', '/nope');
  t.equal(r.status, 404, 'without a token too');
  isErrorBody(t, r.body, '/nope');
  const m = await api.patch('/api/v1/domains');
  t.ok(m.status === 405 || m.status === 404, `PATCH on a list: ${m.status}`);
  isErrorBody(t, m.body, '/api/v1/domains');
});

t.test('rate limit per team: 429 with Retry-After and X-RateLimit-* headers', async (t) => {
  const clock = manualClock(new Date('2026-01-01T00:00:10Z'));
  const s = await startApp({ DOMMON_RATE_LIMIT: '3' }, { clock });
  t.teardown(() => s.close());
  const a = client(s.url, await s.token('a'));
  const a2 = client(s.url, await s.token('a', 'second@example.com'));
  const b = client(s.url, await s.token('b'));
  const r1 = await a.get('/api/v1/validate');
  t.equal(r1.headers.get('x-ratelimit-limit'), '3');
  t.equal(r1.headers.get('x-ratelimit-remaining'), '2');
  t.equal(r1.headers.get('x-ratelimit-reset'), String(Date.parse('2026-01-01T00:01:00Z') / 1000));
  t.equal((await a.get('/api/v1/domains')).headers.get('x-ratelimit-remaining'), '1');
  t.equal(
    (await a2.get('/api/v1/domains')).headers.get('x-ratelimit-remaining'),
    '0',
    'counted per team, not per token',
  );
  const over = await a.get('/api/v1/domains');
  t.equal(over.status, 429);
  t.equal(over.headers.get('retry-after'), '50');
  t.equal(over.headers.get('x-ratelimit-remaining'), '0');
  t.equal(over.headers.get('x-ratelimit-limit'), '3');
  isErrorBody(t, over.body, '/api/v1/domains');
  t.equal((await b.get('/api/v1/domains')).status, 200, 'another team has its own budget');
  clock.advance(50_000);
  const again = await a.get('/api/v1/domains');
  t.equal(again.status, 200, 'next window');
  t.equal(again.headers.get('x-ratelimit-remaining'), '2');
  const noAuth = await request(s.url, 'GET', '/health');
  t.equal(noAuth.status, 200, '/health is not rate limited');
});
