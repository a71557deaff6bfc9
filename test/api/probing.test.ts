// The probing engine through the real app: liveness up -> down -> up with events, stats from
// aggregates equal to raw results, an interval change through the API, TLS inspection right after
// an endpoint is created, and both endpoint status variants.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { openLocal } from '../../src/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { waitFor } from '../support/wait.js';

// About 22 s alone (fixed waits of the real schedule), past the default 30 s beside two other files on
// a loaded 2-core machine.
t.setTimeout(120_000);

t.test('liveness transitions, events, stats and status', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(async () => {
    await s.close();
    await target.close();
    await dns.close();
  });
  const api = client(s.url, await s.token('probing'));
  const teamId = (await api.get('/api/v1/validate')).body.team_id as string;
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'web',
      endpoint_type: 'http',
      port: target.port,
      path: '/ping',
    })
  ).body;
  t.equal(ep.full_url, `http://example.com:${target.port}/ping`);
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      timeout_seconds: 1,
      interval_seconds: 1,
      failure_threshold: 2,
    })
  ).body;
  t.equal(cfg.interval_seconds, 1);

  const status = async () => (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  const up = await waitFor(async () => {
    const b = await status();
    return b.status === 'up' && b;
  }, 10000);
  t.equal(up.consecutive_failures, 0);
  t.equal(up.last_check_successful, true);
  t.type(up.response_time_ms, 'number');
  t.equal(up.uptime_24h, 100);

  target.behave({ kind: 'status', code: 500 });
  // Results are flushed in batches: the first failing read may already hold two failures.
  const one = await waitFor(async () => {
    const b = await status();
    return b.consecutive_failures >= 1 && b;
  }, 10000);
  t.equal(
    one.status,
    one.consecutive_failures < 2 ? 'up' : 'down',
    `${one.consecutive_failures} failure(s) against failure_threshold 2: down only from the second`,
  );
  const down = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 10000);
  // results are flushed in batches: the first read that shows down may already hold the third failure
  t.ok(
    down.consecutive_failures >= 2 && down.consecutive_failures <= 3,
    `down after ${down.consecutive_failures} failures`,
  );
  t.equal(down.last_check_successful, false);
  await waitFor(async () => (await status()).consecutive_failures >= 3, 10000);

  target.behave({ kind: 'status', code: 200 });
  const back = await waitFor(async () => {
    const b = await status();
    return b.status === 'up' && b;
  }, 10000);
  t.equal(back.consecutive_failures, 0);

  const events = (await s.app.store.events.list(teamId)).filter((e) => e.event_type === 'liveness').reverse();
  t.same(
    events.map((e) => e.category),
    ['endpoint_down', 'endpoint_recovered'],
    'one down event (not one per failure), then one recovery',
  );
  const downEvent = events[0]!;
  t.equal(downEvent.severity, 'high');
  t.equal(downEvent.endpoint_id, ep.id);
  t.equal(downEvent.domain_id, domain.id);
  t.match(downEvent.message, /web .* is DOWN after 2 failed check/);
  t.match(JSON.parse(downEvent.details), { transition: 'down', consecutive_failures: 2, status_code: 500 });

  // Every raw result against the aggregates that answer stats and uptime.
  await s.app.probing.liveness.flush();
  const results = (await api.get(`/api/v1/liveness/${cfg.id}/results?limit=100`)).body;
  t.ok(results.total >= 5);
  const item = results.results[0];
  t.equal(item.test_timestamp, item.timestamp);
  t.type(item.is_successful, 'boolean');
  // Each failure also in words (the wording of the status's reason); a check that passed has none.
  const failedOne = (results.results as { is_successful: boolean; error: string; reason: string | null }[]).find(
    (r) => !r.is_successful,
  );
  t.match(failedOne, { error: /^status: /, reason: /^Wrong answer: / }, 'a failed check with its reason');
  t.ok(
    (results.results as { is_successful: boolean; reason: string | null }[])
      .filter((r) => r.is_successful)
      .every((r) => r.reason === null),
    'no reason for the checks that passed',
  );
  const stats = (await api.get(`/api/v1/liveness/${cfg.id}/stats?days=7`)).body;
  const st = await status();
  const raw = (await api.get(`/api/v1/liveness/${cfg.id}/results?limit=100`)).body.results as {
    is_successful: boolean;
    response_time_ms: number;
  }[];
  const ok = raw.filter((r) => r.is_successful).length;
  t.equal(stats.total_tests, raw.length, 'stats total = raw results');
  t.equal(stats.successful_tests, ok, 'stats successes = raw successes');
  t.equal(stats.stats.length, 1);
  t.equal(stats.stats[0].total_tests, raw.length);
  t.equal(stats.avg_response_time_ms, Math.round(raw.reduce((a, r) => a + r.response_time_ms, 0) / raw.length));
  t.equal(st.uptime_24h, Math.round((ok / raw.length) * 10000) / 100, 'uptime_24h from hourly aggregates = raw ratio');
  t.equal(st.uptime_7d, st.uptime_24h);
  t.ok(target.connections >= raw.length, 'a fresh connection per probe');

  const detail = (await api.get(`/api/v1/endpoints/${ep.id}`)).body;
  t.equal(detail.liveness_enabled, true);
  t.equal(detail.ssl_status, 'unknown', 'http endpoints get no TLS inspection');
  t.type(detail.health_score, 'number');
});

