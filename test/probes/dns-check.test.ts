// The dns probe against a real DNS server on 127.0.0.1 whose records change between questions: asked
// of a chosen resolver (up, no record of the type, NXDOMAIN, SERVFAIL, no answer, a denied address),
// and of the zone's own name servers (found by NS, asked without recursion; DS of the parent's; a
// delegated sub-zone followed through the referral; a truncated answer asked again over TCP).
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { dnsType, probeDns } from '../../src/probes/dns-check.js';
import '../../src/probes/registry.js';
import { startDnsServer } from '../support/dns-server.js';
import { startParentDns } from '../support/parent-dns.js';

t.setTimeout(60_000);
const never = new AbortController().signal;
const target = (domain: string, subdomain: string | null, settings: Record<string, string | null>) => ({
  endpoint_type: 'dns' as const,
  domain,
  subdomain,
  port: null,
  path: null,
  settings,
});

t.test('asked of a chosen resolver, records changing between questions', async (t) => {
  const server = await startDnsServer({
    'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }], A: ['192.0.2.1'] },
    'www.example.test': { A: ['192.0.2.2'] },
  });
  t.teardown(() => server.close());
  const deps = { resolver: createResolver([]) };
  const mx = target('example.test', null, { record_type: 'MX', resolver: server.address });
  t.match(await probeDns(mx, 3000, deps, never), { ok: true, reason: null, error: null });
  t.same(server.queries.at(-1), { name: 'example.test', type: 'MX' }, 'the question asked');

  server.zone['example.test']!.MX = [];
  t.match(await probeDns(mx, 3000, deps, never), {
    ok: false,
    reason: 'dns',
    error: `dns: no MX record for example.test (NOERROR, no answer from ${server.address})`,
  });
  server.zone['example.test']!.MX = [{ preference: 20, exchange: 'mx2.example.test' }];
  t.match(await probeDns(mx, 3000, deps, never), { ok: true }, 'back once the record is');

  t.match(
    await probeDns(target('example.test', 'www', { record_type: 'A', resolver: server.address }), 3000, deps, never),
    {
      ok: true,
    },
  );
  t.match(
    await probeDns(target('example.test', 'gone', { record_type: 'A', resolver: server.address }), 3000, deps, never),
    { ok: false, reason: 'dns', error: `dns: NXDOMAIN from ${server.address} for gone.example.test A` },
  );
  server.failing.add('www.example.test');
  t.match(
    await probeDns(target('example.test', 'www', { record_type: 'A', resolver: server.address }), 3000, deps, never),
    { ok: false, reason: 'dns', error: `dns: SERVFAIL from ${server.address} for www.example.test A` },
  );
  server.silent.add('www.example.test');
  const started = Date.now();
  const silent = await probeDns(
    target('example.test', 'www', { record_type: 'A', resolver: server.address }),
    2000,
    deps,
    never,
  );
  t.match(silent, { ok: false, reason: 'timeout' });
  t.ok(Date.now() - started < 4000, "within the check's time");

  const denied = { resolver: createResolver([], { policy: outboundPolicy('127.0.0.0/8', undefined) }) };
  t.match(await probeDns(mx, 3000, denied, never), { ok: false, reason: 'denied' }, 'the resolver address is checked');
  t.equal(server.queries.filter((q) => q.type === 'MX').length, 3, 'a denied server is never asked');
});

