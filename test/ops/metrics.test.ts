import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { parseExposition } from '../support/prometheus.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { waitFor } from '../support/wait.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

const METRICS_TOKEN = 'metrics-secret-0123456789';

t.test(
  '/metrics after real probes against loopback targets: endpoint gauges, check counters, domain gauges, HTTP route templates, token',
  async (t) => {
    // An HTTPS target answering 200 with a certificate of a test CA, and an HTTP one answering 500;
    // every name resolves to 127.0.0.1 through the loopback DNS server.
    const dns = await startLoopbackDns();
    const ca = makeCa('Metrics Test CA');
    const leaf = issue({ ca, cn: 'www.example.com', toDays: 90 });
    const good = await startHttpTarget({ tls: leaf });
    const bad = await startHttpTarget({ behaviour: { kind: 'status', code: 500 } });
    const s = await startApp(
      { DOMMON_METRICS_TOKEN: METRICS_TOKEN, DOMMON_DNS_SERVERS: dns.server },
      { probes: { ca: ca.cert } },
    );
    t.teardown(async () => {
      await s.close();
      await good.close();
      await bad.close();
      await dns.close();
    });
    const api = client(s.url, await s.token('acme'));
    const { app } = s;
    const db = app.store.db;

    const dom = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
    const other = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
    t.ok(dom.id && other.id, 'domains created');
    const web = (
      await api.post('/api/v1/endpoints', {
        domain_id: dom.id,
        name: 'web',
        endpoint_type: 'https',
        subdomain: 'www',
        port: good.port,
      })
    ).body;
    const apiEp = (
      await api.post('/api/v1/endpoints', {
        domain_id: dom.id,
        name: 'api',
        endpoint_type: 'http',
        subdomain: 'api',
        port: bad.port,
      })
    ).body;
    const noLiveness = (
      await api.post('/api/v1/endpoints', {
        domain_id: other.id,
        name: 'site',
        endpoint_type: 'https',
        is_enabled: false,
      })
    ).body;
    const seq = new Map<string, number>();
    for (const e of [web, apiEp]) {
      const l = await api.post('/api/v1/liveness', {
        endpoint_id: e.id,
        interval_seconds: 1,
        timeout_seconds: 1,
        failure_threshold: 1,
      });
      t.equal(l.status, 201);
      seq.set(
        e.name,
        (await db.selectFrom('liveness_configs').select('seq').where('id', '=', l.body.id).executeTakeFirstOrThrow())
          .seq,
      );
    }

    // The daemon's own scheduler probes both, its TLS worker inspects the HTTPS one; then the
    // scheduler is stopped (its results flushed) so counters and rows can be compared exactly.
    const state = async (name: string) =>
      (
        await db
          .selectFrom('liveness_state')
          .select(['status', 'response_time_ms'])
          .where('config_id', '=', db.selectFrom('liveness_configs').select('id').where('seq', '=', seq.get(name)!))
          .executeTakeFirst()
      )?.status;
    const inspected = async () =>
      (
        await db
          .selectFrom('endpoint_certificates')
          .select('not_after')
          .where('endpoint_id', '=', web.id)
          .executeTakeFirst()
      )?.not_after;
    await waitFor(
      async () => (await state('web')) === 'up' && (await state('api')) === 'down' && (await inspected()),
      10_000,
    );
    await app.probing.liveness.stop();

    // What the registration worker writes (its own look-ups go to closed loopback peers here). Then the
    // intelligence refreshes stop (the round's DNS-security checks and its health recompute end first),
    // so that nothing writes over the known values below.
    await waitFor(
      async () =>
        (await db.selectFrom('domain_registrations').select('domain_id').where('checked_at', 'is not', null).execute())
          .length >= 2,
      10_000,
    );
    await app.intel.stop();
    // A recompute of the liveness flips above may still be waiting for its turn (on a loaded machine it
    // came after the writes below and stored its own score over the 85).
    await app.services.monitor.healthSettled();
    await db
      .insertInto('domain_registrations')
      .values({ domain_id: dom.id, state: 'ok', expiry_date: '2028-05-17', nameservers: '[]', statuses: '[]' })
      .onConflict((oc) => oc.column('domain_id').doUpdateSet({ state: 'ok', expiry_date: '2028-05-17' }))
      .execute();
    await db.updateTable('domains').set({ health_score: 85, is_verified: 1 }).where('id', '=', dom.id).execute();
    await db.updateTable('domains').set({ expiry_override: '2029-01-02' }).where('id', '=', other.id).execute();

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

    /** Raw results of one configuration: successes, failures and the newest response time. */
    const results = async (name: string) => {
      const rows = await db
        .selectFrom('liveness_results')
        .select(['ok', 'ms'])
        .where('cfg', '=', seq.get(name)!)
        .orderBy('ts', 'desc')
        .execute();
      return { ok: rows.filter((r) => r.ok).length, failed: rows.filter((r) => !r.ok).length, lastMs: rows[0]!.ms };
    };
    const res = await request(s.url, 'GET', '/metrics', { token: METRICS_TOKEN });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const m = parseExposition(res.text);
    const ep = (endpoint: string, domain = 'example.com') => ({ team: 'acme', domain, endpoint });
    const webResults = await results('web');
    const apiResults = await results('api');
    t.ok(webResults.ok >= 1 && webResults.failed === 0, `web: ${webResults.ok} successful probes`);
    t.ok(apiResults.failed >= 1 && apiResults.ok === 0, `api: ${apiResults.failed} failed probes`);
    t.ok(
      good.requests >= webResults.ok && bad.requests >= apiResults.failed,
      'each result is a request the targets saw',
    );

    t.equal(m.types.get('dommon_endpoint_up'), 'gauge');
    t.equal(m.value('dommon_endpoint_up', ep('web')), 1);
    t.equal(m.value('dommon_endpoint_up', ep('api')), 0);
    t.equal(m.value('dommon_endpoint_up', ep('site', 'example.org')), undefined, 'no liveness config, no up series');
    t.ok(m.value('dommon_endpoint_response_seconds', ep('web'))! > 0, 'an HTTPS probe takes time');
    t.equal(
      m.value('dommon_endpoint_response_seconds', ep('web')),
      webResults.lastMs / 1000,
      "the last probe's response time",
    );
    t.equal(m.value('dommon_endpoint_response_seconds', ep('api')), apiResults.lastMs / 1000);
    const notAfter = Date.parse(new X509Certificate(leaf.cert).validTo) / 1000;
    t.equal(
      m.value('dommon_ssl_expiry_timestamp_seconds', ep('web')),
      notAfter,
      'notAfter of the certificate the target serves',
    );
    t.equal(m.value('dommon_ssl_expiry_timestamp_seconds', ep('api')), undefined, 'plain HTTP: no certificate');
    t.equal(
      m.value('dommon_domain_expiry_timestamp_seconds', { team: 'acme', domain: 'example.com' }),
      Date.UTC(2028, 4, 17) / 1000,
    );
    t.equal(
      m.value('dommon_domain_expiry_timestamp_seconds', { team: 'acme', domain: 'example.org' }),
      Date.UTC(2029, 0, 2) / 1000,
      'manual expiry override',
    );
    t.equal(m.value('dommon_domain_health_score', { team: 'acme', domain: 'example.com' }), 85);
    // example.org's score is the health service's own (computed from its manual expiry): the gauge shows the stored value.
    const orgScore = (await api.get(`/api/v1/domains/${other.id}`)).body.health_score as number | null;
    t.equal(m.value('dommon_domain_health_score', { team: 'acme', domain: 'example.org' }), orgScore ?? undefined);
    t.equal(m.value('dommon_domain_verified', { team: 'acme', domain: 'example.com' }), 1);
    t.equal(m.value('dommon_domain_verified', { team: 'acme', domain: 'example.org' }), 0);

    // Every probe the scheduler ran is counted once, by kind and outcome.
    t.equal(m.types.get('dommon_checks_total'), 'counter');
    t.equal(m.value('dommon_checks_total', { kind: 'liveness', outcome: 'success' }), webResults.ok);
    t.equal(m.value('dommon_checks_total', { kind: 'liveness', outcome: 'failure' }), apiResults.failed);
    t.equal(
      m.value('dommon_checks_total', { kind: 'tls', outcome: 'valid' }),
      1,
      'one TLS inspection, of the HTTPS endpoint',
    );
    t.equal(m.value('dommon_notification_deliveries_total', { channel: 'webhook', status: 'success' }), 1);
    t.equal(
      m.value('dommon_notification_deliveries_total', { channel: 'email', status: 'failed' }),
      1,
      'labels lower-cased',
    );

    t.equal(m.types.get('dommon_http_request_duration_seconds'), 'histogram');
    // The matched template (its parameter name belongs to the domains routes), never the raw path.
    const detail = m
      .series('dommon_http_requests_total')
      .filter((x) => x.labels.method === 'GET' && /^\/api\/v1\/domains\/:\w+$/.test(x.labels.route!));
    t.equal(detail.length, 1, 'one series for every domain id');
    t.equal(detail[0]!.value, 4);
    t.equal(detail[0]!.labels.status, '200');
    t.equal(
      m.value('dommon_http_request_duration_seconds_count', { method: 'GET', route: detail[0]!.labels.route! }),
      4,
    );
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

    // Gauges are read at scrape time: the target recovers, the scheduler probes it again, the next
    // scrape shows it up.
    bad.behave({ kind: 'status', code: 200 });
    await app.probing.liveness.start();
    await waitFor(async () => (await state('api')) === 'up', 10_000);
    await app.probing.liveness.stop();
    await api.delete(`/api/v1/endpoints/${noLiveness.id}`);
    const m2 = parseExposition((await request(s.url, 'GET', '/metrics', { token: METRICS_TOKEN })).text);
    const [web2, api2] = [await results('web'), await results('api')];
    t.equal(m2.value('dommon_endpoint_up', ep('api')), 1);
    t.equal(m2.value('dommon_endpoint_response_seconds', ep('api')), api2.lastMs / 1000);
    t.equal(m2.value('dommon_checks_total', { kind: 'liveness', outcome: 'success' }), web2.ok + api2.ok);
    t.equal(m2.value('dommon_checks_total', { kind: 'liveness', outcome: 'failure' }), api2.failed);
    t.equal(m2.value('dommon_objects', { kind: 'endpoint' }), 2);
    t.equal(
      m2.value('dommon_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }),
      1,
      'the previous scrape is counted',
    );
  },
);

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