t.test('changing interval_seconds through the API takes effect without a restart', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(async () => {
    await s.close();
    await target.close();
    await dns.close();
  });
  const api = client(s.url, await s.token('interval'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'web', endpoint_type: 'http', port: target.port })
  ).body;
  const cfg = (await api.post('/api/v1/liveness', { endpoint_id: ep.id, interval_seconds: 3600 })).body;
  await waitFor(() => target.requests === 1, 3000);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(target.requests, 1, 'a new config runs once soon, then waits its hour');
  const put = await api.put(`/api/v1/liveness/${cfg.id}`, { interval_seconds: 1 });
  t.equal(put.body.interval_seconds, 1);
  await waitFor(() => target.requests >= 3, 4000);
  t.pass('now probed every second');
  // The CLI writes the same database from another process: the daemon notices within about a second
  // (SQLite: its poll of the file's version), or at its next claim round (PostgreSQL: a run kept from
  // run to run reads its config again each round, 0.75-2.25 s apart).
  const cli = await openLocal(s.config);
  await cli.services.liveness.update((await api.get('/api/v1/validate')).body.team_id, cfg.id, { is_enabled: false });
  await cli.store.close();
  await new Promise((r) => setTimeout(r, 3000));
  const n = target.requests;
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(target.requests, n, 'disabled by another process: no more probes');
});

t.test(
  'TLS inspection right after creation: ssl_status, detail and both status variants, ssl_expiry event once',
  async (t) => {
    const dns = await startLoopbackDns();
    const ca = makeCa('Probing Test CA');
    const soon = await startHttpTarget({ tls: issue({ ca, cn: 'www.example.net', toDays: 20 }) });
    const self = await startHttpTarget({ tls: issue({ cn: 'self.example.net', toDays: 100 }) });
    const s = await startApp(
      { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' },
      { probes: { ca: ca.cert } },
    );
    t.teardown(async () => {
      await s.close();
      await soon.close();
      await self.close();
      await dns.close();
    });
    const api = client(s.url, await s.token('tls'));
    const teamId = (await api.get('/api/v1/validate')).body.team_id as string;
    const domain = (await api.post('/api/v1/domains', { domain: 'example.net' })).body;
    const ep = (
      await api.post('/api/v1/endpoints', {
        domain_id: domain.id,
        name: 'site',
        endpoint_type: 'https',
        subdomain: 'www',
        port: soon.port,
      })
    ).body;
    const port = (
      await api.post('/api/v1/endpoints', {
        domain_id: domain.id,
        name: 'imaps',
        endpoint_type: 'port',
        subdomain: 'self',
        port: 993,
      })
    ).body;
    const bad = (
      await api.post('/api/v1/endpoints', {
        domain_id: domain.id,
        name: 'selfsigned',
        endpoint_type: 'https',
        subdomain: 'self',
        port: self.port,
      })
    ).body;

    const detail = await waitFor(async () => {
      const b = (await api.get(`/api/v1/endpoints/${ep.id}`)).body;
      return b.ssl_status !== 'unknown' && b;
    }, 6000);
    t.equal(detail.ssl_status, 'expiring_soon');
    const expiry = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    t.ok([expiry, new Date(Date.now() + 19 * 86_400_000).toISOString().slice(0, 10)].includes(detail.ssl_expiry_date));
    t.equal(detail.liveness_enabled, false);
    t.equal(detail.health_score, 60, 'expiring soon is a warning');

    const st = (await api.get(`/api/v1/endpoints/${ep.id}/status`)).body;
    t.equal(st.endpoint_id, ep.id);
    t.equal(st.cert_expiry, detail.ssl_expiry_date);
    t.equal(st.issuer, 'CN=Probing Test CA');
    t.equal(st.subject, 'CN=www.example.net');
    t.match(st.last_checked_at, /^\d{4}-\d\d-\d\dT/);
    t.equal(st.endpoint.full_url, `https://www.example.net:${soon.port}/`);
    t.equal(st.ssl.status, 'expiring_soon');
    t.ok(st.ssl.days_until_expiry === 20 || st.ssl.days_until_expiry === 19);
    t.equal(st.overall_health, 'warning');
    t.equal(st.liveness.status, 'unknown');

    const b = await waitFor(async () => {
      const x = (await api.get(`/api/v1/endpoints/${bad.id}`)).body;
      return x.ssl_status !== 'unknown' && x;
    }, 6000);
    t.equal(b.ssl_status, 'invalid');
    t.ok(b.ssl_expiry_date, 'invalid certificates keep their dates');
    t.equal(b.health_score, 10);
    const p = await waitFor(async () => {
      const x = (await api.get(`/api/v1/endpoints/${port.id}`)).body;
      return x.ssl_status !== 'unknown' && x;
    }, 6000);
    t.equal(p.ssl_status, 'error', 'a port endpoint on 993 is inspected; nothing listens there');

    // A second inspection of the same certificate raises no second window event.
    const e = await s.app.store.endpoints.byId(ep.id);
    await s.app.services.certificates.check(e!);
    const events = (await s.app.store.events.list(teamId)).filter((x) => x.event_type === 'ssl_expiry');
    const windowEvents = events.filter((x) => x.endpoint_id === ep.id);
    t.equal(windowEvents.length, 1);
    t.equal(windowEvents[0]!.category, 'certificate_expiring');
    t.equal(windowEvents[0]!.severity, 'medium');
    t.match(JSON.parse(windowEvents[0]!.details), { window_days: 30, issuer: 'CN=Probing Test CA' });
    const invalid = events.filter((x) => x.endpoint_id === bad.id);
    t.same(
      invalid.map((x) => x.category),
      ['certificate_invalid'],
    );
    t.match(invalid[0]!.message, /self-signed/);
  },
);
