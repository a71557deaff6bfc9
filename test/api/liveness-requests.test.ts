// The request and the conditions of a liveness configuration through the API and the running
// daemon: fields stored and shown, credentials sealed at rest and never shown (a masked value keeps
// them, but not once the endpoint points elsewhere), invalid conditions refused with their position,
// and the daemon's checks sending the request and recording which condition failed.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startLoopbackDns } from '../support/targets.js';
import { startAnswers } from '../support/http-answers.js';
import { waitFor } from '../support/wait.js';
import { EMPTY_REGISTRATION } from '../../src/domain/registration.js';

t.setTimeout(120_000);

t.test('request fields, conditions and credentials: stored, shown masked, refused when wrong', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const web = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const tcp = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'db', endpoint_type: 'port', port: 5432 }))
    .body;

  const defaults = await api.post('/api/v1/liveness', { endpoint_id: tcp.id });
  t.equal(defaults.status, 201);
  t.match(defaults.body, {
    method: 'GET',
    headers: {},
    body: null,
    follow_redirects: false,
    conditions: [],
    auth: null,
  });

  const created = await api.post('/api/v1/liveness', {
    endpoint_id: web.id,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Probe': '1' },
    body: '{"ping":1}',
    follow_redirects: true,
    conditions: ['[STATUS] == 200', '[BODY].status == UP', '[CERTIFICATE_EXPIRATION] > 48h'],
    auth: { type: 'basic', username: 'alice', password: 'correct-horse-battery' },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.match(created.body, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Probe': '1' },
    body: '{"ping":1}',
    follow_redirects: true,
    conditions: ['[STATUS] == 200', '[BODY].status == UP', '[CERTIFICATE_EXPIRATION] > 48h'],
    auth: { type: 'basic', username: 'alice', password: '********' },
  });
  const id = created.body.id as string;
  const read = await api.get(`/api/v1/liveness/${id}`);
  t.notMatch(read.text, /correct-horse/, 'the secret is never shown');
  t.notMatch((await api.get('/api/v1/liveness')).text, /correct-horse/);

  // At rest it is sealed like the channel secrets.
  const row = await s.app.store.db
    .selectFrom('liveness_configs')
    .select(['auth_type', 'auth_username', 'auth_secret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  t.match(row, { auth_type: 'basic', auth_username: 'alice', auth_secret: /^sealed:v1:/ });
  t.notMatch(row.auth_secret, /correct-horse/);
  t.same(s.app.store.liveness.openAuth(row.auth_secret!), {
    secret: 'correct-horse-battery',
    origin: 'https://example.com',
  });

  // Sending the masked value back keeps the secret; another kind of credentials needs its own.
  const kept = await api.put(`/api/v1/liveness/${id}`, {
    auth: { type: 'basic', username: 'bob', password: '********' },
  });
  t.equal(kept.status, 200);
  t.match(kept.body.auth, { type: 'basic', username: 'bob', password: '********' });
  const after = await s.app.store.liveness.byId(id);
  t.equal(s.app.store.liveness.openAuth(after!.auth!.sealed).secret, 'correct-horse-battery');
  const wrongKind = await api.put(`/api/v1/liveness/${id}`, { auth: { type: 'bearer', token: '********' } });
  t.equal(wrongKind.status, 400);
  t.match(wrongKind.body.error, /auth\.token: a masked value can only keep a stored secret/);

  // The endpoint now points at another host: the stored secret does not follow it.
  t.equal((await api.put(`/api/v1/endpoints/${web.id}`, { subdomain: 'www' })).status, 200);
  const moved = await api.put(`/api/v1/liveness/${id}`, {
    auth: { type: 'basic', username: 'bob', password: '********' },
  });
  t.equal(moved.status, 422);
  t.equal(moved.body.code, 'SECRET_REQUIRED');
  t.match(moved.body.error, /given for https:\/\/example\.com and the endpoint is now https:\/\/www\.example\.com/);
  const renewed = await api.put(`/api/v1/liveness/${id}`, { auth: { type: 'bearer', token: 'tok-123' } });
  t.equal(renewed.status, 200);
  t.same(renewed.body.auth, { type: 'bearer', token: '********' });
  const removed = await api.put(`/api/v1/liveness/${id}`, { auth: null, conditions: [], body: null });
  t.match(removed.body, { auth: null, conditions: [], body: null, method: 'POST' });

  // An invalid condition: 400 with the condition and the position of the error.
  const bad = await api.put(`/api/v1/liveness/${id}`, { conditions: ['[STATUS] == 200', '[STATUS]==200'] });
  t.equal(bad.status, 400);
  t.match(bad.body, {
    code: 'VALIDATION_ERROR',
    field: 'conditions[1]',
    position: 8,
    error: 'conditions[1]: operator "==" needs a space on each side (as in "[STATUS] == 200") at position 8',
    path: `/api/v1/liveness/${id}`,
  });
  t.type(bad.body.timestamp, 'string');
  const unknown = await api.put(`/api/v1/liveness/${id}`, { conditions: ['[DNS_RCODE] == NOERROR'] });
  t.match(unknown.body, { code: 'VALIDATION_ERROR', error: /\[DNS_RCODE\] is not available on this check type/ });
  const numeric = await api.put(`/api/v1/liveness/${id}`, { conditions: ['[RESPONSE_TIME] < soon'] });
  t.match(numeric.body, { field: 'conditions[0]', position: 18 });

  // Headers the probe writes itself, or that carry credentials, are refused.
  const authHeader = await api.put(`/api/v1/liveness/${id}`, { headers: { Authorization: 'Bearer x' } });
  t.equal(authHeader.status, 400);
  t.match(authHeader.body.error, /headers\.Authorization: credentials go in auth/);
  t.equal((await api.put(`/api/v1/liveness/${id}`, { headers: { Host: 'x' } })).status, 400);
  t.equal((await api.put(`/api/v1/liveness/${id}`, { headers: { 'X-Bad': 'a\r\nb' } })).status, 400);
  t.equal((await api.put(`/api/v1/liveness/${id}`, { method: 'TRACE' })).status, 400);

  // A port check sends no HTTP request and takes no conditions.
  const tcpId = defaults.body.id as string;
  const notHttp = await api.put(`/api/v1/liveness/${tcpId}`, { method: 'POST' });
  t.equal(notHttp.status, 400);
  t.match(notHttp.body.error, /method: only for endpoints that are checked by an HTTP request/);
  const noConditions = await api.put(`/api/v1/liveness/${tcpId}`, { conditions: ['[CONNECTED] == true'] });
  t.match(noConditions.body.error, /port endpoints take no conditions/);

  // A dns check takes conditions on its own placeholders only.
  const dnsEndpoint = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'ns', endpoint_type: 'dns' })).body;
  const dnsConfig = await api.post('/api/v1/liveness', { endpoint_id: dnsEndpoint.id });
  t.equal(dnsConfig.status, 201);
  const dnsId = dnsConfig.body.id as string;
  const dnsStatus = await api.put(`/api/v1/liveness/${dnsId}`, { conditions: ['[STATUS] == 200'] });
  t.equal(dnsStatus.status, 400);
  t.match(dnsStatus.body, {
    code: 'VALIDATION_ERROR',
    field: 'conditions[0]',
    error: /\[STATUS\] is not available on this check type/,
  });
  const dnsOk = await api.put(`/api/v1/liveness/${dnsId}`, {
    conditions: ['[DNS_RCODE] == NOERROR', '[BODY] == 192.0.2.1'],
  });
  t.equal(dnsOk.status, 200);
  t.same(dnsOk.body.conditions, ['[DNS_RCODE] == NOERROR', '[BODY] == 192.0.2.1']);

  // The inline configuration of an endpoint create takes the same fields.
  const inline = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'api',
    endpoint_type: 'https',
    subdomain: 'api',
    liveness: { conditions: ['[BODY].ok == true'], auth: { type: 'bearer', token: 'abc' } },
  });
  t.equal(inline.status, 201);
  t.match(inline.body.liveness, { conditions: ['[BODY].ok == true'], auth: { type: 'bearer', token: '********' } });
  const inlineBad = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'api2',
    endpoint_type: 'https',
    liveness: { conditions: ['len([BODY].items > 0'] },
  });
  t.equal(inlineBad.status, 400);
  t.match(inlineBad.body, { field: 'conditions[0]', error: /missing "\)" closing len\(/ });
  t.equal((await api.get(`/api/v1/endpoints?domain_id=${d.id}`)).body.data.length, 4, 'nothing half-created');
});

