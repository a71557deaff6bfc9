// DOMMON_OUTBOUND_DENY / ALLOW: the policy itself, then every kind of outbound request against real
// loopback peers (a denied address is never dialled: the peer counts no connection), then the daemon's
// notifications end to end, with the URL spellings that all mean 127.0.0.1.
import t from 'tap';
import net from 'node:net';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createResolver } from '../../src/net/resolve.js';
import { probeHttp } from '../../src/probes/http.js';
import { probeTcp } from '../../src/probes/tcp.js';
import { inspectTls } from '../../src/probes/tls.js';
import { livenessProbe } from '../../src/probes/index.js';
import { createExposureNet, guardedAxfr } from '../../src/probes/exposure-net.js';
import { startHttpTarget, startLoopbackDns, startTcpTarget } from '../support/targets.js';
import { startDnsServer } from '../support/dns-server.js';
import { issue, makeCa } from '../support/certs.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { monitored, openTestStore } from '../support/probing.js';
import { startNotifyApp, until } from '../notifications/harness.js';

const never = new AbortController().signal;

t.test('the policy: words, CIDRs, allow over deny, every spelling of an address', async (t) => {
  const def = outboundPolicy(undefined, undefined);
  t.equal(def.denied('169.254.169.254'), 'metadata: 169.254.0.0/16', 'default is metadata');
  t.equal(def.denied('fd00:ec2::254'), 'metadata: fd00:ec2::/64');
  t.equal(def.denied('fe80::1'), 'metadata: fe80::/10');
  // Every documented metadata address, IPv4 and IPv6, is in the default class.
  t.equal(def.denied('100.100.100.200'), 'metadata: 100.100.100.200/32', 'Alibaba Cloud');
  t.equal(def.denied('::ffff:100.100.100.200'), 'metadata: 100.100.100.200/32', 'Alibaba Cloud, IPv4-mapped');
  t.equal(def.denied('fd20:ce::254'), 'metadata: fd20:ce::254/128', 'Google Cloud over IPv6');
  t.equal(def.denied('fd00:ec2:0:0:0:0:0:254'), 'metadata: fd00:ec2::/64', 'AWS over IPv6, spelt out');
  for (const ok of ['100.100.100.199', '100.100.100.201', 'fd20:ce::253'])
    t.equal(def.denied(ok), null, `${ok} is not a metadata address`);
  t.equal(def.denied('::ffff:169.254.169.254'), 'metadata: 169.254.0.0/16', 'IPv4-mapped IPv6 is judged as IPv4');
  for (const ok of ['127.0.0.1', '10.0.0.1', '93.184.216.34', '2001:db8::1', 'fd00:ec3::1'])
    t.equal(def.denied(ok), null, `${ok} allowed by default`);
  t.same(outboundPolicy('', '').denied('169.254.169.254'), 'metadata: 169.254.0.0/16', 'empty means the default');
  t.equal(outboundPolicy('none', undefined).denied('169.254.169.254'), null, '"none" denies nothing');

  const priv = outboundPolicy('private', undefined);
  const denied = [
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '0.0.0.0',
    '::',
  ];
  for (const a of denied) t.not(priv.denied(a), null, `${a} is private`);
  for (const a of ['172.32.0.1', '100.128.0.1', '192.169.0.1', '11.0.0.1', '2001:db8::1', '8.8.8.8'])
    t.equal(priv.denied(a), null, `${a} is not private`);
  t.equal(priv.denied('127.0.0.1'), 'private: 127.0.0.0/8', 'names the rule that matched');

  const mixed = outboundPolicy('private, 203.0.113.0/24, 2001:db8::/32', '127.0.0.1/32, 203.0.113.7');
  t.equal(mixed.denied('127.0.0.1'), null, 'allow wins over deny');
  t.equal(mixed.denied('::ffff:127.0.0.1'), null, 'also in its IPv4-mapped spelling');
  t.equal(mixed.denied('127.0.0.2'), 'private: 127.0.0.0/8');
  t.equal(mixed.denied('203.0.113.7'), null, 'a bare address allows one host');
  t.equal(mixed.denied('203.0.113.8'), '203.0.113.0/24');
  t.equal(mixed.denied('2001:db8::5'), '2001:db8::/32');
  t.equal(mixed.denied('not-an-ip'), 'not an IP address', 'anything unreadable is refused');
});

