import t from 'tap';
import net from 'node:net';
import { createResolver } from '../../src/net/resolve.js';
import { probeHttp } from '../../src/probes/http.js';
import { pluginOf } from '../../src/probes/registry.js';
import { probeTcp } from '../../src/probes/tcp.js';
import { inspectTls } from '../../src/probes/tls.js';
import { sslStatus } from '../../src/domain/certificate.js';
import { closedPort, startHttpTarget, startLoopbackDns, startTcpTarget } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';

const never = new AbortController().signal;

t.test('http: 200, 500, slow (timeout), socket closed, fresh connection each time', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget();
  t.teardown(async () => {
    await target.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]) };
  const url = `http://web.example.test:${target.port}/health?x=1`;

  const ok = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, never);
  t.equal(ok.ok, true);
  t.equal(ok.statusCode, 200);
  t.equal(ok.error, null);
  t.type(ok.responseTimeMs, 'number');
  t.ok(ok.responseTimeMs >= 0 && ok.responseTimeMs < 2000);
  t.equal(target.hosts.at(-1), `web.example.test:${target.port}`, 'Host header is the endpoint name, not the IP');

  await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, never);
  t.equal(target.connections, 2, 'each probe opened its own connection');
  t.ok(dns.queries >= 2, 'DNS asked through DOMMON_DNS_SERVERS on each probe (TTL 0)');

  target.behave({ kind: 'status', code: 500 });
  const bad = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, never);
  t.same([bad.ok, bad.statusCode, bad.reason], [false, 500, 'status']);
  t.match(bad.error, /^status: HTTP 500, expected 200/);
  const expected500 = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 500 }, deps, never);
  t.equal(expected500.ok, true, 'success is status == expected_status_code');

  target.behave({ kind: 'status', code: 301 });
  const redirect = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, never);
  t.same([redirect.ok, redirect.statusCode], [false, 301], 'redirects are not followed');

  target.behave({ kind: 'slow', ms: 3000 });
  const t0 = Date.now();
  const slow = await probeHttp({ url, timeoutMs: 300, expectedStatus: 200 }, deps, never);
  t.same([slow.ok, slow.reason], [false, 'timeout']);
  t.match(slow.error, /^timeout: /);
  t.ok(Date.now() - t0 < 1500, 'gave up at the timeout');

  target.behave({ kind: 'close' });
  const closed = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, never);
  t.same([closed.ok, closed.reason, closed.statusCode], [false, 'reset', null]);

  dns.missing.add('gone.example.test');
  const nx = await probeHttp(
    { url: `http://gone.example.test:${target.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.same([nx.ok, nx.reason], [false, 'dns']);

  const refused = await probeHttp(
    { url: `http://web.example.test:${await closedPort()}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.same([refused.ok, refused.reason], [false, 'refused']);

  const ac = new AbortController();
  target.behave({ kind: 'slow', ms: 3000 });
  setTimeout(() => ac.abort(), 50);
  const cancelled = await probeHttp({ url, timeoutMs: 5000, expectedStatus: 200 }, deps, ac.signal);
  t.same([cancelled.ok, cancelled.reason], [false, 'cancelled'], 'the caller can cancel a probe');
});