t.test('the daemon sends the request and records the failed condition with its value', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startAnswers();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(async () => {
    await s.close();
    await target.close();
    await dns.close();
  });
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'api',
      endpoint_type: 'http',
      port: target.port,
      path: '/redirect',
    })
  ).body;
  target.answer({ status: 'UP', data: [{ name: 'john' }] });
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      interval_seconds: 1,
      timeout_seconds: 2,
      follow_redirects: true,
      headers: { 'X-Team': 'ops' },
      conditions: ['[STATUS] == 200', '[BODY].status == UP', '[BODY].data[0].name == john'],
      auth: { type: 'basic', username: 'alice', password: 'pw-1234' },
    })
  ).body;
  const status = async () => (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  await waitFor(async () => (await status()).status === 'up', 15_000);
  const sent = target.seen.filter((r) => r.path === '/json').at(-1)!;
  t.equal(sent.headers.authorization, `Basic ${Buffer.from('alice:pw-1234').toString('base64')}`);
  t.equal(sent.headers['x-team'], 'ops');

  target.answer({ status: 'DEGRADED', data: [{ name: 'john' }] });
  const down = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 15_000);
  t.equal(down.last_error, 'condition: [BODY].status (DEGRADED) == UP');
  t.equal(down.status_code, 200);
  await s.app.probing.liveness.flush();
  const results = (await api.get(`/api/v1/liveness/${cfg.id}/results?limit=100`)).body;
  t.ok(
    results.results.some((r: { error: string | null }) => r.error === 'condition: [BODY].status (DEGRADED) == UP'),
    'the result records it',
  );
});

