// When a probe went out: a check reports how long after its start the first packet left for the target
// (`sentAfterMs`: the name's resolution before it), and the scheduler spaces the next run from then, so
// a slow first resolution (a cold cache, a loaded resolver) is not a short gap between two probes as the
// target sees them. Against a real loopback DNS server that answers late and real loopback targets.
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { probeHttp } from '../../src/probes/http.js';
import { probeTcp } from '../../src/probes/tcp.js';
import { pluginOf } from '../../src/probes/registry.js';
import { nextDue } from '../../src/scheduler/liveness.js';
import { startDnsServer } from '../support/dns-server.js';
import { startHttpTarget, startTcpTarget } from '../support/targets.js';

const never = new AbortController().signal;
const DELAY_MS = 300;

t.test('plain HTTP, the full request and TCP: sent after the resolution, at once from the cache', async (t) => {
  const dns = await startDnsServer({ 'slow.test': { A: ['127.0.0.1'] }, 'full.slow.test': { A: ['127.0.0.1'] } });
  const web = await startHttpTarget();
  const tcp = await startTcpTarget();
  t.teardown(async () => {
    await web.close();
    await tcp.close();
    await dns.close();
  });
  dns.delayMs = DELAY_MS;
  const deps = { resolver: createResolver([dns.address]) };

  const cold = await probeHttp(
    { url: `http://slow.test:${web.port}/`, timeoutMs: 3000, expectedStatus: 200 },
    deps,
    never,
  );
  t.equal(cold.ok, true, 'the plain check answered');
  t.ok(
    cold.sentAfterMs! >= DELAY_MS - 20,
    `sent ${cold.sentAfterMs} ms after its start (the answer waited ${DELAY_MS})`,
  );
  t.ok(cold.responseTimeMs >= cold.sentAfterMs!, 'the response time still counts from the start');
  const warm = await probeHttp(
    { url: `http://slow.test:${web.port}/`, timeoutMs: 3000, expectedStatus: 200 },
    deps,
    never,
  );
  t.ok(warm.sentAfterMs! < DELAY_MS / 3, `from the cache: sent ${warm.sentAfterMs} ms after its start`);

  // The full request (a method other than GET takes it): the first hop's connection.
  const endpoint = {
    endpoint_type: 'http' as const,
    domain: 'slow.test',
    subdomain: 'full',
    port: web.port,
    path: '/',
  };
  const full = await pluginOf('http').liveness(
    endpoint,
    { timeout_seconds: 3, expected_status_code: 200, method: 'HEAD' },
    deps,
    never,
  );
  t.equal(full.ok, true, 'the full request answered');
  t.ok(full.sentAfterMs! >= DELAY_MS - 20, `the full request sent ${full.sentAfterMs} ms after its start`);

  dns.zone['tcp.slow.test'] = { A: ['127.0.0.1'] };
  const port = await probeTcp({ host: 'tcp.slow.test', port: tcp.port, timeoutMs: 3000 }, deps, never);
  t.equal(port.ok, true, 'the port answered');
  t.ok(port.sentAfterMs! >= DELAY_MS - 20, `the TCP check connected ${port.sentAfterMs} ms after its start`);

  // No answer from the name: nothing went out, so nothing is reported.
  const unknown = await probeHttp(
    { url: `http://none.test:${web.port}/`, timeoutMs: 3000, expectedStatus: 200 },
    deps,
    never,
  );
  t.equal(unknown.ok, false);
  t.equal(unknown.sentAfterMs, undefined, 'a name that does not resolve: no probe went out');
  t.equal(web.requests, 3, 'the target saw the three HTTP probes');
});

t.test('the next run is spaced from when the probe went out, not from its start', async (t) => {
  // A new config's first run started at its due time; the resolution took 1.5 s, so the probe went out
  // then. The earliest second run (0.7 of the 5 s interval on) would be 2 s after it as the target sees
  // it; that point is skipped for the one an interval later.
  const due = 1_000_000;
  const fromStart = nextDue(due, 5000, true, () => 0.999999, due + 1540, due);
  t.equal(fromStart, due + 3500, 'spaced from the start: 3.5 s after it');
  const fromSent = nextDue(due, 5000, true, () => 0.999999, due + 1540, due + 1500);
  t.ok(fromSent - (due + 1500) >= 3500, `spaced from the probe: ${fromSent - (due + 1500)} ms after it went out`);
  t.equal(fromSent, due + 8500, 'the 3.5 s point skipped: the one an interval after it');
});
