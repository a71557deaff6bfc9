// The NUL character (U+0000): no field of the API takes one (a 400 naming where it is, in a body or a
// query parameter; a path with one names nothing, 404), and text from outside that holds one (a job's ping, its report) is kept, on
// PostgreSQL with U+FFFD in its place (its text types cannot hold U+0000: such a value failed its whole
// statement with a 500). test/pg/api-nul-text.test.ts runs it again on PostgreSQL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { onPostgres } from '../support/pg.js';
import { startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';

t.test('a NUL in a request is a 400 that names where it is, and changes nothing', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('nul'));
  const refused = async (r: { status: number; body: any }, field: string) => {
    t.equal(r.status, 400, field);
    t.match(r.body, {
      code: 'VALIDATION_ERROR',
      error: `${field}: must not contain the NUL character (U+0000)`,
      errors: [{ field, message: 'must not contain the NUL character (U+0000)' }],
    });
  };
  await refused(await api.post('/api/v1/portfolios', { name: 'p\u0000', description: 'd\u0000' }), 'name');
  await refused(await api.post('/api/v1/domains', { domain: 'nul.example', notes: 'a\u0000b' }), 'notes');
  await refused(await api.post('/api/v1/domains', { domain: 'nul.example', ['x\u0000']: 1 }), 'x\u0000');
  await refused(
    await api.post('/api/v1/domains/bulk', {
      domains: [{ domain: 'a.example' }, { domain: 'b.example', notes: '\u0000' }],
    }),
    'domains.1.notes',
  );
  await refused(await api.get('/api/v1/domains?domain=a%00b'), 'domain');
  const path = await api.get('/api/v1/domains/nul%00.example');
  t.same([path.status, path.body.code], [404, 'NOT_FOUND'], 'a path with one names nothing');
  t.same((await api.get('/api/v1/domains')).body.domains, [], 'nothing was made');
  // The same characters otherwise: a domain with notes that hold U+FFFD itself is kept as sent.
  const d = await api.post('/api/v1/domains', { domain: 'ok.example', notes: 'a\uFFFDb' });
  t.equal(d.status, 201);
  t.equal(d.body.notes, 'a\uFFFDb');
});

t.test("a job's ping and report that hold a NUL are kept", async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('nul-ping'));
  const domain = (await api.post('/api/v1/domains', { domain: 'jobs.example' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'backup',
      endpoint_type: 'push',
      subdomain: 'db',
      period_seconds: 3600,
      grace_seconds: 60,
    })
  ).body;
  // Its output, NUL bytes and all, as the body of a failure ping.
  const r = await fetch(`${ep.ping_url}/fail`, { method: 'POST', body: Buffer.from('disk\u0000full\n') });
  t.same([r.status, await r.text()], [200, 'OK']);
  const nul = onPostgres() ? '\uFFFD' : '\u0000';
  const [fail] = (await api.get(`/api/v1/endpoints/${ep.id}/pings?limit=1`)).body.pings;
  t.same([fail.kind, fail.body], ['fail', `disk${nul}full\n`], `kept${onPostgres() ? ', U+FFFD for the NUL' : ''}`);
  const status = (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body;
  t.equal(status.status, 'down', 'and its verdict recorded');
  // A report in the URL (Gatus's external-endpoint form, `error=`) with an encoded NUL.
  const gatus = await fetch(`${s.url}/api/v1/endpoints/jobs_backup/external?success=false&error=no%00space`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ep.ping_key}` },
  });
  t.same([gatus.status, await gatus.text()], [200, '']);
  const [report] = (await api.get(`/api/v1/endpoints/${ep.id}/pings?limit=1`)).body.pings;
  t.equal(report.kind, 'fail');
});

t.test("a probed server's answer that holds a NUL: its failed condition is recorded with it", async (t) => {
  // A JSON body whose field is "a\u0000b": the condition on it fails, and its reason shows the value seen.
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"a\\u0000b"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dns = await startLoopbackDns();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(async () => {
    await s.close();
    await dns.close();
    server.close();
  });
  const api = client(s.url, await s.token('nul-probe'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'api',
      endpoint_type: 'http',
      port: (server.address() as AddressInfo).port,
    })
  ).body;
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      interval_seconds: 1,
      timeout_seconds: 2,
      conditions: ['[BODY].status == UP'],
    })
  ).body;
  // Written, not lost with its results batch: down, its reason naming the value the server sent.
  const down = await waitFor(async () => {
    const b = (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
    return b.status === 'down' && b;
  }, 15_000);
  const nul = onPostgres() ? '\uFFFD' : '\u0000';
  t.ok(String(down.last_error).includes(`a${nul}b`), JSON.stringify(down.last_error));
});