t.test('https liveness: trusted via the injected CA; untrusted is a tls failure', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa();
  const good = await startHttpTarget({ tls: issue({ ca, cn: 'secure.example.test', toDays: 90 }) });
  const selfSigned = await startHttpTarget({ tls: issue({ cn: 'secure.example.test', toDays: 90 }) });
  t.teardown(async () => {
    await good.close();
    await selfSigned.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]), ca: ca.cert };
  const ok = await probeHttp(
    { url: `https://secure.example.test:${good.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.same([ok.ok, ok.statusCode], [true, 200]);
  const bad = await probeHttp(
    { url: `https://secure.example.test:${selfSigned.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.same([bad.ok, bad.reason], [false, 'tls']);
  const noCa = await probeHttp(
    { url: `https://secure.example.test:${good.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    { resolver: deps.resolver },
    never,
  );
  t.same([noCa.ok, noCa.reason], [false, 'tls'], 'without the test CA the chain is untrusted');
  const wrongHost = await probeHttp(
    { url: `https://other.example.test:${good.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.same([wrongHost.ok, wrongHost.reason], [false, 'tls'], 'a certificate for another name is a tls failure');
});

t.test('tcp: open and closed port, unknown name', async (t) => {
  const dns = await startLoopbackDns();
  const open = await startTcpTarget();
  t.teardown(async () => {
    await open.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]) };
  const up = await probeTcp({ host: 'db.example.test', port: open.port, timeoutMs: 2000 }, deps, never);
  t.same([up.ok, up.error], [true, null]);
  t.equal(open.accepted, 1);
  const down = await probeTcp({ host: 'db.example.test', port: await closedPort(), timeoutMs: 2000 }, deps, never);
  t.same([down.ok, down.reason], [false, 'refused']);
  t.match(down.error, /^refused: /);
  dns.missing.add('nope.example.test');
  const nx = await probeTcp({ host: 'nope.example.test', port: open.port, timeoutMs: 2000 }, deps, never);
  t.same([nx.ok, nx.reason], [false, 'dns']);
});

t.test('tls inspection: valid, 20 days, expired, self-signed, wrong host, no TLS', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Inspect CA');
  const mk = async (o: Parameters<typeof issue>[0]) => startHttpTarget({ tls: issue(o) });
  const valid = await mk({ ca, cn: 'a.example.test', sans: ['a.example.test', 'www.a.example.test'], toDays: 200 });
  const soon = await mk({ ca, cn: 'a.example.test', toDays: 20 });
  const expired = await mk({ ca, cn: 'a.example.test', fromDays: -60, toDays: -2 });
  const self = await mk({ cn: 'a.example.test', toDays: 200 });
  const wrong = await mk({ ca, cn: 'other.example.test', toDays: 200 });
  const plain = await startHttpTarget();
  const all = [valid, soon, expired, self, wrong, plain];
  t.teardown(async () => {
    for (const x of all) await x.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]), ca: ca.cert };
  const now = new Date();
  const inspect = (port: number) => inspectTls({ host: 'a.example.test', port, timeoutMs: 2000 }, deps, never);

  const v = await inspect(valid.port);
  if (!v.ok) throw new Error(v.error);
  t.equal(sslStatus(v, now), 'valid');
  t.equal(v.leaf.subject, 'CN=a.example.test');
  t.equal(v.leaf.issuer, 'CN=Inspect CA');
  t.same(v.leaf.sans, ['a.example.test', 'www.a.example.test']);
  t.match(v.leaf.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  t.match(v.leaf.serial, /^[0-9A-F]+$/);
  t.ok(Math.abs(Date.parse(v.leaf.not_after) - (now.getTime() + 200 * 86_400_000)) < 120_000);
  t.same([v.trusted, v.hostname_match, v.self_signed], [true, true, false]);
  t.match(v.protocol, /^TLSv1\.[23]$/);
  t.same(
    v.chain.map((c) => c.subject),
    ['CN=Inspect CA'],
    'the chain up to the trusted root',
  );

  const s = await inspect(soon.port);
  t.equal(s.ok && sslStatus(s, now), 'expiring_soon');
  const e = await inspect(expired.port);
  t.equal(e.ok && sslStatus(e, now), 'expired');
  t.equal(e.ok && e.trusted, true, 'an expired certificate from a trusted CA is still "trusted"; dates decide');
  t.equal(e.ok && e.authorization_error, 'CERT_HAS_EXPIRED');
  const ss = await inspect(self.port);
  t.equal(ss.ok && sslStatus(ss, now), 'invalid');
  t.same(ss.ok && [ss.self_signed, ss.trusted], [true, false]);
  t.ok(ss.ok && ss.leaf.not_after, 'an invalid certificate still has its dates');
  const w = await inspect(wrong.port);
  t.equal(w.ok && sslStatus(w, now), 'invalid');
  t.same(w.ok && [w.hostname_match, w.trusted], [false, true]);
  const p = await inspect(plain.port);
  t.equal(p.ok, false);
  t.equal(sslStatus(p, now), 'error');
  const refused = await inspect(await closedPort());
  t.same(!refused.ok && refused.reason, 'refused');
  t.equal(sslStatus(s, new Date(now.getTime() + 30 * 86_400_000)), 'expired', 'dates are judged by the given clock');
});

t.test('http liveness: the request made once per endpoint object, again when the endpoint is replaced', async (t) => {
  const dns = await startLoopbackDns({ ttl: 60 });
  const target = await startHttpTarget();
  t.teardown(async () => {
    await target.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]) };
  const endpoint = {
    endpoint_type: 'http' as const,
    domain: 'example.test',
    subdomain: 'a',
    path: '/one',
    port: target.port,
  };
  const settings = { timeout_seconds: 2, expected_status_code: 200 };
  const http = pluginOf('http');
  const first = await http.liveness(endpoint, settings, deps, never);
  t.equal(first.ok, true);
  const second = await http.liveness(endpoint, settings, deps, never);
  t.equal(second.ok, true);
  t.same(target.hosts, [`a.example.test:${target.port}`, `a.example.test:${target.port}`]);
  // An update replaces the endpoint object: its new host is asked for.
  const updated = { ...endpoint, subdomain: 'b' };
  t.equal((await http.liveness(updated, settings, deps, never)).ok, true);
  t.equal(target.hosts.at(-1), `b.example.test:${target.port}`);
  t.equal(dns.queries, 2, 'one look-up per name within its TTL');
});