t.test("asked of the zone's own name servers, without recursion", async (t) => {
  const server = await startDnsServer({
    'example.test': { NS: ['ns1.example.test'], A: ['192.0.2.1'] },
    'ns1.example.test': { A: ['127.0.0.1'] },
    'www.example.test': { AAAA: ['2001:db8::1'], TXT: ['hello'] },
    test: { NS: ['ns.nic.test'] },
    'ns.nic.test': { A: ['127.0.0.1'] },
  });
  t.teardown(() => server.close());
  const deps = {
    resolver: createResolver([server.address]),
    dnsServers: [server.address],
    nameserverPort: (address: string) => (address === '127.0.0.1' ? server.port : 53),
  };
  t.match(await probeDns(target('example.test', 'www', { record_type: 'AAAA', resolver: null }), 3000, deps, never), {
    ok: true,
  });
  t.same(server.queries.slice(-1), [{ name: 'www.example.test', type: 'AAAA' }]);
  t.ok(
    server.queries.some((q) => q.name === 'example.test' && q.type === 'NS'),
    "the zone's NS was looked up",
  );
  t.match(await probeDns(target('example.test', 'www', { record_type: 'CAA', resolver: null }), 3000, deps, never), {
    ok: false,
    error: `dns: no CAA record for www.example.test (NOERROR, no answer from 127.0.0.1:${server.port})`,
  });

  // DS lives in the parent zone: asked of its servers.
  server.zone['example.test']!.DS = [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: 'ab'.repeat(32) }];
  t.match(await probeDns(target('example.test', null, { record_type: 'DS', resolver: null }), 3000, deps, never), {
    ok: true,
  });
  t.ok(
    server.queries.some((q) => q.name === 'test' && q.type === 'NS'),
    "the parent's NS was looked up",
  );

  server.zone['example.test']!.NS = [];
  t.match(await probeDns(target('example.test', 'www', { record_type: 'TXT', resolver: null }), 3000, deps, never), {
    ok: false,
    reason: 'dns',
    error: 'dns: no NS records for example.test: no name server to ask',
  });
});

t.test('judged by conditions on [DNS_RCODE] and [BODY] when the configuration has some', async (t) => {
  const server = await startDnsServer({
    'example.test': { A: ['192.0.2.1'] },
    'www.example.test': { A: ['192.0.2.7', '192.0.2.8'] },
    'alias.example.test': { CNAME: 'www.example.test' },
    'mail.example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
  });
  t.teardown(() => server.close());
  const deps = { resolver: createResolver([]) };
  const settings = (conditions: string[]) => ({ timeout_seconds: 3, expected_status_code: 200, conditions });
  const at = (subdomain: string | null, record_type = 'A') =>
    target('example.test', subdomain, { record_type, resolver: server.address });
  const check = (subdomain: string | null, conditions: string[], record_type = 'A') =>
    dnsType.liveness(at(subdomain, record_type), settings(conditions), deps, never);

  t.match(await check(null, ['[BODY] == 192.0.2.1', '[DNS_RCODE] == NOERROR']), { ok: true, reason: null });
  server.zone['example.test']!.A = ['192.0.2.9'];
  t.match(await check(null, ['[BODY] == 192.0.2.1']), {
    ok: false,
    reason: 'condition',
    error: 'condition: [BODY] (192.0.2.9) == 192.0.2.1',
  });

  // A missing name: NXDOMAIN is what the conditions ask for, so the check passes.
  t.match(await check('gone', ['[DNS_RCODE] == NXDOMAIN']), { ok: true });
  t.match(await check('gone', ['[DNS_RCODE] == NOERROR']), {
    ok: false,
    error: 'condition: [DNS_RCODE] (NXDOMAIN) == NOERROR',
  });
  // The conditions alone decide: NOERROR without a record passes when that is all they ask.
  t.match(await check(null, ['[DNS_RCODE] == NOERROR'], 'AAAA'), { ok: true });
  t.match(await check(null, ['[BODY] == 192.0.2.9'], 'AAAA'), {
    ok: false,
    error: 'condition: [BODY] () == 192.0.2.9',
  });

  // Several answers: [BODY] is the last one's data, as Gatus reads it (after a CNAME, its target's record).
  t.match(await check('www', ['[BODY] == 192.0.2.8']), { ok: true });
  t.match(await check('alias', ['[BODY] == 192.0.2.8']), { ok: true });
  t.match(await check('mail', ['[BODY] == mx.example.test'], 'MX'), { ok: true });
  t.match(await check('www', ['[BODY] == pat(192.0.2.*)', '[RESPONSE_TIME] < 3s']), { ok: true });

  // A server that does not answer fails whatever the conditions.
  server.silent.add('www.example.test');
  t.match(
    await dnsType.liveness(at('www'), { ...settings(['[DNS_RCODE] == NOERROR']), timeout_seconds: 2 }, deps, never),
    { ok: false, reason: 'timeout' },
  );
  // Without conditions the verdict is today's: NOERROR with a record of the type.
  t.match(await dnsType.liveness(at(null), settings([]), deps, never), { ok: true });
  t.match(await dnsType.liveness(at('gone'), settings([]), deps, never), { ok: false, reason: 'dns' });
});

