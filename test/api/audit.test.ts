// The audit trail through the real app: every write route of the route table (OPERATIONS) is called
// once and must leave at least one entry carrying its request id (a new write route without one fails
// here), with the actor, the token, the object's before and after and its secrets masked; a refused
// change leaves none; a configuration apply is one entry per object it changed, under its apply id;
// reading is refused to read-only tokens and scoped to the team; cursor paging and the JSON lines export.
import { createHash } from 'node:crypto';
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { startExposureDns } from '../support/exposure-dns.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { CSRF_HEADER } from '../../src/web/session.js';

t.setTimeout(180_000);

/** Write operations that change nothing, so they record nothing. */
const EXEMPT = new Set([
  'POST /api/v1/auth',
  'POST /api-auth',
  // A person's passkeys are added and removed from a signed-in session with an authenticator, never
  // with a token (403 ACCOUNT_SESSION_REQUIRED): test/web/passkeys.test.ts checks both entries in a
  // real browser. The options only make a challenge, which changes nothing an owner audits.
  'POST /api/v1/account/passkeys/options',
  'POST /api/v1/account/passkeys',
  'DELETE /api/v1/account/passkeys/:passkeyId',
]);
/** Operations without a token (a push endpoint's ping URLs) are results, as the scheduler's are: no person acts. */
const WRITES = OPERATIONS.filter(
  (o) => o.method !== 'get' && o.auth !== false && !EXEMPT.has(`${o.method.toUpperCase()} ${o.path}`),
);

const pattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);