t.test('http liveness: a full request kept per configuration is made again for another URL', async (t) => {
  const dns = await startLoopbackDns({ ttl: 60 });
  const target = await startHttpTarget();
  t.teardown(async () => {
    await target.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]) };
  const endpoint = {
    endpoint_type: 'http' as const,
    domain: 'example.test',
    subdomain: 'a',
    path: '/one',
    port: target.port,
  };
  // Its own header and a condition on [IP]: the full request of http-request.ts.
  const settings = {
    timeout_seconds: 2,
    expected_status_code: 200,
    headers: { 'x-check': 'kept' },
    conditions: ['[STATUS] == 200', '[IP] == 127.0.0.1'],
  };
  const http = pluginOf('http');
  t.equal((await http.liveness(endpoint, settings, deps, never)).ok, true);
  t.equal((await http.liveness(endpoint, settings, deps, never)).ok, true);
  t.same(target.hosts, [`a.example.test:${target.port}`, `a.example.test:${target.port}`]);
  // The same configuration on another endpoint (its URL changed): the new host is asked for.
  const moved = { ...endpoint, subdomain: 'b' };
  t.equal((await http.liveness(moved, settings, deps, never)).ok, true);
  t.equal(target.hosts.at(-1), `b.example.test:${target.port}`);
  t.equal((await http.liveness(endpoint, settings, deps, never)).ok, true);
  t.equal(target.hosts.at(-1), `a.example.test:${target.port}`);
});

t.test('resolver: look-ups of one name in flight together are one query', async (t) => {
  const dns = await startLoopbackDns({ ttl: 60 });
  t.teardown(() => dns.close());
  const resolver = createResolver([dns.server]);
  const answers = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve('same.example.test')));
  t.same(new Set(answers.map((a) => a.address)), new Set(['127.0.0.1']));
  t.equal(dns.queries, 1);
  await Promise.all([resolver.resolve('x.example.test'), resolver.resolve('y.example.test')]);
  t.equal(dns.queries, 3, 'other names ask on their own');
});

t.test('a shared signal aborting cancels every probe waiting on it, and only those', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget({ behaviour: { kind: 'slow', ms: 8000 } });
  t.teardown(async () => {
    await target.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]) };
  const shutdown = new AbortController();
  const url = `http://127.0.0.1:${target.port}/`;
  const probes = Array.from({ length: 30 }, () =>
    probeHttp({ url, timeoutMs: 10_000, expectedStatus: 200 }, deps, shutdown.signal),
  );
  // Probes that finished before the abort leave nothing behind on the shared signal.
  const done = await probeHttp(
    { url: `http://127.0.0.1:${await closedPort()}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    shutdown.signal,
  );
  t.equal(done.reason, 'refused');
  const started = Date.now();
  setTimeout(() => shutdown.abort(), 200);
  const outcomes = await Promise.all(probes);
  t.ok(Date.now() - started < 5000, 'cancelled long before their 10 s deadline');
  t.same(new Set(outcomes.map((o) => o.reason)), new Set(['cancelled']));
  const late = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, deps, shutdown.signal);
  t.equal(late.reason, 'cancelled', 'a probe started on an aborted signal is cancelled at once');
});

t.test('http: the status line read from raw bytes, whole or in pieces, by several checks at once', async (t) => {
  // A server that answers each connection with the pieces of the first request line's path
  // (`/a|b|c`: "a", then "b" 30 ms later, ...), then closes.
  const server = net.createServer((sock) => {
    sock.once('data', (d) => {
      const path = decodeURIComponent(/^GET (\S+)/.exec(d.toString('latin1'))![1]!.slice(1));
      const pieces = path.split('|');
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return void sock.end();
        sock.write(Buffer.from(piece, 'latin1'));
        setTimeout(next, 30);
      };
      next();
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as net.AddressInfo;
  const deps = { resolver: createResolver([]) };
  const check = (answer: string, expectedStatus = 200) =>
    probeHttp(
      { url: `http://127.0.0.1:${port}/${encodeURIComponent(answer)}`, timeoutMs: 2000, expectedStatus },
      deps,
      never,
    );
  const outcomes = await Promise.all([
    check('HTTP/1.1 200 OK\r\n\r\n'),
    check('HTTP/1.1 2|04 No Content\r\n\r\n', 204),
    check('HTT|P/1.0 503 Unavailable|\r\nx: y\r\n\r\n'),
    check('HTTP/1 200\r\n'),
    check('HTTP/2 418\n'),
    check('SSH-2.0-OpenSSH_9.6\r\n'),
    check('HTTP/1.1 20'),
    check('HTTP/1.x 200 OK\r\n'),
    check(`HTTP/1.1 200 ${'x'.repeat(9000)}`),
    check('x'.repeat(9000)),
  ]);
  t.same(
    outcomes.map((o) => [o.ok, o.statusCode, o.reason]),
    [
      [true, 200, null],
      [true, 204, null],
      [false, 503, 'status'],
      [true, 200, null],
      [false, 418, 'status'],
      [false, null, 'error'],
      [false, null, 'reset'],
      [false, null, 'error'],
      [true, 200, null],
      [false, null, 'error'],
    ],
  );
  t.match(outcomes[5]!.error, /not an HTTP response/);
  t.match(outcomes[7]!.error, /not an HTTP response/);
});
