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

const none = { rtt_min_ms: null, rtt_avg_ms: null, rtt_max_ms: null, rtt_mdev_ms: null };

t.test("ping's summary, as iputils prints it", async (t) => {
  t.same(
    parsePingSummary(
      '--- 127.0.0.1 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time 404ms\nrtt min/avg/max/mdev = 0.025/0.041/0.062/0.015 ms\n',
    ),
    {
      packets_sent: 3,
      packets_received: 3,
      loss_percent: 0,
      rtt_min_ms: 0.025,
      rtt_avg_ms: 0.041,
      rtt_max_ms: 0.062,
      rtt_mdev_ms: 0.015,
    },
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n4 packets transmitted, 1 received, 75% packet loss, time 3050ms\nrtt min/avg/max/mdev = 12.5/12.5/12.5/0.000 ms\n',
    ),
    {
      packets_sent: 4,
      packets_received: 1,
      loss_percent: 75,
      rtt_min_ms: 12.5,
      rtt_avg_ms: 12.5,
      rtt_max_ms: 12.5,
      rtt_mdev_ms: 0,
    },
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms\nrtt min/avg/max/mdev = 1.101/2.202/3.303/1.101 ms\n',
    ),
    {
      packets_sent: 3,
      packets_received: 2,
      loss_percent: 33.33,
      rtt_min_ms: 1.101,
      rtt_avg_ms: 2.202,
      rtt_max_ms: 3.303,
      rtt_mdev_ms: 1.101,
    },
    'the loss from the counts, to two decimals',
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n2 packets transmitted, 0 received, 100% packet loss, time 1020ms\n',
    ),
    { packets_sent: 2, packets_received: 0, loss_percent: 100, ...none },
  );
  t.same(
    parsePingSummary(
      '--- 10.0.0.9 ping statistics ---\n2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1001ms\n',
    ),
    { packets_sent: 2, packets_received: 0, loss_percent: 100, ...none },
    'ICMP errors (host unreachable) beside the counts',
  );
  t.equal(parsePingSummary('ping: socket: Operation not permitted\n'), null);
});

t.test("ping's summary, as BusyBox and BSD print it", async (t) => {
  t.same(
    parsePingSummary(
      'PING 127.0.0.1 (127.0.0.1): 56 data bytes\n\n--- 127.0.0.1 ping statistics ---\n3 packets transmitted, 3 packets received, 0% packet loss\nround-trip min/avg/max = 0.053/0.064/0.079 ms\n',
    ),
    {
      packets_sent: 3,
      packets_received: 3,
      loss_percent: 0,
      rtt_min_ms: 0.053,
      rtt_avg_ms: 0.064,
      rtt_max_ms: 0.079,
      rtt_mdev_ms: null,
    },
    'BusyBox: no spread',
  );
  t.same(
    parsePingSummary('--- 10.0.0.9 ping statistics ---\n4 packets transmitted, 0 packets received, 100% packet loss\n'),
    { packets_sent: 4, packets_received: 0, loss_percent: 100, ...none },
    'BusyBox: no reply',
  );
  t.same(
    parsePingSummary(
      '--- 127.0.0.1 ping statistics ---\n2 packets transmitted, 2 packets received, 0.0% packet loss\nround-trip min/avg/max/stddev = 0.046/0.073/0.100/0.027 ms\n',
    ),
    {
      packets_sent: 2,
      packets_received: 2,
      loss_percent: 0,
      rtt_min_ms: 0.046,
      rtt_avg_ms: 0.073,
      rtt_max_ms: 0.1,
      rtt_mdev_ms: 0.027,
    },
    'macOS and FreeBSD: stddev',
  );
});

t.test('echo replies from 127.0.0.1, by address and by name', async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const deps = { resolver: createResolver([dns.server]) };
  const started = Date.now();
  const r = await probeIcmp(target('127.0.0.1', { count: 2, max_loss_percent: 0 }), 5000, deps, never);
  t.match(r, { ok: true, reason: null, error: null, statusCode: null });
  t.ok(r.responseTimeMs >= 0 && r.responseTimeMs < 1000, `the mean round trip: ${r.responseTimeMs} ms`);
  const icmp = r.detail!.icmp!;
  t.match(icmp, { packets_sent: 2, packets_received: 2, loss_percent: 0 }, 'the counts, as numbers');
  for (const k of ['rtt_min_ms', 'rtt_avg_ms', 'rtt_max_ms', 'rtt_mdev_ms'] as const)
    t.ok(typeof icmp[k] === 'number' && icmp[k] >= 0 && icmp[k] < 1000, `${k}: ${icmp[k]}`);
  t.ok(icmp.rtt_min_ms! <= icmp.rtt_avg_ms! && icmp.rtt_avg_ms! <= icmp.rtt_max_ms!, 'min <= avg <= max');
  t.equal(r.responseTimeMs, Math.round(icmp.rtt_avg_ms!), 'the response time is the mean round trip');
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

t.test('conditions alone decide: [CONNECTED], [RESPONSE_TIME], [IP], [PACKET_LOSS]', async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const deps = { resolver: createResolver([dns.server]) };
  const cfg = (...conditions: string[]) => ({ timeout_seconds: 5, expected_status_code: 200, conditions });
  const run = (host: string, c: ReturnType<typeof cfg>, d: typeof deps = deps) =>
    probeIcmp(target(host, { count: 2, max_loss_percent: 0 }), 5000, d, never, c);

  const up = await run('pinged.example.test', cfg('[CONNECTED] == true', '[RESPONSE_TIME] < 300', '[IP] == 127.0.0.1'));
  t.match(up, { ok: true, reason: null, detail: { icmp: { packets_sent: 2, packets_received: 2 } } });
  const wrong = await run('127.0.0.1', cfg('[PACKET_LOSS] > 0', '[IP] == pat(10.*)', '[CONNECTED] == true'));
  t.match(wrong, {
    ok: false,
    reason: 'condition',
    error: 'condition: [PACKET_LOSS] (0) > 0; [IP] (127.0.0.1) == pat(10.*)',
    detail: { icmp: { packets_received: 2 } },
  });

  dns.missing.add('gone.example.test');
  t.match(await run('gone.example.test', cfg('[CONNECTED] == true')), { ok: false, reason: 'dns' });
  t.match(
    await run('gone.example.test', cfg('[CONNECTED] == false')),
    { ok: true },
    '[CONNECTED] == false: a host that must not answer',
  );
  const denied = { resolver: createResolver([dns.server], { policy: outboundPolicy('127.0.0.0/8', undefined) }) };
  t.match(await run('127.0.0.1', cfg('[CONNECTED] == false'), denied), { ok: false, reason: 'denied' }, 'never passes');
  t.match(await run('127.0.0.1', cfg('[STATUS] == 200')), {
    ok: false,
    reason: 'error',
    error: /^error: conditions: \[STATUS\] is not available on this check type/,
  });
});