t.test('every write route records its change, in its transaction, with secrets masked', async (t) => {
  const dns = await startExposureDns([]);
  t.teardown(() => dns.close());
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000', DOMMON_DNS_SERVERS: dns.server });
  t.teardown(() => s.close());
  const token = await s.token('audited', 'ann@example.com');
  const raw = client(s.url, token);
  const tokenRow = (await s.app.services.access.listTokens('audited'))[0]!;

  // Each write call: the operation it matched and the request id it was answered with.
  const calls = new Map<string, string[]>();
  const ops = WRITES;
  const track = (method: string) => async (path: string, body?: unknown) => {
    const r = await raw[method as 'post'](path, body);
    const bare = path.split('?')[0]!;
    const op = ops.find(
      (o) => o.method === method && (pattern(o.path).test(bare) || (o.alias && pattern(o.alias).test(bare))),
    );
    if (op && r.status < 300) {
      const key = `${method.toUpperCase()} ${op.path}`;
      calls.set(key, [...(calls.get(key) ?? []), r.headers.get('x-request-id') ?? '']);
    }
    return r;
  };
  const api = { get: raw.get, post: track('post'), put: track('put'), delete: track('delete') };

  const pf = (await api.post('/api/v1/portfolios', { name: 'Main' })).body;
  await api.put(`/api/v1/portfolios/${pf.id}`, { description: 'all' });
  const d = (await api.post('/api/v1/domains', { domain: 'audit.test', portfolio_id: pf.id })).body;
  t.equal((await api.post('/api/v1/domains/bulk', { domains: [{ domain: 'bulk.test' }] })).body.created, 1);
  const noted = await api.put(`/api/v1/domains/${d.id}`, { notes: 'audited' });
  await api.post(`/api/v1/domains/${d.id}/security`);
  await api.post(`/api/v1/domains/${d.id}/registration`);
  // Verified through a real TXT record on the loopback resolver, so exposure can be switched on and scanned.
  dns.records.push({ name: `_dommon-verify.audit.test`, type: 'TXT', data: d.verification_token });
  t.equal((await api.post(`/api/v1/domains/${d.id}/verification`)).body.is_verified, true);
  t.equal((await api.put(`/api/v1/domains/${d.id}/exposure`, { enabled: true })).status, 200);
  t.equal((await api.post(`/api/v1/domains/${d.id}/exposure/scans`)).status, 202);
  const sub = (await api.post(`/api/v1/domains/${d.id}/exposure/subdomains`, { name: 'www' })).body;
  t.equal((await api.delete(`/api/v1/domains/${d.id}/exposure/subdomains/${sub.id}`)).status, 200);

  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const eb = (
    await api.post('/api/v1/endpoints/bulk', { endpoints: [{ domain_id: d.id, name: 'b', endpoint_type: 'http' }] })
  ).body;
  await api.put(`/api/v1/endpoints/${e.id}`, { notes: 'front' });
  const l = (
    await api.post('/api/v1/liveness', {
      endpoint_id: e.id,
      is_enabled: false,
      auth: { type: 'bearer', token: 'bearer-secret-1234' },
    })
  ).body;
  await api.put(`/api/v1/liveness/${l.id}`, { expected_status_code: 204 });
  t.match(
    (await api.post('/api/v1/liveness/bulk', { liveness: [{ endpoint_id: eb.data[0].id, is_enabled: false }] })).body,
    {
      created: 1,
    },
  );
  const acted = await api.post('/api/v1/endpoints/bulk-actions', {
    action: 'resume',
    endpoint_ids: [e.id, eb.data[0].id],
  });
  t.match(acted.body, { succeeded: 2 });
  await api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook', secret_key: 'supersecretvalue' },
  });
  await api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: 'http://127.0.0.1:9/hook' });
  const sp = (await api.post('/api/v1/status-pages', { portfolio_id: pf.id, slug: 'audit', title: 'Audit' })).body;
  await api.put(`/api/v1/status-pages/${sp.id}`, { title: 'Audited' });
  await api.delete(`/api/v1/status-pages/${sp.id}`);
  const mw = (
    await api.post('/api/v1/maintenance-windows', {
      name: 'nightly',
      cron: '0 3 * * *',
      duration_minutes: 30,
      domain_ids: [d.id],
    })
  ).body;
  await api.put(`/api/v1/maintenance-windows/${mw.id}`, { is_enabled: false });
  await api.delete(`/api/v1/maintenance-windows/${mw.id}`);
  const dry = await raw.post('/api/v1/config/apply?dry_run=true', {
    file: 'version: 1\nportfolios: [{ name: Dry }]\n',
  });
  t.equal(dry.body.applied, false);
  const applied = await api.post('/api/v1/config/apply', {
    file: 'version: 1\nportfolios: [{ name: Main, description: from file }, { name: Filed }]\n',
  });
  t.equal(applied.body.applied, true);
  await api.delete(`/api/v1/liveness/${l.id}`);
  await api.delete(`/api/v1/endpoints/${e.id}`);
  const bulkDomain = (await api.get('/api/v1/domains?domain=bulk.test')).body.data[0];
  await api.delete(`/api/v1/domains/${bulkDomain.id}`);
  const spare = (await api.post('/api/v1/portfolios', { name: 'Spare' })).body;
  await api.delete(`/api/v1/portfolios/${spare.id}`);
  // Tokens in account settings: one's own made and revoked, and one revoked by the owner's path.
  const own = (await api.post('/api/v1/account/tokens', { name: 'mine', role: 'editor' })).body;
  await api.delete(`/api/v1/account/tokens/${own.id}`);
  const another = (await api.post('/api/v1/account/tokens', { read_only: true })).body;
  await api.delete(`/api/v1/tokens/${another.id}`);
  // Members: one added, given another role and removed by the owner.
  const member = await s.app.services.access.addUser('audited', 'member@example.com', 'viewer');
  await api.put(`/api/v1/members/${member.id}`, { role: 'editor' });
  await api.delete(`/api/v1/members/${member.id}`);
  // Invitations: one made and withdrawn; a reset link for a member.
  const invited = (await api.post('/api/v1/invitations', { email: 'guest@example.com', role: 'viewer' })).body;
  await api.delete(`/api/v1/invitations/${invited.id}`);
  await s.app.services.access.addUser('audited', 'forgetful@example.com', 'editor');
  await api.post('/api/v1/password-resets', { email: 'forgetful@example.com' });

  // A refused change (a taken name) leaves no entry: the row is written with the change or not at all.
  const refused = await raw.post('/api/v1/domains', { domain: 'audit.test' });
  t.equal(refused.status, 409);

  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await raw.get(`/api/v1/audit?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(page.status, 200);
    t.ok(page.body.data.length <= 7);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  t.same(
    all.map((x) => x.id),
    [...all.map((x) => x.id)].sort().reverse(),
    'newest first, and the cursor pages through every entry once',
  );
  t.equal(new Set(all.map((x) => x.id)).size, all.length);

  const missing: string[] = [];
  for (const op of ops) {
    const key = `${op.method.toUpperCase()} ${op.path}`;
    const ids = calls.get(key);
    if (!ids) missing.push(`${key}: never called by this test`);
    else if (!ids.every((id) => id && all.some((x) => x.request_id === id))) missing.push(`${key}: no audit entry`);
  }
  t.same(missing, [], 'every write route leaves an entry with its request id');
  t.notOk(
    all.some((x) => x.request_id === refused.headers.get('x-request-id')),
    'a refused change leaves no entry',
  );

  // Who and through what.
  for (const x of all.filter((x) => x.via.kind === 'token')) {
    t.same(x.actor, { user_id: tokenRow.user_id, email: 'ann@example.com' });
    t.same(x.via, { kind: 'token', id: tokenRow.id, name: tokenRow.name });
  }
  const upd = all.find((x) => x.request_id === noted.headers.get('x-request-id'));
  t.match(upd, { object: { id: d.id, name: 'audit.test' }, before: { notes: null }, after: { notes: 'audited' } });
  t.match(
    all.find((x) => x.object.kind === 'portfolio' && x.action === 'create' && x.object.name === 'Main'),
    { before: null, after: { name: 'Main' } },
  );
  t.match(
    all.find((x) => x.object.kind === 'endpoint' && x.action === 'delete'),
    {
      object: { id: e.id, name: 'audit.test/web' },
      after: null,
    },
  );
  // The bulk action: one entry per object (the two configs resumed).
  const resumed = all.filter((x) => x.request_id === acted.headers.get('x-request-id'));
  t.same(resumed.map((x) => x.action).sort(), ['resume', 'resume']);
  // Secrets are masked wherever they are: the channel's secret key and the liveness bearer token.
  const text = JSON.stringify(all);
  t.notMatch(text, /supersecretvalue/);
  t.notMatch(text, /bearer-secret-1234/);
  t.match(
    all.find((x) => x.object.kind === 'channel' && x.action === 'create'),
    {
      after: { config: { secret_key: '********' } },
    },
  );
  t.match(
    all.find((x) => x.object.id === l.id && x.action === 'create'),
    {
      after: { auth: { type: 'bearer', sealed: '********' } },
    },
  );
  // A configuration apply: one entry per object changed, each through the apply's id; a dry run none.
  const fromApply = all.filter((x) => x.via.kind === 'config-apply');
  t.same(fromApply.map((x) => `${x.action} ${x.object.name}`).sort(), ['create Filed', 'update Main']);
  t.ok(fromApply.every((x) => x.via.id === applied.body.apply_id && x.actor.email === 'ann@example.com'));
  t.notOk(
    all.some((x) => x.request_id === dry.headers.get('x-request-id')),
    'a dry run records nothing',
  );

  // Filters.
  const byObject = await raw.get(`/api/v1/audit?object_kind=domain&object_id=${d.id}&action=update`);
  t.ok(byObject.body.data.length >= 2);
  t.ok(byObject.body.data.every((x: any) => x.object.id === d.id && x.action === 'update'));
  t.equal((await raw.get('/api/v1/audit?actor=ann@example.com')).body.data.length, Math.min(50, all.length));
  t.same((await raw.get('/api/v1/audit?actor=nobody@example.com')).body.data, []);
  t.same((await raw.get('/api/v1/audit?until=2000-01-01')).body.data, []);
  t.equal(
    (await raw.get(`/api/v1/audit?since=${new Date(Date.now() - 3_600_000).toISOString()}&limit=500`)).body.data.length,
    all.length,
  );
  t.equal((await raw.get('/api/v1/audit?cursor=nope')).status, 400);
  t.equal((await raw.get('/api/v1/audit?since=yesterday')).status, 400);

  // The JSON lines export: every entry, one a line, by query or by Accept.
  for (const r of [
    // Checked: the OpenAPI document lists application/x-ndjson beside the JSON page.
    await request(s.url, 'GET', '/api/v1/audit?format=jsonl', { token }),
    await request(s.url, 'GET', '/api/v1/audit', { token, headers: { accept: 'application/x-ndjson' } }),
  ]) {
    t.equal(r.status, 200);
    t.match(r.headers.get('content-type'), /application\/x-ndjson/);
    const lines = r.text
      .trimEnd()
      .split('\n')
      .map((x) => JSON.parse(x));
    t.same(
      lines.map((x) => x.id),
      all.map((x) => x.id),
    );
  }

  // Owners read it: an editor's token and a read-only token (a viewer's) are refused; another team sees none of it.
  for (const opts of [{ readOnly: true }, { role: 'editor' as const }]) {
    const reader = client(s.url, (await s.app.services.access.createToken({ team: 'audited', ...opts })).token);
    const denied = await reader.get('/api/v1/audit');
    t.equal(denied.status, 403);
    t.equal(denied.body.code, 'FORBIDDEN_ROLE');
  }
  const other = client(s.url, await s.token('other-team'));
  t.same((await other.get('/api/v1/audit')).body, { data: [], next_cursor: null });
});

t.test('a dashboard session is the door of its changes, named by a reference that is not its cookie', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('web', 'web@example.com');
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  t.equal(signIn.status, 201);
  const jar = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const sid = jar.slice(jar.indexOf('=') + 1);
  const made = await request(s.url, 'POST', '/api/v1/portfolios', {
    body: { name: 'from the dashboard' },
    headers: { cookie: jar, [CSRF_HEADER]: signIn.body.csrf_token },
  });
  t.equal(made.status, 201);
  const [entry] = (await client(s.url, token).get('/api/v1/audit')).body.data;
  t.match(entry, {
    action: 'create',
    object: { kind: 'portfolio', name: 'from the dashboard' },
    actor: { email: 'web@example.com' },
    via: { kind: 'session', id: createHash('sha256').update(sid).digest('hex').slice(0, 16) },
    request_id: made.headers.get('x-request-id'),
  });
  t.notMatch(JSON.stringify(entry), sid, 'never the cookie itself');
});