t.test("a name in a delegated sub-zone: the zone's servers refer, the sub-zone's answer", async (t) => {
  // The resolver names the zone's server (127.0.0.2) and the sub-zone's (127.0.0.3); both answer on
  // its port, as DOMMON_NAMESERVER_PORT maps it.
  const resolver = await startDnsServer({
    'example.test': { NS: ['ns1.example.test'] },
    'ns1.example.test': { A: ['127.0.0.2'] },
    'ns.sub.example.test': { A: ['127.0.0.3'] },
  });
  const zone = await startParentDns({
    host: '127.0.0.2',
    port: resolver.port,
    zone: 'example.test',
    delegations: { 'sub.example.test': { NS: ['ns.sub.example.test'] } },
    records: { 'www.example.test': ['192.0.2.1'] },
  });
  const sub = await startParentDns({
    host: '127.0.0.3',
    port: resolver.port,
    zone: 'sub.example.test',
    records: { 'www.sub.example.test': ['192.0.2.7'] },
  });
  t.teardown(async () => {
    await sub.close();
    await zone.close();
    await resolver.close();
  });
  const deps = {
    resolver: createResolver([resolver.address]),
    dnsServers: [resolver.address],
    nameserverPort: () => resolver.port,
  };
  const check = (subdomain: string, conditions: string[]) =>
    dnsType.liveness(
      target('example.test', subdomain, { record_type: 'A', resolver: null }),
      { timeout_seconds: 3, expected_status_code: 200, conditions },
      deps,
      never,
    );

  t.match(await check('www', ['[BODY] == 192.0.2.1']), { ok: true }, "the zone's own record");
  t.same(sub.queries, [], 'no referral: the sub-zone is not asked');

  t.match(await check('www.sub', ['[BODY] == 192.0.2.7', '[DNS_RCODE] == NOERROR']), { ok: true });
  t.same(
    zone.queries.slice(-1).map((q) => [q.name, q.type, q.rd]),
    [['www.sub.example.test', 'A', false]],
    'the zone answered with a referral',
  );
  t.same(
    sub.queries.map((q) => [q.name, q.type, q.rd]),
    [['www.sub.example.test', 'A', false]],
    "the sub-zone's server was asked, without recursion",
  );

  // Without conditions: a name the sub-zone does not have is NXDOMAIN from the sub-zone's server.
  t.match(await probeDns(target('example.test', 'gone.sub', { record_type: 'A', resolver: null }), 3000, deps, never), {
    ok: false,
    reason: 'dns',
    error: `dns: NXDOMAIN from 127.0.0.3:${resolver.port} for gone.sub.example.test A`,
  });

  // The sub-zone's answer does not fit in UDP (TC): asked again over TCP, and judged on that.
  sub.truncated.add('www.sub.example.test');
  sub.queries.length = 0;
  t.match(await check('www.sub', ['[BODY] == 192.0.2.7']), { ok: true });
  t.same(
    sub.queries.map((q) => q.tcp),
    [false, true],
    'UDP first, then TCP',
  );

  // A server that truncates and takes no TCP: the check fails, it is not judged on the empty UDP answer.
  await sub.close();
  const tcOnly = (await import('node:dgram')).createSocket('udp4');
  await new Promise<void>((r) => tcOnly.bind(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => tcOnly.close(() => r())));
  const packet = (await import('dns-packet')).default;
  tcOnly.on('message', (msg, rinfo) => {
    const q = packet.decode(msg);
    const res = packet.encode({
      type: 'response',
      id: q.id,
      flags: packet.TRUNCATED_RESPONSE,
      questions: q.questions,
    });
    tcOnly.send(res, rinfo.port, rinfo.address);
  });
  const port = (tcOnly.address() as { port: number }).port;
  t.match(
    await probeDns(
      target('example.test', 'www', { record_type: 'A', resolver: `127.0.0.1:${port}` }),
      3000,
      { resolver: createResolver([]) },
      never,
    ),
    { ok: false, reason: 'refused' },
  );
});
