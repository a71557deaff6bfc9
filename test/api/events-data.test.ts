// The dashboard's data routes (extensions): GET /api/v1/events (team-scoped, paged, filtered, newest
// first) with a real down/recovery from a loopback target, GET /api/v1/endpoints/:id/certificates
// with real TLS inspections of three certificates (first, renewed, issuer changed) and of a server
// sending leaf + intermediate (the chain, leaf first, with key types and sizes), and
// GET /api/v1/liveness/:id/hourly from the hourly aggregates, equal to the raw results.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startHttpTarget, startLoopbackApp, startLoopbackDns } from '../support/targets.js';
import crypto from 'node:crypto';
import { issue, makeCa, makeIntermediate } from '../support/certs.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(120_000);

const MISSING = '00000000-0000-4000-8000-000000000000';

/** The domain `name` with an HTTPS endpoint `www` on the loopback port given. */
async function httpsEndpoint(a: ReturnType<typeof client>, name: string, port: number) {
  const d = (await a.post('/api/v1/domains', { domain: name })).body;
  const ep = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'www', endpoint_type: 'https', subdomain: 'www', port })
  ).body;
  return { d, ep };
}

t.test('events: real down/recovery, paging, filters, team isolation', async (t) => {
  const { s, target } = await startLoopbackApp(t);
  const a = client(s.url, await s.token('alpha'));
  const b = client(s.url, await s.token('beta'));
  const teamA = (await a.get('/api/v1/validate')).body.team_id as string;
  const teamB = (await b.get('/api/v1/validate')).body.team_id as string;
  const d = (await a.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await a.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'web',
      endpoint_type: 'http',
      port: target.port,
      path: '/ping',
    })
  ).body;
  const cfg = (await a.post('/api/v1/liveness', { endpoint_id: ep.id, timeout_seconds: 1, interval_seconds: 1 })).body;
  const status = async () => (await a.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  await waitFor(async () => (await status()).status === 'up', 10_000);
  target.behave({ kind: 'status', code: 500 });
  await waitFor(async () => (await status()).status === 'down', 10_000);
  target.behave({ kind: 'status', code: 200 });
  await waitFor(async () => (await status()).status === 'up', 10_000);

  const live = await a.get(`/api/v1/events?endpoint_id=${ep.id}`);
  t.equal(live.status, 200);
  t.same(
    live.body.data.map((e: any) => e.category),
    ['endpoint_recovered', 'endpoint_down'],
    'newest first',
  );
  t.same(live.body.events, live.body.data);
  t.match(live.body.pagination, { total: 2, limit: 50, offset: 0, has_more: false });
  const down = live.body.data[1];
  t.match(down, {
    event_type: 'liveness',
    category: 'endpoint_down',
    severity: 'high',
    domain_id: d.id,
    endpoint_id: ep.id,
    message: /web \(http:\/\/example\.com:\d+\/ping\) is DOWN after 1 failed check/,
    details: { transition: 'down', status_code: 500, consecutive_failures: 1 },
  });
  t.ok(Date.parse(down.created_at) <= Date.parse(live.body.data[0].created_at));
  t.equal((await a.get('/api/v1/events?category=endpoint_down')).body.total, 1);
  t.equal((await a.get(`/api/v1/events?domain_id=${d.id}&severity=info`)).body.data[0].category, 'endpoint_recovered');

  // Seeded rows with known times: paging, `since`, `event_type`, and the other team.
  const base = Date.parse('2030-01-01T00:00:00Z');
  for (let i = 0; i < 7; i++)
    await s.app.store.events.add(
      {
        team_id: teamA,
        event_type: 'ssl_expiry',
        severity: 'medium',
        category: 'certificate_expiring',
        endpoint_id: ep.id,
        domain_id: d.id,
        message: `seeded ${i}`,
        details: { i },
      },
      new Date(base + i * 60_000).toISOString(),
    );
  await s.app.store.events.add(
    { team_id: teamB, event_type: 'ssl_expiry', severity: 'critical', message: 'beta only' },
    new Date(base).toISOString(),
  );
  const seen: string[] = [];
  for (let offset = 0; offset < 7; offset += 3) {
    const r = await a.get(`/api/v1/events?event_type=ssl_expiry&limit=3&offset=${offset}`);
    t.equal(r.body.total, 7);
    t.equal(r.body.pagination.has_more, offset + 3 < 7);
    seen.push(...r.body.data.map((e: any) => e.message));
  }
  t.same(
    seen,
    [6, 5, 4, 3, 2, 1, 0].map((i) => `seeded ${i}`),
    'pages newest first, no overlap',
  );
  const since = await a.get(`/api/v1/events?since=${encodeURIComponent('2030-01-01T00:04:00Z')}`);
  t.same(
    since.body.data.map((e: any) => e.details.i),
    [6, 5, 4],
  );
  t.equal((await a.get('/api/v1/events?since=2030-01-01')).body.total, 7, 'a date means its midnight UTC');
  t.same(
    (await a.get(`/api/v1/events?since=${encodeURIComponent('2030-01-01T00:05:59.5+00:00')}`)).body.data.map(
      (e: any) => e.details.i,
    ),
    [6],
    'an offset and fractions',
  );
  t.equal(
    (await a.get('/api/v1/events?since=2029-12-31T23:59:60Z')).body.total,
    7,
    'a leap second is a valid date-time (the next second)',
  );
  t.equal((await a.get('/api/v1/events?limit=500')).body.limit, 100, 'limit capped at 100');

  // Team isolation: beta sees its one event, never alpha's, even when filtering by alpha's ids.
  const bl = (await b.get('/api/v1/events')).body;
  t.same(
    bl.data.map((e: any) => e.message),
    ['beta only'],
  );
  t.equal((await b.get(`/api/v1/events?endpoint_id=${ep.id}`)).body.total, 0);
  t.equal((await a.get('/api/v1/events')).body.total, 9);

  for (const q of ['limit=0', 'offset=-1', 'since=yesterday', 'domain_id=nope', 'severity=urgent', 'category=']) {
    const r = await a.get(`/api/v1/events?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.body.code, 'VALIDATION_ERROR', q);
  }
  t.equal((await client(s.url).get('/api/v1/events')).status, 401);
});

t.test('certificates: first, renewed, issuer changed; hourly aggregates', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Dashboard Test CA');
  const other = makeCa('Another Test CA');
  const first = await startHttpTarget({ tls: issue({ ca, cn: 'www.certs.example', toDays: 20 }) });
  const renewed = await startHttpTarget({ tls: issue({ ca, cn: 'www.certs.example', toDays: 90 }) });
  const moved = await startHttpTarget({ tls: issue({ ca: other, cn: 'www.certs.example', toDays: 60 }) });
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' },
    { probes: { ca: ca.cert } },
  );
  t.teardown(async () => {
    await s.close();
    for (const x of [first, renewed, moved]) await x.close();
    await dns.close();
  });
  const a = client(s.url, await s.token('alpha'));
  const b = client(s.url, await s.token('beta'));
  const teamA = (await a.get('/api/v1/validate')).body.team_id as string;
  const { d, ep } = await httpsEndpoint(a, 'certs.example', first.port);
  const plain = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'smtp-ish', endpoint_type: 'port', port: 2525 })
  ).body;
  t.same((await a.get(`/api/v1/endpoints/${plain.id}/certificates`)).body, {
    endpoint_id: plain.id,
    current: null,
    history: [],
  });

  const certs = async () => (await a.get(`/api/v1/endpoints/${ep.id}/certificates`)).body;
  for (const target of [first, renewed, moved]) {
    t.equal((await a.put(`/api/v1/endpoints/${ep.id}`, { port: target.port })).status, 200);
    await s.app.services.certificates.checkNow(teamA, ep.id);
  }
  const c = await certs();
  t.equal(c.endpoint_id, ep.id);
  t.match(c.current, {
    ssl_status: 'invalid',
    subject: /www\.certs\.example/,
    issuer: /Another Test CA/,
    sans: ['www.certs.example'],
    trusted: false,
    hostname_match: true,
  });
  t.ok([59, 60].includes(c.current.days_until_expiry), `${c.current.days_until_expiry} days`);
  t.same(
    c.history.map((h: any) => h.change),
    ['issuer_changed', 'renewed', 'first'],
    'newest first, each against the one before',
  );
  t.match(c.history[1].issuer, /Dashboard Test CA/);
  t.equal(c.history[0].fingerprint256, c.current.fingerprint256);
  t.ok(Date.parse(c.history[2].not_after) < Date.parse(c.history[1].not_after), 'the renewal expires later');
  // The same routes answer the User API path; another team gets a 404, a bad id too.
  t.same((await a.get(`/api-endpoints/${ep.id}/certificates`)).body, c);
  t.equal((await b.get(`/api/v1/endpoints/${ep.id}/certificates`)).status, 404);
  t.equal((await a.get(`/api/v1/endpoints/${MISSING}/certificates`)).status, 404);
  t.equal((await a.get('/api/v1/endpoints/not-a-uuid/certificates')).status, 404);
  // The renewal and the issuer change were recorded as events too.
  t.same(
    (await a.get(`/api/v1/events?endpoint_id=${ep.id}&event_type=ssl_expiry&category=issuer_changed`)).body.data.map(
      (e: any) => e.category,
    ),
    ['issuer_changed'],
  );

  // Hourly aggregates: a 1 s liveness check on the current target, then the buckets against the raw results.
  const cfg = (await a.post('/api/v1/liveness', { endpoint_id: ep.id, timeout_seconds: 2, interval_seconds: 1 })).body;
  await waitFor(async () => (await a.get(`/api/v1/liveness/${cfg.id}/results`)).body.total >= 3, 15_000);
  await s.app.probing.liveness.flush();
  const h = await a.get(`/api/v1/liveness/${cfg.id}/hourly`);
  t.equal(h.status, 200);
  t.equal(h.body.hours, 168);
  const raw = (await a.get(`/api/v1/liveness/${cfg.id}/results?limit=100`)).body;
  const total = h.body.data.reduce((n: number, x: any) => n + x.total_tests, 0);
  t.equal(total, raw.total, 'the buckets hold every raw result');
  const okRaw = raw.data.filter((r: any) => r.is_successful).length;
  t.equal(
    h.body.data.reduce((n: number, x: any) => n + x.successful_tests, 0),
    okRaw,
  );
  const last = h.body.data.at(-1);
  t.match(last.hour, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
  t.ok(Date.now() - Date.parse(last.hour) < 3_600_000 + 60_000, 'the current hour');
  t.ok(h.body.data.length <= 2, 'one or two hours of checks');
  t.equal((await a.get(`/api/v1/liveness/${cfg.id}/hourly?hours=1`)).body.hours, 1);
  t.equal((await a.get(`/api-liveness/${cfg.id}/hourly?hours=24`)).status, 200);
  t.equal((await a.get(`/api/v1/liveness/${cfg.id}/hourly?hours=0`)).status, 400);
  t.equal((await a.get(`/api/v1/liveness/${cfg.id}/hourly?hours=9999`)).status, 400);
  t.equal((await b.get(`/api/v1/liveness/${cfg.id}/hourly`)).status, 404);
});

t.test('certificate chain: a server sending leaf + intermediate, under a root the probe trusts', async (t) => {
  const root = makeCa('Chain Test Root');
  const mid = makeIntermediate(root, 'Chain Test Intermediate');
  const leaf = issue({ ca: mid, cn: 'www.chain.example', toDays: 45, rsaBits: 2048 });
  const { s, target } = await startLoopbackApp(t, {
    tls: { cert: leaf.cert + mid.cert, key: leaf.key },
    app: { probes: { ca: root.cert } },
  });
  // The inspection asked for is the only one: the TLS worker's own (new endpoints within seconds) would
  // move last_seen between the two reads below.
  await s.app.probing.stop(0);
  const a = client(s.url, await s.token('alpha'));
  const teamA = (await a.get('/api/v1/validate')).body.team_id as string;
  const { ep } = await httpsEndpoint(a, 'chain.example', target.port);
  await s.app.services.certificates.checkNow(teamA, ep.id);
  const c = (await a.get(`/api/v1/endpoints/${ep.id}/certificates`)).body;
  const x = (pem: string) => new crypto.X509Certificate(pem);
  const [lx, mx, rx] = [x(leaf.cert), x(mid.cert), x(root.cert)];
  t.match(c.current, { ssl_status: 'valid', trusted: true, hostname_match: true });
  t.same(
    c.current.chain.map((k: any) => k.fingerprint256),
    [lx.fingerprint256, mx.fingerprint256, rx.fingerprint256],
    'leaf, the intermediate the server sent, then the root it chains to',
  );
  const [l, m, r] = c.current.chain;
  t.same(l, {
    subject: 'CN=www.chain.example',
    issuer: 'CN=Chain Test Intermediate',
    serial: lx.serialNumber,
    not_before: new Date(lx.validFrom).toISOString(),
    not_after: new Date(lx.validTo).toISOString(),
    fingerprint256: lx.fingerprint256,
    key_type: 'rsa',
    key_bits: 2048,
  });
  t.match(m, { subject: 'CN=Chain Test Intermediate', issuer: 'CN=Chain Test Root', key_type: 'ec', key_bits: 384 });
  t.equal(m.serial, mx.serialNumber);
  t.equal(m.not_after, new Date(mx.validTo).toISOString());
  t.match(r, { subject: 'CN=Chain Test Root', issuer: 'CN=Chain Test Root', key_type: 'ec', key_bits: 256 });
  t.equal(c.current.fingerprint256, lx.fingerprint256);
  t.equal(c.history.length, 1);
  t.same(c.history[0].chain, c.current.chain, 'the history keeps the chain the certificate came with');
  t.equal(c.history[0].change, 'first');
  // Stored, not recomputed: a second read after a restart of nothing answers the same; the User API twin too.
  t.same((await a.get(`/api-endpoints/${ep.id}/certificates`)).body, c);
});
