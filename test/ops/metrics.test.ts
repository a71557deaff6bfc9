import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { parseExposition } from '../support/prometheus.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

const METRICS_TOKEN = 'metrics-secret-0123456789';

t.test('/metrics: per-endpoint and per-domain gauges from the store, counters, HTTP route templates, token', async (t) => {
  const s = await startApp({ DOMMON_METRICS_TOKEN: METRICS_TOKEN });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('acme'));
  const { app } = s;

  const dom = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const other = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  t.ok(dom.id && other.id, 'domains created');
  const web = (await api.post('/api/v1/endpoints', { domain_id: dom.id, name: 'web', endpoint_type: 'https', subdomain: 'www', is_enabled: false })).body;
  const apiEp = (await api.post('/api/v1/endpoints', { domain_id: dom.id, name: 'api', endpoint_type: 'https', subdomain: 'api', is_enabled: false })).body;
  const noLiveness = (await api.post('/api/v1/endpoints', { domain_id: other.id, name: 'site', endpoint_type: 'https', is_enabled: false })).body;
  const byName = new Map<string, { config: any; endpoint: any }>();
  for (const e of [web, apiEp]) {
    const l = await api.post('/api/v1/liveness', { endpoint_id: e.id });
    t.equal(l.status, 201);
    const team = (await app.store.endpoints.all()).find((x) => x.id === e.id)!.team_id;
    byName.set(e.name, { config: await app.store.liveness.get(team, l.body.id), endpoint: await app.store.endpoints.get(team, e.id) });
  }

  // Outcomes through the monitor service, as the scheduler records them (the endpoints are disabled,
  // so the daemon's own scheduler leaves them alone).

  const now = Date.now();
  await app.services.monitor.record([
    { ...byName.get('web')!, outcome: { ok: true, responseTimeMs: 123, statusCode: 200, error: null }, at: now - 1000 },
    { ...byName.get('api')!, outcome: { ok: false, responseTimeMs: 2500, statusCode: null, error: 'connection refused' }, at: now - 1000 },
  ]);
  // What the TLS and registration workers write.
  // The daemon's own workers run too: endpoints are disabled (no probes, no TLS inspection), and the
  // registration worker's first look-up (against closed loopback peers) and the health score it
  // triggers are let finish before known values are written over them.
  for (let i = 0; i < 200; i++) {
    const regs = await app.store.db.selectFrom('domain_registrations').select('domain_id').where('checked_at', 'is not', null).execute();
    if (regs.length >= 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  await app.store.db.insertInto('endpoint_certificates').values({ endpoint_id: web.id, ssl_status: 'valid', sans: '[]', not_after: '2027-03-01T12:00:00.000Z' }).execute();
  await app.store.db.insertInto('domain_registrations').values({ domain_id: dom.id, state: 'ok', expiry_date: '2028-05-17', nameservers: '[]', statuses: '[]' })
    .onConflict((oc) => oc.column('domain_id').doUpdateSet({ state: 'ok', expiry_date: '2028-05-17' })).execute();
  await app.store.db.updateTable('domains').set({ health_score: 85, is_verified: 1 }).where('id', '=', dom.id).execute();
  await app.store.db.updateTable('domains').set({ expiry_override: '2029-01-02' }).where('id', '=', other.id).execute();

  // Liveness checks are counted by monitor.record() above (one success, one failure).
  app.metrics.check('tls', 'failure');
  app.metrics.delivery('webhook', 'success');
  app.metrics.delivery('Email', 'failed');

  for (let i = 0; i < 3; i++) t.equal((await api.get(`/api/v1/domains/${dom.id}`)).status, 200);
  t.equal((await api.get(`/api/v1/domains/${other.id}`)).status, 200);
  t.equal((await api.get('/no/such/route')).status, 404);

  await t.test('token protection', async (t) => {
    const none = await request(s.url, 'GET', '/metrics');
    t.equal(none.status, 401);
    t.equal(none.body.code, 'UNAUTHORIZED');
    t.equal(none.body.path, '/metrics');
    t.match(none.headers.get('www-authenticate'), /Bearer/);
    t.equal((await request(s.url, 'GET', '/metrics', { token: 'wrong' })).status, 401);
    t.equal((await request(s.url, 'GET', '/metrics', { token: `${METRICS_TOKEN}x` })).status, 401);
    // An API token is not the metrics token.
    t.equal((await request(s.url, 'GET', '/metrics', { token: await s.token('acme') })).status, 401);
  });

  const res = await request(s.url, 'GET', '/metrics', { token: METRICS_TOKEN });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const m = parseExposition(res.text);
  const ep = (endpoint: string, domain = 'example.com') => ({ team: 'acme', domain, endpoint });

  t.equal(m.types.get('dommon_endpoint_up'), 'gauge');
  t.equal(m.value('dommon_endpoint_up', ep('web')), 1);
  t.equal(m.value('dommon_endpoint_up', ep('api')), 0);
  t.equal(m.value('dommon_endpoint_up', ep('site', 'example.org')), undefined, 'no liveness config, no up series');
  t.equal(m.value('dommon_endpoint_response_seconds', ep('web')), 0.123);
  t.equal(m.value('dommon_endpoint_response_seconds', ep('api')), 2.5);
  t.equal(m.value('dommon_ssl_expiry_timestamp_seconds', ep('web')), Date.UTC(2027, 2, 1, 12) / 1000);
  t.equal(m.value('dommon_ssl_expiry_timestamp_seconds', ep('api')), undefined);
  t.equal(m.value('dommon_domain_expiry_timestamp_seconds', { team: 'acme', domain: 'example.com' }), Date.UTC(2028, 4, 17) / 1000);
  t.equal(m.value('dommon_domain_expiry_timestamp_seconds', { team: 'acme', domain: 'example.org' }), Date.UTC(2029, 0, 2) / 1000, 'manual expiry override');
  t.equal(m.value('dommon_domain_health_score', { team: 'acme', domain: 'example.com' }), 85);
  // example.org's score is the health service's own (computed from its manual expiry): the gauge shows the stored value.
  const orgScore = (await api.get(`/api/v1/domains/${other.id}`)).body.health_score as number | null;
  t.equal(m.value('dommon_domain_health_score', { team: 'acme', domain: 'example.org' }), orgScore ?? undefined);
  t.equal(m.value('dommon_domain_verified', { team: 'acme', domain: 'example.com' }), 1);
  t.equal(m.value('dommon_domain_verified', { team: 'acme', domain: 'example.org' }), 0);

  t.equal(m.types.get('dommon_checks_total'), 'counter');
  t.equal(m.value('dommon_checks_total', { kind: 'liveness', outcome: 'success' }), 1);
  t.equal(m.value('dommon_checks_total', { kind: 'liveness', outcome: 'failure' }), 1);
  t.equal(m.value('dommon_checks_total', { kind: 'tls', outcome: 'failure' }), 1);
  t.equal(m.value('dommon_notification_deliveries_total', { channel: 'webhook', status: 'success' }), 1);
  t.equal(m.value('dommon_notification_deliveries_total', { channel: 'email', status: 'failed' }), 1, 'labels lower-cased');

  t.equal(m.types.get('dommon_http_request_duration_seconds'), 'histogram');
  // The matched template (its parameter name belongs to the domains routes), never the raw path.
  const detail = m.series('dommon_http_requests_total').filter((x) => x.labels.method === 'GET' && /^\/api\/v1\/domains\/:\w+$/.test(x.labels.route!));
  t.equal(detail.length, 1, 'one series for every domain id');
  t.equal(detail[0]!.value, 4);
  t.equal(detail[0]!.labels.status, '200');
  t.equal(m.value('dommon_http_request_duration_seconds_count', { method: 'GET', route: detail[0]!.labels.route! }), 4);
  t.equal(m.value('dommon_http_requests_total', { method: 'POST', route: '/api/v1/liveness', status: '201' }), 2);
  t.equal(m.value('dommon_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
  t.equal(m.value('dommon_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }), 4);
  t.notOk(res.text.includes(dom.id), 'no raw ids in any label');

  t.ok(m.value('process_cpu_user_seconds_total')! >= 0, 'process metrics');
  t.ok(m.value('process_resident_memory_bytes')! > 0);
  t.ok(m.value('nodejs_heap_size_used_bytes')! > 0);
  t.equal(m.value('dommon_objects', { kind: 'domain' }), 2);
  t.equal(m.value('dommon_objects', { kind: 'endpoint' }), 3);
  t.ok(m.value('dommon_database_size_bytes', { state: 'used' })! > 0);
  t.equal(m.value('dommon_metrics_truncated'), 0);

  // Gauges are read at scrape time: a new outcome shows on the next scrape.
  await app.services.monitor.record([{ ...byName.get('api')!, outcome: { ok: true, responseTimeMs: 40, statusCode: 200, error: null }, at: now }]);
  await api.delete(`/api/v1/endpoints/${noLiveness.id}`);
  const m2 = parseExposition((await request(s.url, 'GET', '/metrics', { token: METRICS_TOKEN })).text);
  t.equal(m2.value('dommon_endpoint_up', ep('api')), 1);
  t.equal(m2.value('dommon_endpoint_response_seconds', ep('api')), 0.04);
  t.equal(m2.value('dommon_objects', { kind: 'endpoint' }), 2);
  t.equal(m2.value('dommon_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }), 1, 'the previous scrape is counted');
});

t.test('/metrics without DOMMON_METRICS_TOKEN is open; series are capped', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const res = await request(s.url, 'GET', '/metrics');
  t.equal(res.status, 200);
  t.match(res.text, /# TYPE dommon_endpoint_up gauge/);
  // A caller passing unbounded values cannot grow a counter past its cap.
  for (let i = 0; i < 300; i++) s.app.metrics.check(`kind${i}`, 'success');
  const m = parseExposition((await request(s.url, 'GET', '/metrics')).text);
  t.equal(m.series('dommon_checks_total').length, 201);
  t.equal(m.value('dommon_checks_total', { kind: 'other', outcome: 'other' }), 100);
});
