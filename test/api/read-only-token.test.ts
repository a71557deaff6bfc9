// Read-only API tokens (docs/security.md): every documented write operation (each method other than
// GET, on the Public API and its User API twins, taken from the OpenAPI operation table) answers 403
// READ_ONLY_TOKEN with the spec error body and changes nothing; reads answer as for a full token;
// the dashboard session tells the client the scope and refuses the session's writes the same way.
import t from 'tap';
import { client, firstLookupsDone, request, startApp } from '../support/app.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { CSRF_HEADER } from '../../src/web/session.js';

const ANY_ID = '00000000-0000-4000-8000-000000000000';

/** A concrete path for a koa-router path: UUID parameters get a (missing) id, others a valid value. */
function concrete(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    name === 'type' ? 'email' : name === 'slug' ? 'some-page' : ANY_ID,
  );
}

t.test('a read-only token reads, and every write operation is refused with 403 READ_ONLY_TOKEN', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const full = client(s.url, await s.token('ro', 'owner@example.com'));
  const created = await s.app.services.access.createToken({ team: 'ro', name: 'viewer', readOnly: true });
  t.equal(created.read_only, true);
  const ro = client(s.url, created.token);

  const pf = await full.post('/api/v1/portfolios', { name: 'Main' });
  const d = await full.post('/api/v1/domains', { domain: 'kept.example', portfolio_id: pf.body.id });
  t.equal(d.status, 201);

  // Reads: the same answers as the full token's, once the new domain's first background look-ups (each
  // of which changes its answers) have run.
  await firstLookupsDone(s, d.body.id);
  for (const p of ['/api/v1/domains', `/api/v1/domains/${d.body.id}`, '/api/v1/portfolios', '/api-domains']) {
    const [a, b] = [await ro.get(p), await full.get(p)];
    t.equal(a.status, 200, `GET ${p}`);
    t.same(a.body, b.body, `GET ${p} answers as for a full token`);
  }
  t.equal((await ro.get('/api/v1/validate')).body.valid, true);
  const auth = await ro.post('/api/v1/auth');
  t.equal(auth.status, 200, 'POST /api/v1/auth only checks the token: allowed');
  t.equal(auth.body.token_name, 'viewer');

  // Every documented write, at its real id where one exists (so nothing is refused for another reason).
  const writes = OPERATIONS.filter((op) => op.method !== 'get' && op.auth !== false && op.path !== '/api/v1/auth');
  t.ok(writes.length >= 25, `${writes.length} write operations`);
  let checked = 0;
  for (const op of writes)
    for (const raw of [op.path, op.alias].filter((x): x is string => !!x)) {
      const p = concrete(raw).replace(ANY_ID, raw.includes(':domainId') ? d.body.id : ANY_ID);
      const res = await request(s.url, op.method.toUpperCase(), p, { token: created.token, body: {} });
      t.equal(res.status, 403, `${op.method.toUpperCase()} ${raw}`);
      t.match(res.body, { error: /read-only/, code: 'READ_ONLY_TOKEN', timestamp: String, path: p });
      checked++;
    }
  t.ok(checked > writes.length, 'User API twins are checked too');

  // The credential can also come as api_key in the query or body: the same refusal.
  const q = await request(s.url, 'POST', `/api/v1/portfolios?api_key=${created.token}`, { body: { name: 'X' } });
  t.equal(q.status, 403);
  const b = await request(s.url, 'POST', '/api/v1/portfolios', { body: { name: 'X', api_key: created.token } });
  t.equal(b.body.code, 'READ_ONLY_TOKEN');

  // Nothing changed.
  t.same(
    (await full.get('/api/v1/domains')).body.data.map((x: { domain: string }) => x.domain),
    ['kept.example'],
  );
  t.same(
    (await full.get('/api/v1/portfolios')).body.data.map((x: { name: string }) => x.name),
    ['Main'],
  );

  // A full token of the same team still writes.
  t.equal((await full.post('/api/v1/portfolios', { name: 'Second' })).status, 201);

  // Listed with its scope.
  const listed = await s.app.services.access.listTokens('ro');
  t.same(
    listed.map((x) => [x.name, x.read_only]),
    [
      [listed[0]!.name, false],
      ['viewer', true],
    ],
  );
});

t.test('a read-only dashboard session: the scope is in /ui/session and its writes are refused', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const { token } = await s.app.services.access.createToken({ team: 'web', readOnly: true });
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  t.equal(signIn.status, 201, 'a read-only token signs in');
  t.equal(signIn.body.read_only, true);
  const jar = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const me = await request(s.url, 'GET', '/ui/session', { headers: { cookie: jar }, unchecked: true });
  t.equal(me.body.read_only, true);
  const headers = { cookie: jar, [CSRF_HEADER]: signIn.body.csrf_token as string };
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { headers })).status, 200);
  const w = await request(s.url, 'POST', '/api/v1/domains', { body: { domain: 'no.example' }, headers });
  t.equal(w.status, 403);
  t.equal(w.body.code, 'READ_ONLY_TOKEN');
  const out = await request(s.url, 'DELETE', '/ui/session', { headers, unchecked: true });
  t.equal(out.status, 204, 'signing out is allowed');
});
