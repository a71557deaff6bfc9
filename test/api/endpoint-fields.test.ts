// Endpoint-type fields through the API, on the icmp type (`count`, `max_loss_percent`): defaults on
// create, values kept on update, dropped when the type changes, answered flat by every read,
// validated by the request schemas (400 with the error body), refused on another type; an icmp
// endpoint checked by the running daemon against 127.0.0.1 (its name through the loopback DNS server),
// its results with the echo numbers (API and CLI);
// dns endpoints (a chosen resolver, the zone's own servers) up, down and up as a record changes.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { startDnsServer } from '../support/dns-server.js';
import { startLoopbackApp } from '../support/targets.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(120_000);
t.before(ensureBuilt);

t.test('fields of a type: create, read, update, type change, 400s', async (t) => {
  const { s } = await startLoopbackApp(t);
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;

  const made = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'gw',
    endpoint_type: 'icmp',
    subdomain: 'gw',
  });
  t.equal(made.status, 201);
  t.match(made.body, {
    endpoint_type: 'icmp',
    port: null,
    full_url: 'icmp://gw.example.com',
    count: 3,
    max_loss_percent: 50,
  });
  const five = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'five', endpoint_type: 'icmp', count: 5 });
  t.match(five.body, { count: 5, max_loss_percent: 50, full_url: 'icmp://example.com' });

  const web = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' });
  t.notOk('count' in web.body, 'a type without fields answers none');

  const shown = await api.get(`/api/v1/endpoints/${five.body.id}`);
  t.match(shown.body, { count: 5, max_loss_percent: 50, ssl_status: 'unknown' }, 'the detail');
  const listed = await api.get(`/api/v1/endpoints?endpoint_type=icmp&domain_id=${d.id}`);
  t.same(
    listed.body.data.map((e: any) => [e.name, e.count, e.max_loss_percent]).sort(),
    [
      ['five', 5, 50],
      ['gw', 3, 50],
    ],
    'the list',
  );

  const kept = await api.put(`/api/v1/endpoints/${five.body.id}`, { max_loss_percent: 0 });
  t.match(kept.body, { count: 5, max_loss_percent: 0 }, 'an update keeps the fields it does not name');
  const renamed = await api.put(`/api/v1/endpoints/${five.body.id}`, { name: 'five-b' });
  t.match(renamed.body, { name: 'five-b', count: 5, max_loss_percent: 0 });

  const toWeb = await api.put(`/api/v1/endpoints/${five.body.id}`, { endpoint_type: 'https' });
  t.equal(toWeb.status, 200);
  t.notOk('count' in toWeb.body, 'the fields go with the type');
  const back = await api.put(`/api/v1/endpoints/${five.body.id}`, { endpoint_type: 'icmp', count: 7 });
  t.match(back.body, { count: 7, max_loss_percent: 50 }, 'a new type starts from its defaults');

  const bad: [string, string, Record<string, unknown>, RegExp][] = [
    [
      'POST',
      '/api/v1/endpoints',
      { domain_id: d.id, name: 'x1', endpoint_type: 'https', count: 3 },
      /^count: not a field of endpoint_type "https"$/,
    ],
    [
      'POST',
      '/api/v1/endpoints',
      { domain_id: d.id, name: 'x2', endpoint_type: 'icmp', count: 0 },
      /^count: must be >= 1$/,
    ],
    ['POST', '/api/v1/endpoints', { domain_id: d.id, name: 'x3', endpoint_type: 'icmp', count: '3' }, /^count: /],
    [
      'POST',
      '/api/v1/endpoints',
      { domain_id: d.id, name: 'x4', endpoint_type: 'icmp', max_loss_percent: 101 },
      /^max_loss_percent: /,
    ],
    ['PUT', `/api/v1/endpoints/${web.body.id}`, { count: 2 }, /^count: not a field of endpoint_type "https"$/],
    ['PUT', `/api/v1/endpoints/${made.body.id}`, { count: 21 }, /^count: /],
    [
      'PUT',
      `/api/v1/endpoints/${made.body.id}`,
      { endpoint_type: 'http', count: 2 },
      /^count: not a field of endpoint_type "http"$/,
    ],
  ];
  for (const [method, path, body, msg] of bad) {
    const r = method === 'POST' ? await api.post(path, body) : await api.put(path, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(
      r.body,
      { error: msg, code: 'VALIDATION_ERROR', path, timestamp: String },
      `${JSON.stringify(body)}: ${r.body.error}`,
    );
  }
  t.match(
    (await api.get(`/api/v1/endpoints/${made.body.id}`)).body,
    { count: 3, endpoint_type: 'icmp' },
    'a refused update changed nothing',
  );

  const bulk = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [
      { domain_id: d.id, name: 'b1', endpoint_type: 'icmp', count: 2 },
      { domain_id: d.id, name: 'b2', endpoint_type: 'port', port: 22, count: 2 },
    ],
  });
  t.equal(bulk.status, 201);
  t.match(bulk.body, { created: 1, failed: 1, data: [{ name: 'b1', count: 2 }] });
  t.match(bulk.body.errors, [{ index: 1, error: 'count: not a field of endpoint_type "port"' }]);
});