t.test("[DOMAIN_EXPIRATION]: the daemon's checks read the domain's stored registration expiry", async (t) => {
  const dns = await startLoopbackDns();
  const target = await startAnswers();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(async () => {
    await s.close();
    await target.close();
    await dns.close();
  });
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  // What the registration checks stored (the RDAP/WHOIS peers are closed here): expiry in 60 days.
  const expiry = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
  await s.app.store.registrations.save({
    ...EMPTY_REGISTRATION,
    domain_id: d.id,
    source: 'rdap',
    state: 'ok',
    reason: null,
    expiry_date: expiry,
    checked_at: new Date().toISOString(),
    next_check_at: null,
  });
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'api',
      endpoint_type: 'http',
      port: target.port,
      path: '/json',
    })
  ).body;
  target.answer({ status: 'UP' });
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      interval_seconds: 1,
      timeout_seconds: 2,
      conditions: ['[STATUS] == 200', '[DOMAIN_EXPIRATION] > 720h'],
    })
  ).body;
  const status = async () => (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  await waitFor(async () => (await status()).status === 'up', 15_000);

  t.equal((await api.put(`/api/v1/liveness/${cfg.id}`, { conditions: ['[DOMAIN_EXPIRATION] > 2000h'] })).status, 200);
  const down = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 15_000);
  // Midnight UTC of the expiry day, 59 to 60 days (1416h to 1440h) from now.
  t.match(down.last_error, /^condition: \[DOMAIN_EXPIRATION\] \(14[1-4]\dh(\d+m)?(\d+s)?\) > 2000h$/);
});