t.test('configuration: DOMMON_OUTBOUND_DENY/ALLOW are validated at start', async (t) => {
  const load = (env: Record<string, string>) => loadConfig({ dataDir: '/tmp/x' }, env);
  t.equal(load({}).outbound.denied('169.254.169.254'), 'metadata: 169.254.0.0/16');
  t.equal(
    load({ DOMMON_OUTBOUND_DENY: 'PRIVATE' }).outbound.denied('10.0.0.1'),
    'private: 10.0.0.0/8',
    'words are case-insensitive',
  );
  t.throws(
    () => load({ DOMMON_OUTBOUND_DENY: 'privat' }),
    new ConfigError(
      'DOMMON_OUTBOUND_DENY: "privat" is not a CIDR (such as 10.0.0.0/8 or fd00::/8), an address, or one of the words private, metadata, none',
    ),
  );
  t.throws(() => load({ DOMMON_OUTBOUND_DENY: '10.0.0.0/33' }), /"10\.0\.0\.0\/33" is not a CIDR/);
  t.throws(
    () => load({ DOMMON_OUTBOUND_ALLOW: 'metadata' }),
    /DOMMON_OUTBOUND_ALLOW: "metadata" is not a CIDR/,
    'words are for deny only',
  );
});

t.test('probes: a denied address is never dialled; allowed, the same probe succeeds', async (t) => {
  const dns = await startLoopbackDns();
  const web = await startHttpTarget();
  const tcp = await startTcpTarget();
  const ca = makeCa();
  const cert = issue({ ca, cn: 'web.example.test', toDays: 30 });
  const secure = await startHttpTarget({ tls: { cert: cert.cert, key: cert.key } });
  t.teardown(async () => {
    await web.close();
    await tcp.close();
    await secure.close();
    await dns.close();
  });
  const deny = outboundPolicy('127.0.0.0/8', undefined);
  const guarded = { resolver: createResolver([dns.server], { policy: deny }), ca: ca.cert };

  const byName = await probeHttp(
    { url: `http://web.example.test:${web.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    guarded,
    never,
  );
  t.same([byName.ok, byName.reason], [false, 'denied']);
  t.equal(byName.error, 'denied: address 127.0.0.1 is denied by DOMMON_OUTBOUND_DENY (127.0.0.0/8)');
  for (const url of [
    `http://127.0.0.1:${web.port}/`,
    `http://[::ffff:127.0.0.1]:${web.port}/`,
    `http://2130706433:${web.port}/`,
    `http://0x7f.1:${web.port}/`,
    `http://127.1:${web.port}/`,
  ]) {
    const r = await probeHttp({ url, timeoutMs: 2000, expectedStatus: 200 }, guarded, never);
    t.equal(r.reason, 'denied', `${url} is denied`);
  }
  const port = await probeTcp({ host: '127.0.0.1', port: tcp.port, timeoutMs: 2000 }, guarded, never);
  t.same([port.ok, port.reason], [false, 'denied']);
  const cert1 = await inspectTls({ host: 'web.example.test', port: secure.port, timeoutMs: 2000 }, guarded, never);
  t.same([cert1.ok, !cert1.ok && cert1.reason], [false, 'denied']);
  t.match(cert1, { error: /address 127\.0\.0\.1 is denied by DOMMON_OUTBOUND_DENY/ });
  t.equal(web.connections, 0, 'the HTTP target saw no connection');
  t.equal(tcp.accepted, 0, 'the TCP target saw no connection');
  t.equal(secure.connections, 0, 'the TLS target saw no handshake');

  const allowed = {
    resolver: createResolver([dns.server], { policy: outboundPolicy('127.0.0.0/8', '127.0.0.1') }),
    ca: ca.cert,
  };
  t.equal(
    (
      await probeHttp(
        { url: `http://web.example.test:${web.port}/`, timeoutMs: 2000, expectedStatus: 200 },
        allowed,
        never,
      )
    ).ok,
    true,
    'ALLOW lets it through',
  );
  t.equal((await probeTcp({ host: '127.0.0.1', port: tcp.port, timeoutMs: 2000 }, allowed, never)).ok, true);
  t.equal(
    (await inspectTls({ host: 'web.example.test', port: secure.port, timeoutMs: 2000 }, allowed, never)).ok,
    true,
  );
});

t.test('a name whose answer holds one denied address is refused whole', async (t) => {
  const dns = await startDnsServer({
    'mixed.example.test': { A: ['127.0.0.1', '127.0.0.2'] },
    'clean.example.test': { A: ['127.0.0.1'] },
  });
  const web = await startHttpTarget();
  t.teardown(async () => {
    await web.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.address], { policy: outboundPolicy('127.0.0.2/32', undefined) }) };
  const mixed = await probeHttp(
    { url: `http://mixed.example.test:${web.port}/`, timeoutMs: 2000, expectedStatus: 200 },
    deps,
    never,
  );
  t.equal(mixed.error, 'denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)');
  t.equal(web.connections, 0);
  t.equal(
    (
      await probeHttp(
        { url: `http://clean.example.test:${web.port}/`, timeoutMs: 2000, expectedStatus: 200 },
        deps,
        never,
      )
    ).ok,
    true,
  );
});