t.test('an icmp endpoint checked by the daemon: 127.0.0.1 answers', async (t) => {
  const { s } = await startLoopbackApp(t);
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'gw',
      endpoint_type: 'icmp',
      subdomain: 'gw',
      count: 2,
    })
  ).body;
  const cfg = (await api.post('/api/v1/liveness', { endpoint_id: ep.id, timeout_seconds: 3, interval_seconds: 2 }))
    .body;
  const up = await waitFor(async () => {
    const b = (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
    return b.status === 'up' && b;
  }, 20_000);
  t.equal(up.last_check_successful, true);
  t.type(up.response_time_ms, 'number');
  t.ok(up.response_time_ms < 1000, `round trip ${up.response_time_ms} ms`);
  // Each result with the echo requests' numbers, valid against its response schema (the client checks).
  const results = (await api.get(`/api/v1/liveness/${cfg.id}/results`)).body;
  const last = results.data.find((r: any) => r.is_successful);
  t.match(last.icmp, { packets_sent: 2, packets_received: 2, loss_percent: 0, rtt_avg_ms: Number });
  t.equal(last.response_time_ms, Math.round(last.icmp.rtt_avg_ms), 'the response time is the mean round trip');
  t.ok(last.icmp.rtt_min_ms <= last.icmp.rtt_max_ms, 'min <= max');
  // The CLI's table: the echo numbers in a column of their own.
  const text = await cli(['--remote', s.url, '--token', await s.token(), 'liveness', 'results', cfg.id]);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /\bECHO\b/);
  t.match(text.stdout, /2\/2 replies, 0 % lost, min\/avg\/max [\d.]+\/[\d.]+\/[\d.]+ ms/);
});

t.test('a dns endpoint checked by the daemon: up, down when its record goes, up again', async (t) => {
  const server = await startDnsServer({
    'example.com': { NS: ['ns1.example.com'], MX: [{ preference: 10, exchange: 'mx.example.com' }] },
    'ns1.example.com': { A: ['127.0.0.1'] },
  });
  const s = await startApp(
    { DOMMON_DNS_SERVERS: server.address, DOMMON_RATE_LIMIT: '1000000' },
    { probes: { nameserverPort: () => server.port } },
  );
  t.teardown(async () => {
    await s.close();
    await server.close();
  });
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const bad = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'x',
    endpoint_type: 'dns',
    record_type: 'SPF',
  });
  t.match(bad, {
    status: 400,
    body: { error: /^record_type: must be one of A, AAAA, CNAME, MX, NS, TXT, SOA, CAA, DS$/ },
  });
  const viaResolver = (
    await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'mx',
      endpoint_type: 'dns',
      record_type: 'MX',
      resolver: server.address,
    })
  ).body;
  t.match(viaResolver, { full_url: 'dns://example.com', record_type: 'MX', resolver: server.address });
  const own = (
    await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'own', endpoint_type: 'dns', record_type: 'MX' })
  ).body;
  t.match(own, { record_type: 'MX', resolver: null }, "the zone's own servers by default");

  const status = async (id: string) => (await api.get(`/api/v1/liveness/${id}/status`)).body;
  const configs = [];
  for (const ep of [viaResolver, own])
    configs.push(
      (
        await api.post('/api/v1/liveness', {
          endpoint_id: ep.id,
          timeout_seconds: 2,
          interval_seconds: 1,
          failure_threshold: 1,
        })
      ).body.id as string,
    );
  for (const id of configs) await waitFor(async () => (await status(id)).status === 'up', 20_000);
  t.pass('both up');

  server.zone['example.com']!.MX = [];
  for (const id of configs) {
    // Down for the reason: on a loaded host a check may time out first (down too, for another reason).
    const down = await waitFor(async () => {
      const b = await status(id);
      return b.status === 'down' && /no MX record/.test(b.last_error) && b;
    }, 20_000);
    t.match(down.last_error, /^dns: no MX record for example\.com \(NOERROR, no answer from 127\.0\.0\.1:\d+\)$/);
  }
  server.zone['example.com']!.MX = [{ preference: 20, exchange: 'mx2.example.com' }];
  for (const id of configs) await waitFor(async () => (await status(id)).status === 'up', 20_000);
  t.pass('up again');
});
