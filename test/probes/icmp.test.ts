// The icmp probe against 127.0.0.1 through the system's ping (no privilege of the test's own): a
// reply is up with its round trip, a name resolves through the guarded resolver (the loopback DNS
// server), a denied address is never pinged, a missing ping program says so; ping's summary is read
// as iputils writes it, loss included.
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { parsePingSummary, probeIcmp } from '../../src/probes/icmp.js';
import '../../src/probes/registry.js';
import { startLoopbackDns } from '../support/targets.js';

t.setTimeout(60_000);
const never = new AbortController().signal;
const target = (domain: string, settings?: Record<string, number>) => ({
  endpoint_type: 'icmp' as const,
  domain,
  subdomain: null,
  port: null,
  path: null,
  ...(settings ? { settings } : {}),
});

t.test("ping's summary, as iputils prints it", async (t) => {
  t.same(
    parsePingSummary(
      '--- 127.0.0.1 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time 404ms\nrtt min/avg/max/mdev = 0.025/0.041/0.062/0.015 ms\n',
    ),
    { transmitted: 3, received: 3, avgMs: 0.041 },
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n4 packets transmitted, 1 received, 75% packet loss, time 3050ms\nrtt min/avg/max/mdev = 12.5/12.5/12.5/0.000 ms\n',
    ),
    { transmitted: 4, received: 1, avgMs: 12.5 },
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n2 packets transmitted, 0 received, 100% packet loss, time 1020ms\n',
    ),
    { transmitted: 2, received: 0, avgMs: null },
  );
  t.equal(parsePingSummary('ping: socket: Operation not permitted\n'), null);
});

t.test('echo replies from 127.0.0.1, by address and by name', async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const deps = { resolver: createResolver([dns.server]) };
  const started = Date.now();
  const r = await probeIcmp(target('127.0.0.1', { count: 2, max_loss_percent: 0 }), 5000, deps, never);
  t.match(r, { ok: true, reason: null, error: null, statusCode: null });
  t.ok(r.responseTimeMs >= 0 && r.responseTimeMs < 1000, `the mean round trip: ${r.responseTimeMs} ms`);
  t.ok(Date.now() - started >= 150, 'two echo requests, 0.2 s apart');

  const before = dns.queries;
  const byName = await probeIcmp(target('pinged.example.test'), 5000, deps, never);
  t.match(byName, { ok: true }, 'a name, with the defaults (3 requests)');
  t.ok(dns.queries > before, 'resolved by the configured resolver');

  dns.missing.add('gone.example.test');
  const gone = await probeIcmp(target('gone.example.test'), 5000, deps, never);
  t.match(gone, { ok: false, reason: 'dns' });
});

t.test('the outbound policy: a denied address is never pinged', async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const deps = { resolver: createResolver([dns.server], { policy: outboundPolicy('127.0.0.0/8', undefined) }) };
  for (const host of ['127.0.0.1', 'pinged.example.test']) {
    const r = await probeIcmp(target(host), 5000, deps, never);
    t.match(r, { ok: false, reason: 'denied', error: /^denied: address 127\.0\.0\.1 is denied/ }, host);
  }
});

t.test('no ping program, and a cancelled check', async (t) => {
  const deps = { resolver: createResolver([]) };
  const path = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    const r = await probeIcmp(target('127.0.0.1'), 5000, deps, never);
    t.match(r, {
      ok: false,
      reason: 'error',
      error: 'error: the system ping program is not installed (Debian: iputils-ping)',
    });
  } finally {
    process.env.PATH = path;
  }
  const ac = new AbortController();
  const p = probeIcmp(target('127.0.0.1', { count: 20, max_loss_percent: 0 }), 10_000, deps, ac.signal);
  setTimeout(() => ac.abort(), 300);
  const started = Date.now();
  t.match(await p, { ok: false, reason: 'cancelled' });
  t.ok(Date.now() - started < 3000, 'ping is stopped with the check');
});
