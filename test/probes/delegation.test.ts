// A zone's delegation read from its parent zone's server: a real recursive resolver on 127.0.0.1 names
// the parent's server (127.0.0.2, on the same port: DOMMON_NAMESERVER_PORT's mapping), which answers a
// referral and the DS records; asked without recursion, over TCP after a truncated answer; NXDOMAIN is
// an empty delegation, a silent parent a failure; a parent that is no zone is skipped for the next.
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { lookUpDelegation } from '../../src/probes/delegation.js';
import { startDnsServer } from '../support/dns-server.js';
import { startParentDns } from '../support/parent-dns.js';

t.setTimeout(60_000);
const DIGEST = 'ab'.repeat(32);

t.test('NS of the referral and DS at the parent, asked without recursion', async (t) => {
  const resolver = await startDnsServer({
    test: { NS: ['ns1.nic.test', 'ns2.nic.test'] },
    'ns1.nic.test': { A: ['127.0.0.2'] },
    'ns2.nic.test': { A: ['127.0.0.2'] },
    // What the child's own servers say is never asked (a hijacked zone would say anything).
    'example.test': { NS: ['ns.child-says.test'] },
  });
  const parent = await startParentDns({
    host: '127.0.0.2',
    port: resolver.port,
    zone: 'test',
    delegations: { 'example.test': { NS: ['NS2.Example.net.', 'ns1.example.net'] } },
  });
  t.teardown(async () => {
    await parent.close();
    await resolver.close();
  });
  const deps = {
    resolver: createResolver([resolver.address]),
    dnsServers: [resolver.address],
    nameserverPort: () => resolver.port,
  };
  const opts = { timeoutMs: 2000, signal: new AbortController().signal };

  t.same(await lookUpDelegation('example.test', deps, opts), {
    zone: 'example.test',
    parent: 'test',
    server: `127.0.0.2:${resolver.port}`,
    nameservers: ['ns1.example.net', 'ns2.example.net'],
    ds: [],
  });
  t.same(
    parent.queries.map((q) => [q.name, q.type, q.rd]),
    [
      ['example.test', 'NS', false],
      ['example.test', 'DS', false],
    ],
    'the parent is asked without recursion',
  );
  t.notOk(
    resolver.queries.some((q) => q.name === 'example.test'),
    "the child's own answer is not asked for",
  );

  parent.delegations['example.test']!.DS = [
    { keyTag: 2371, algorithm: 13, digestType: 2, digest: DIGEST },
    { keyTag: 11, algorithm: 8, digestType: 2, digest: 'cd'.repeat(32) },
  ];
  parent.delegations['example.test']!.NS = ['ns1.example.net'];
  t.match(await lookUpDelegation('example.test', deps, opts), {
    nameservers: ['ns1.example.net'],
    ds: [`11 8 2 ${'CD'.repeat(32)}`, `2371 13 2 ${DIGEST.toUpperCase()}`],
  });

  // A referral too big for UDP (TC): asked again over TCP.
  parent.truncated.add('example.test');
  parent.queries.length = 0;
  t.match(await lookUpDelegation('example.test', deps, opts), { nameservers: ['ns1.example.net'] });
  t.same(
    parent.queries.map((q) => [q.type, q.tcp]),
    [
      ['NS', false],
      ['NS', true],
      ['DS', false],
      ['DS', true],
    ],
  );
  parent.truncated.clear();

  // No delegation at the parent (NXDOMAIN): an empty set, not a failure.
  delete parent.delegations['example.test'];
  t.same(await lookUpDelegation('example.test', deps, opts), {
    zone: 'example.test',
    parent: 'test',
    server: `127.0.0.2:${resolver.port}`,
    nameservers: [],
    ds: [],
  });

  // A name that is no zone (no NS at sub.example.test): the parent is the next zone up.
  parent.delegations['shop.sub.test'] = { NS: ['ns.shop.example'] };
  t.match(await lookUpDelegation('shop.sub.test', deps, opts), { parent: 'test', nameservers: ['ns.shop.example'] });

  // A parent that does not answer: a failure (a look-up failure is not an empty delegation).
  parent.silent = true;
  const started = Date.now();
  await t.rejects(lookUpDelegation('shop.sub.test', { ...deps }, { ...opts, timeoutMs: 500 }), { code: 'ETIMEOUT' });
  t.ok(Date.now() - started < 5000, 'each server tried once, within the bound');
});

t.test('a parent server address the outbound policy denies is never asked', async (t) => {
  const resolver = await startDnsServer({ test: { NS: ['ns1.nic.test'] }, 'ns1.nic.test': { A: ['127.0.0.2'] } });
  const parent = await startParentDns({
    host: '127.0.0.2',
    port: resolver.port,
    zone: 'test',
    delegations: { 'example.test': { NS: ['ns1.example.net'] } },
  });
  t.teardown(async () => {
    await parent.close();
    await resolver.close();
  });
  const { outboundPolicy } = await import('../../src/domain/outbound.js');
  const deps = {
    resolver: createResolver([resolver.address], { policy: outboundPolicy('127.0.0.2/32', undefined) }),
    dnsServers: [resolver.address],
    nameserverPort: () => resolver.port,
  };
  await t.rejects(lookUpDelegation('example.test', deps, { timeoutMs: 1000, signal: new AbortController().signal }), {
    code: 'ERR_OUTBOUND_DENIED',
  });
  t.equal(parent.queries.length, 0);
});
