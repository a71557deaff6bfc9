// The failure classification the dns, icmp and port probes share (failedWith in src/probes/types.ts),
// fed real errors: a refused TCP connection, a DNS server that does not answer one question, the
// probe's own deadline, the caller's cancellation, and a denied address; then the same reasons as the
// dns and port probes report them for real peers.
import net from 'node:net';
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { queryServer } from '../../src/probes/dns.js';
import { probeDns } from '../../src/probes/dns-check.js';
import { probeTcp } from '../../src/probes/tcp.js';
import { deadline, failedWith } from '../../src/probes/types.js';
import { closedUdpPort, startDnsServer } from '../support/dns-server.js';
import { closedPort } from '../support/targets.js';

const never = new AbortController().signal;
const words = { timeoutMs: 2000, noAnswer: 'no DNS answer', elapsedMs: 7 };

/** The error a real connection to a closed loopback port ends with. */
async function refusal(): Promise<unknown> {
  const port = await closedPort();
  return new Promise((resolve) => net.connect({ host: '127.0.0.1', port }).once('error', resolve));
}

t.test('real errors, classified', async (t) => {
  t.same(
    failedWith(await refusal(), never, () => false, words),
    {
      ok: false,
      responseTimeMs: 7,
      statusCode: null,
      error: 'refused: connection refused',
      reason: 'refused',
    },
  );

  const silent = await startDnsServer({});
  t.teardown(() => silent.close());
  silent.silent.add('example.test');
  const timeout = await queryServer(silent.address, 'example.test', 'A', { timeoutMs: 200 }).catch((e: unknown) => e);
  t.match(
    failedWith(timeout, never, () => false, words),
    {
      reason: 'timeout',
      error: `timeout: no DNS answer asking ${silent.address}`,
    },
  );

  // The probe's own deadline: a timeout in the probe's words, whatever the error that followed.
  const own = deadline(never, 1);
  await new Promise((r) => setTimeout(r, 20));
  t.match(failedWith(own.signal.reason, never, own.timedOut, { ...words, noAnswer: 'no echo reply' }), {
    reason: 'timeout',
    error: 'timeout: no echo reply within 2 s',
  });
  own.done();

  // The caller's cancellation (a stopping daemon) is no timeout, even of a question that timed out.
  const stop = new AbortController();
  stop.abort();
  t.match(
    failedWith(timeout, stop.signal, () => false, words),
    { reason: 'cancelled' },
  );

  const denied = await createResolver([], { policy: outboundPolicy('127.0.0.0/8', undefined) })
    .resolve('127.0.0.1')
    .catch((e: unknown) => e);
  t.match(
    failedWith(denied, never, () => false, words),
    { reason: 'denied' },
  );
});

t.test('the dns and port probes report a refusal alike', async (t) => {
  const udp = await closedUdpPort();
  const tcp = await closedPort();
  const deps = { resolver: createResolver([]) };
  const dns = await probeDns(
    {
      endpoint_type: 'dns',
      domain: 'example.test',
      subdomain: null,
      port: null,
      path: null,
      settings: { record_type: 'A', resolver: `127.0.0.1:${udp}` },
    },
    2000,
    deps,
    never,
  );
  const port = await probeTcp({ host: '127.0.0.1', port: tcp, timeoutMs: 2000 }, deps, never);
  t.match(dns, { ok: false, reason: 'refused', error: 'refused: connection refused' });
  t.match(port, { ok: false, reason: 'refused', error: 'refused: connection refused' });
});
