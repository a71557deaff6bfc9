// src/probes/dns.ts against a loopback DNS server: the throwing record look-ups, the Lookup answers
// that tell NXDOMAIN from NODATA from a failure (the exposure scanner's), and AXFR over TCP.
import t from 'tap';
import { axfr, createDnsResolver, DnsError } from '../../src/probes/dns.js';
import { startExposureDns, type Rec } from '../support/exposure-dns.js';
import { closedPort } from '../support/exposure-peers.js';

const ZONE = 'probe.test';

t.test('look-ups and zone transfer', async (t) => {
  const records: Rec[] = [
    {
      name: ZONE,
      type: 'SOA',
      data: {
        mname: `ns1.${ZONE}`,
        rname: `hostmaster.${ZONE}`,
        serial: 7,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 60,
      },
    },
    { name: ZONE, type: 'NS', data: `ns1.${ZONE}` },
    { name: ZONE, type: 'TXT', data: 'v=spf1 -all' },
    { name: ZONE, type: 'MX', data: { preference: 10, exchange: `mail.${ZONE}` } },
    { name: ZONE, type: 'CAA', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
    { name: `www.${ZONE}`, type: 'A', data: '127.0.0.5' },
    { name: `www.${ZONE}`, type: 'AAAA', data: '::1' },
    { name: `blog.${ZONE}`, type: 'CNAME', data: 'gone.github.io' },
  ];
  const dns = await startExposureDns(records, { axfr: [ZONE] });
  t.teardown(() => dns.close());
  const r = createDnsResolver([dns.server], { timeoutMs: 1000, tries: 1 });

  t.same(await r.lookup.a(`www.${ZONE}`), { status: 'ok', records: ['127.0.0.5'] });
  t.same(await r.lookup.aaaa(`www.${ZONE}`), { status: 'ok', records: ['::1'] });
  t.same(await r.lookup.a(ZONE), { status: 'nodata' }, 'the name exists without an A record');
  t.same(await r.lookup.a(`nope.${ZONE}`), { status: 'nxdomain' });
  t.same(await r.lookup.cname(`blog.${ZONE}`), { status: 'ok', records: ['gone.github.io'] });
  t.same(await r.lookup.a(`blog.${ZONE}`), { status: 'nxdomain' }, 'a CNAME chain ending nowhere');
  t.same(await r.lookup.ns(ZONE), { status: 'ok', records: [`ns1.${ZONE}`] });
  t.same(await r.lookup.txt(ZONE), { status: 'ok', records: ['v=spf1 -all'] });
  t.same(await r.lookup.mx(ZONE), { status: 'ok', records: [{ exchange: `mail.${ZONE}`, priority: 10 }] });
  t.same(await r.lookup.caa(ZONE), {
    status: 'ok',
    records: [{ critical: 0, tag: 'issue', value: 'letsencrypt.org' }],
  });

  // The record methods: [] for no name or no record, the same records otherwise.
  t.same(await r.txt(`nope.${ZONE}`), []);
  t.same(await r.cname(`www.${ZONE}`), []);
  t.same(await r.mx(ZONE), [{ exchange: `mail.${ZONE}`, priority: 10 }]);
  t.same(await r.caa(ZONE), [{ critical: 0, tag: 'issue', value: 'letsencrypt.org' }]);

  dns.servfail = true;
  t.same(await r.lookup.txt(ZONE), { status: 'error', error: 'ESERVFAIL' });
  await t.rejects(r.txt(ZONE), new DnsError('DNS ESERVFAIL', 'ESERVFAIL'), 'a failure is not an empty answer');
  dns.servfail = false;

  const open = await r.axfr(dns.address, dns.port, ZONE, 2000);
  t.equal(open.ok, true);
  if (open.ok) {
    t.equal(open.records[0]!.type, 'SOA', 'starts with the SOA ...');
    t.equal(open.records.at(-1)!.type, 'SOA', '... and ends with it');
    t.same(
      open.records.filter((x) => x.type === 'A').map((x) => `${x.name} ${x.data}`),
      [`www.${ZONE} 127.0.0.5`],
    );
    t.same(open.records.find((x) => x.type === 'TXT')!.data, 'v=spf1 -all');
  }
  t.same(dns.axfrRequests, [ZONE]);
  t.same(await axfr(dns.address, dns.port, 'other.test', 2000), { ok: false, error: 'REFUSED' });
  t.same(await axfr('127.0.0.1', await closedPort(), ZONE, 2000), { ok: false, error: 'ECONNREFUSED' });
});
