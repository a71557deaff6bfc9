// Every documented success answer of the Public API is produced once by the real server, so each
// response schema in schemas/responses/ is proven against a real answer (client() validates them).
// The User API twins are covered the same way by test/api/user-api.test.ts.
// tap-files: alone (asserts on every OpenAPI answer its process saw: other files' answers would count)
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { SoftPasskey } from '../support/webauthn.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { toOpenApiPath } from '../../src/api/openapi/document.js';
import { responsesSeen } from '../support/openapi.js';

t.test('every Public API operation answers its documented success status with a valid body', async (t) => {
  // DOMMON_NOTIFY_INTERVAL far out: the queued test send stays queued while we read it.
  const s = await startApp({ DOMMON_NOTIFY_INTERVAL: '1' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('coverage', 'cov@example.com'));
  const anon = client(s.url);

  t.equal((await anon.get('/health')).status, 200);
  t.equal((await anon.get('/api/v1/openapi.json')).status, 200);
  t.equal((await anon.get('/docs')).status, 200);
  t.equal((await anon.get('/api/v1/config/schema.json')).status, 200);
  t.equal((await anon.get('/docs/dommon-docs.js')).status, 200);
  t.match((await anon.get('/metrics')).text, /^dommon_/m, 'Prometheus text without DOMMON_METRICS_TOKEN');
  t.equal((await api.get('/api/v1/validate')).status, 200);
  t.equal((await api.post('/api/v1/auth')).status, 200);
  t.equal((await api.get('/api/v1/nodes')).body.live, 1, 'the node list holds this node');
  const plan = await api.post('/api/v1/config/apply?dry_run=true', {
    file: 'version: 1\nportfolios: [{ name: Planned }]\n',
  });
  t.equal(plan.body.summary.portfolio.create, 1, 'a configuration file planned');

  const pf = await api.post('/api/v1/portfolios', { name: 'Main', description: 'all of them' });
  t.equal(pf.status, 201);
  t.equal((await api.get('/api/v1/portfolios?name=ma')).body.data[0].name, 'Main');
  t.equal((await api.get(`/api/v1/portfolios/${pf.body.id}`)).body.description, 'all of them');
  t.equal((await api.put(`/api/v1/portfolios/${pf.body.id}`, { description: null })).body.description, null);
  t.match(
    (await api.get('/api/v1/config/export')).body.file,
    /\nportfolios:\n {2}- name: Main\n/,
    'the setup exported',
  );

  const d = await api.post('/api/v1/domains', {
    domain: 'cover.example',
    portfolio_id: pf.body.id,
    dkim_selectors: ['s1'],
  });
  t.equal(d.status, 201);
  t.equal((await api.get(`/api/v1/portfolios/${pf.body.id}`)).body.domain_count, 1);
  t.equal((await api.delete(`/api/v1/portfolios/${pf.body.id}`)).status, 409);
  t.equal((await api.post('/api/v1/domains/bulk', { domains: [{ domain: 'cover2.example' }] })).body.created, 1);
  t.equal((await api.get('/api/v1/domains?portfolio_id=' + pf.body.id)).body.pagination.total, 1);
  t.same((await api.get(`/api/v1/domains/${d.body.id}`)).body.dkim_selectors, ['s1']);
  t.equal(
    (await api.put(`/api/v1/domains/${d.body.id}`, { portfolio_id: null, expiry_date: '2030-01-31' })).body.expiry_date,
    '2030-01-31',
  );
  const ds = await api.get(`/api/v1/domains/${d.body.id}/status`);
  t.equal(ds.body.whois_expiry, '2030-01-31');
  t.equal(ds.body.whois.expiry_date, '2030-01-31');

  // Domain intelligence (DNS, RDAP and WHOIS point at closed loopback ports here: the answers say so).
  t.equal((await api.get(`/api/v1/domains/${d.body.id}/security`)).body.domain, 'cover.example');
  t.equal((await api.post(`/api/v1/domains/${d.body.id}/security`)).status, 200);
  t.equal((await api.get(`/api/v1/domains/${d.body.id}/registration`)).body.effective_expiry_date, '2030-01-31');
  t.equal((await api.post(`/api/v1/domains/${d.body.id}/registration`)).body.expiry_source, 'manual');
  t.equal((await api.get(`/api/v1/domains/${d.body.id}/verification`)).body.is_verified, false);
  t.equal((await api.post(`/api/v1/domains/${d.body.id}/verification`)).body.is_verified, false);
  t.equal(
    (await api.put(`/api/v1/domains/${d.body.id}/exposure`, { enabled: false })).body.exposure_monitoring_enabled,
    false,
  );
  t.equal((await api.put(`/api/v1/domains/${d.body.id}/exposure`, { enabled: true })).status, 403);
  const rn = await api.get('/api/v1/renewals?type=domains');
  t.same(
    rn.body.data.map((r: { name: string; expiry_date: string }) => [r.name, r.expiry_date]),
    [['cover.example', '2030-01-31']],
  );

  const e = await api.post('/api/v1/endpoints', {
    domain_id: d.body.id,
    name: 'web',
    endpoint_type: 'https',
    port: 8443,
    path: '/x',
  });
  t.equal(e.status, 201);
  t.equal(e.body.full_url, 'https://cover.example:8443/x');
  const eb = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [{ domain_id: d.body.id, name: 'b', endpoint_type: 'http' }],
  });
  t.equal(eb.body.created, 1);
  t.equal((await api.get('/api/v1/endpoints?endpoint_type=https')).body.data.length, 1);
  // The TLS worker looks for new endpoints every 2 s and may already have tried this one (DNS points
  // at a closed port here): not inspected yet, or its failed handshake.
  t.match((await api.get(`/api/v1/endpoints/${e.body.id}`)).body.ssl_status, /^(unknown|error)$/);
  t.equal((await api.put(`/api/v1/endpoints/${e.body.id}`, { is_enabled: false })).body.is_enabled, false);
  t.match((await api.get(`/api/v1/endpoints/${e.body.id}/status`)).body.overall_health, /^(unknown|critical)$/);

  const l = await api.post('/api/v1/liveness', { endpoint_id: e.body.id, is_enabled: false });
  t.equal(l.status, 201);
  t.equal((await api.get('/api/v1/liveness?is_enabled=false')).body.data.length, 1);
  t.equal((await api.get(`/api/v1/liveness/${l.body.id}`)).body.endpoint_url, 'https://cover.example:8443/x');
  t.equal(
    (await api.put(`/api/v1/liveness/${l.body.id}`, { expected_status_code: 204 })).body.expected_status_code,
    204,
  );
  t.same((await api.get(`/api/v1/liveness/${l.body.id}/results`)).body.data, []);
  t.equal((await api.get(`/api/v1/liveness/${l.body.id}/stats?days=7`)).body.days, 7);
  t.equal((await api.get(`/api/v1/liveness/${l.body.id}/status`)).body.status, 'unknown');
  t.same((await api.get(`/api/v1/liveness/${l.body.id}/hourly`)).body, { data: [], hours: 168 });
  t.equal((await api.get(`/api/v1/endpoints/${e.body.id}/certificates`)).body.endpoint_id, e.body.id);
  const push = await api.post('/api/v1/endpoints', { domain_id: d.body.id, name: 'cron', endpoint_type: 'push' });
  t.equal(push.status, 201);
  t.equal((await api.get(`/api/v1/endpoints/${push.body.id}/pings`)).body.ping_url, push.body.ping_url);
  // The ping URLs: public, plain text, each documented answer checked.
  const pingPath = new URL(push.body.ping_url).pathname;
  t.equal((await anon.get(`${pingPath}/start`)).text, 'OK');
  t.equal((await anon.post(`${pingPath}/0`, 'done\n')).text, 'OK');
  t.equal((await anon.post(pingPath, 'all good')).text, 'OK');
  t.equal((await anon.get(pingPath)).text, 'OK');
  t.equal((await anon.get(`${pingPath}/nope`)).status, 404);
  t.equal((await anon.get('/ping/00000000-0000-4000-8000-000000000000')).text, 'not found');
  // Uptime Kuma's push URL on the same key: JSON answers.
  t.same((await anon.get(`/api/push/${push.body.ping_key}?status=up&msg=OK&ping=`)).body, { ok: true });
  t.same((await anon.post(`/api/push/${push.body.ping_key}?status=up&ping=12`)).body, { ok: true });
  t.equal((await anon.get(`/api/push/${push.body.ping_key}?ping=x`)).status, 400);
  t.equal((await anon.get('/api/push/00000000-0000-4000-8000-000000000000')).body.ok, false);
  const job = client(s.url, push.body.ping_key);
  t.equal((await job.post('/api/v1/endpoints/jobs_nightly/external?success=true&duration=2s')).status, 200);
  t.equal((await api.get(`/api/v1/events?category=endpoint_down`)).body.total, 0);
  t.ok((await api.get('/api/v1/home?type=endpoint')).body.data.some((r: { id: string }) => r.id === e.body.id));
  t.same((await api.get(`/api/v1/endpoints/${e.body.id}/incidents`)).body.data, []);
  const lb = await api.post('/api/v1/liveness/bulk', {
    liveness: [{ endpoint_id: eb.body.data[0].id, is_enabled: false }, { endpoint_id: e.body.id }],
  });
  t.match(lb.body, { created: 1, failed: 1, errors: [{ index: 1, code: 'LIVENESS_EXISTS' }] });
  const acted = await api.post('/api/v1/endpoints/bulk-actions', {
    action: 'resume',
    endpoint_ids: [eb.body.data[0].id],
  });
  t.match(acted.body, { action: 'resume', succeeded: 1, failed: 0 });
  const inline = await api.post('/api/v1/endpoints', {
    domain_id: d.body.id,
    name: 'inline',
    endpoint_type: 'http',
    liveness: { is_enabled: false },
  });
  t.match(
    inline.body.liveness,
    { endpoint_id: inline.body.id, is_enabled: false, interval_seconds: 60 },
    'the Endpoint answer with its inline liveness',
  );

  const set = await api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook', secret_key: 'supersecretvalue' },
  });
  t.equal(set.status, 200);
  t.equal(set.body.config.secret_key, '********alue');
  t.equal((await api.get('/api/v1/notifications/settings')).body.length, 1);
  const test = await api.post('/api/v1/notifications/test', {
    channel: 'webhook',
    recipient: 'http://127.0.0.1:9/hook',
    metadata: { a: 1 },
  });
  t.equal(test.status, 201);
  t.equal(test.body.status, 'queued');
  t.ok(Array.isArray((await api.get('/api/v1/notifications/log')).body));
  // The log entry exists from the first delivery attempt (the worker runs every second here).
  let entry = await api.get(`/api/v1/notifications/log/${test.body.id}`);
  for (let i = 0; i < 100 && entry.status === 404; i++) {
    await new Promise((r) => setTimeout(r, 100));
    entry = await api.get(`/api/v1/notifications/log/${test.body.id}`);
  }
  t.equal(entry.status, 200);
  t.same(entry.body.metadata, { a: 1 });

  // Status pages: the owner's API and the public page, its data and its stylesheet.
  t.equal((await api.put(`/api/v1/domains/${d.body.id}`, { portfolio_id: pf.body.id })).status, 200);
  const sp = await api.post('/api/v1/status-pages', {
    portfolio_id: pf.body.id,
    slug: 'cover',
    title: 'Cover',
    endpoints: [{ endpoint_id: e.body.id }],
  });
  t.equal(sp.status, 201);
  t.equal((await api.get('/api/v1/status-pages')).body.total, 1);
  t.equal((await api.get(`/api/v1/status-pages/${sp.body.id}`)).body.slug, 'cover');
  t.equal((await api.put(`/api/v1/status-pages/${sp.body.id}`, { title: 'Covered' })).body.title, 'Covered');
  t.equal((await anon.get('/status/cover')).status, 200);
  t.equal((await anon.get('/status/cover.json')).body.title, 'Covered');
  t.equal((await anon.get('/status/assets/status-page.css')).status, 200);
  t.match((await anon.get(`/badge/cover/${e.body.id}/status.svg`)).text, /<svg[^>]*>.*unknown/);
  t.equal((await api.delete(`/api/v1/status-pages/${sp.body.id}`)).status, 200);

  // Maintenance windows.
  const mw = await api.post('/api/v1/maintenance-windows', {
    name: 'nightly',
    cron: '0 3 * * *',
    duration_minutes: 30,
    timezone: 'Europe/Berlin',
    endpoint_ids: [e.body.id],
  });
  t.equal(mw.status, 201);
  t.equal((await api.get('/api/v1/maintenance-windows')).body.total, 1);
  t.equal((await api.get(`/api/v1/maintenance-windows/${mw.body.id}`)).body.name, 'nightly');
  t.equal((await api.put(`/api/v1/maintenance-windows/${mw.body.id}`, { is_enabled: false })).body.active, false);
  t.equal((await api.delete(`/api/v1/maintenance-windows/${mw.body.id}`)).status, 200);

  t.equal((await api.delete(`/api/v1/liveness/${l.body.id}`)).status, 200);
  t.equal((await api.delete(`/api/v1/endpoints/${e.body.id}`)).status, 200);
  t.equal((await api.delete(`/api/v1/domains/${d.body.id}`)).status, 200);
  t.equal((await api.delete(`/api/v1/portfolios/${pf.body.id}`)).status, 200);
  // The audit trail of everything above (test/api/audit.test.ts checks it in detail).
  t.ok((await api.get('/api/v1/audit?object_kind=portfolio')).body.data.length >= 2);

  // Tokens in account settings
  const tk = await api.post('/api/v1/account/tokens', { name: 'coverage', role: 'editor' });
  t.equal(tk.status, 201);
  t.equal((await api.get('/api/v1/account/tokens')).status, 200);
  t.equal((await api.get('/api/v1/tokens')).status, 200);
  t.equal((await api.delete(`/api/v1/account/tokens/${tk.body.id}`)).status, 200);
  const tk2 = await api.post('/api/v1/account/tokens', { read_only: true });
  t.equal((await api.delete(`/api/v1/tokens/${tk2.body.id}`)).status, 200);

  // Members
  const member = await s.app.services.access.addUser('coverage', 'member@example.com', 'viewer');
  t.equal((await api.get('/api/v1/members')).body.members.length, 2);
  t.equal((await api.put(`/api/v1/members/${member.id}`, { role: 'editor' })).body.role, 'editor');
  t.equal((await api.delete(`/api/v1/members/${member.id}`)).status, 200);
  // Invitations and owners' password-reset links (test/web/links.test.ts uses them)
  const inv = await api.post('/api/v1/invitations', { email: 'invitee@example.com', role: 'viewer' });
  t.equal(inv.status, 201);
  t.equal((await api.get('/api/v1/invitations')).body.invitations.length, 1);
  t.equal((await api.delete(`/api/v1/invitations/${inv.body.id}`)).status, 200);
  t.equal((await api.post('/api/v1/password-resets', { email: 'cov@example.com' })).status, 201);

  // Passkeys in account settings: a person's session (the member linked to an account), a software passkey.
  const person = await s.app.services.accounts.ensure('cov@example.com');
  const covMember = (await s.app.services.access.listUsers('coverage')).find((u) => u.email === 'cov@example.com')!;
  await s.app.services.accounts.link(covMember.id, person.id);
  const ses = (await s.app.services.sessions.createForMember(covMember.id))!;
  const asPerson = { cookie: `dommon_session=${ses.id}`, [CSRF_HEADER]: ses.csrf };
  const pkOptions = await request(s.url, 'POST', '/api/v1/account/passkeys/options', { body: {}, headers: asPerson });
  t.equal(pkOptions.status, 200);
  const pk = await request(s.url, 'POST', '/api/v1/account/passkeys', {
    body: { name: 'soft', response: new SoftPasskey(s.url).create(pkOptions.body) },
    headers: asPerson,
  });
  t.equal(pk.status, 201);
  t.equal((await request(s.url, 'GET', '/api/v1/account/passkeys', { headers: asPerson })).body.passkeys.length, 1);
  t.equal(
    (await request(s.url, 'DELETE', `/api/v1/account/passkeys/${pk.body.id}`, { headers: asPerson })).status,
    200,
  );

  // Every success status of every primary (non-alias) path was answered and checked.
  // Tags whose success answers need outside peers are exercised (and checked the same way, through
  // startApp's client) by their own suites: Exposure in test/exposure/.
  const coveredElsewhere = new Set(['Exposure']);
  const missing: string[] = [];
  for (const op of OPERATIONS) {
    if (op.path.startsWith('/api-') || coveredElsewhere.has(op.tag)) continue;
    for (const status of Object.keys(op.responses)) {
      if (Number(status) >= 300) continue;
      const key = `${op.method.toUpperCase()} ${toOpenApiPath(op.path)} ${status}`;
      if (!responsesSeen().has(key)) missing.push(key);
    }
  }
  t.same(missing, [], 'documented answers this test never received');
});

t.test('a 429 answers the documented error body and headers', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '2' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('limited'));
  t.equal((await api.get('/api/v1/validate')).status, 200);
  t.equal((await api.get('/api-domains')).status, 200);
  const r = await api.get('/api-domains');
  t.equal(r.status, 429);
  t.equal(r.body.code, 'RATE_LIMITED');
  t.ok(Number(r.headers.get('retry-after')) >= 1);
  t.ok(responsesSeen().has('GET /api-domains 429'));
});