t.test('the daemon wires the policy into liveness probes', async (t) => {
  const dns = await startLoopbackDns();
  const web = await startHttpTarget();
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server, DOMMON_OUTBOUND_DENY: 'private' });
  t.teardown(async () => {
    await web.close();
    await dns.close();
    await s.close();
  });
  const [cfg] = await monitored(s, 1, web.port, { interval_seconds: 60 });
  const target = (await s.services.monitor.targets()).find((x) => x.config.id === cfg!.id)!;
  const out = await livenessProbe(s.probes)(target.endpoint, target.config, never);
  t.equal(out.error, 'denied: address 127.0.0.1 is denied by DOMMON_OUTBOUND_DENY (private: 127.0.0.0/8)');
  t.equal(web.connections, 0);
});

t.test('exposure scans: TCP, HTTP, TLS and AXFR skip a denied address', async (t) => {
  let connections = 0;
  const server = net.createServer((c) => {
    connections++;
    c.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as net.AddressInfo).port;
  const scanner = createExposureNet({ portFor: () => port, policy: outboundPolicy('127.0.0.0/8', undefined) });
  t.equal(await scanner.tcp('127.0.0.1', 22, 1000), 'error');
  t.same(await scanner.http('127.0.0.1', 'www.example.test', false, 1000), {
    ok: false,
    error: 'address 127.0.0.1 is denied by DOMMON_OUTBOUND_DENY (127.0.0.0/8)',
  });
  t.match(await scanner.tls('127.0.0.1', 'www.example.test', { min: 'TLSv1.2', max: 'TLSv1.3' }, 1000), {
    ok: false,
    error: /denied/,
  });
  let asked = 0;
  const axfr = guardedAxfr(
    async () => {
      asked++;
      return { ok: false, error: 'refused' };
    },
    outboundPolicy('127.0.0.0/8', undefined),
  );
  t.match(await axfr('127.0.0.1', 53, 'example.test', 1000), { ok: false, error: /denied/ });
  t.equal(asked, 0, 'the transfer was not attempted');
  t.equal(connections, 0, 'the scanner dialled nothing');
  const open = createExposureNet({ portFor: () => port, policy: outboundPolicy('127.0.0.2/32', undefined) });
  t.equal(await open.tcp('127.0.0.1', 22, 1000), 'open', 'an address outside the deny list is scanned');
  t.equal(connections, 1);
});

t.test('notifications: every spelling of a denied address is blocked before connecting; ALLOW delivers', async (t) => {
  const rx = await startWebhookReceiver();
  const s = await startNotifyApp({ env: { DOMMON_OUTBOUND_DENY: 'private' } });
  t.teardown(async () => {
    await s.close();
    await rx.close();
  });
  const m = await s.team('ssrf');
  const port = new URL(rx.url).port;
  const spellings = [
    '127.0.0.1',
    '2130706433',
    '0x7f.1',
    '017700000001',
    '127.1',
    '0.0.0.0',
    '[::ffff:127.0.0.1]',
    '[::1]',
  ];
  for (const host of spellings) {
    const sent = await m.api.post('/api/v1/notifications/test', {
      channel: 'webhook',
      recipient: `http://${host}:${port}/hook`,
    });
    t.equal(sent.status, 201, `${host}: queued`);
    const log = await until(
      async () => {
        const r = await m.api.get(`/api/v1/notifications/log/${sent.body.id}`);
        return r.body.status === 'failed' ? r.body : null;
      },
      8000,
      `${host} settled`,
    );
    t.match(
      JSON.stringify(log),
      /blocked: address (127\.0\.0\.1|::1|0\.0\.0\.0|::ffff:7f00:1) is denied by DOMMON_OUTBOUND_DENY \(private: /,
      `${host}: blocked with our reason`,
    );
  }
  t.equal(rx.requests.length, 0, 'the receiver got nothing');

  const open = await startNotifyApp({
    env: { DOMMON_OUTBOUND_DENY: 'private', DOMMON_OUTBOUND_ALLOW: '127.0.0.1/32' },
  });
  t.teardown(() => open.close());
  const o = await open.team('allowed');
  await o.api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: rx.url });
  await rx.waitFor(1);
  t.equal(rx.requests.length, 1, 'an allowed receiver is reached');
});
