// DNS security checks against a real UDP DNS server on loopback (DOMMON_DNS_SERVERS).
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startDnsServer, type Zone } from '../support/dns-server.js';
import { startRdapServer, rdapDomain } from '../support/rdap-server.js';

const KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE';
const zone: Zone = {
  // Everything right
  'good.com': {
    TXT: ['v=spf1 include:_spf.mailer.test mx -all', 'google-site-verification=abc'],
    CAA: [{ tag: 'issue', value: 'letsencrypt.org' }, { tag: 'iodef', value: 'mailto:sec@good.com' }],
    MX: [{ preference: 10, exchange: 'mx.good.com' }],
    NS: ['ns1.good.com'],
    DS: [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: 'abcdef0123' }],
    DNSKEY: [{ flags: 257, algorithm: 13, key: KEY }],
  },
  '_spf.mailer.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 include:_spf2.mailer.test ~all'] },
  '_spf2.mailer.test': { TXT: ['v=spf1 ip4:198.51.100.0/24 ~all'] },
  '_dmarc.good.com': { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@good.com'] },
  'selector1._domainkey.good.com': { CNAME: 'selector1-good-com._domainkey.provider.test' },
  'selector1-good-com._domainkey.provider.test': { TXT: [['v=DKIM1; k=rsa; ', `p=${KEY}`]] },
  // Everything wrong
  'bad.com': {
    TXT: ['v=spf1 +all', 'v=spf1 mx -all'],
    DS: [{ keyTag: 1, algorithm: 13, digestType: 2, digest: '00' }],
  },
  '_dmarc.bad.com': { TXT: ['v=DMARC1; p=none'] },
  'revoked._domainkey.bad.com': { TXT: ['v=DKIM1; p='] },
  // SPF with too many look-ups; DKIM only on a custom selector; CAA issuewild only
  'busy.com': { TXT: ['v=spf1 include:a.spf.test include:b.spf.test a mx -all'], CAA: [{ tag: 'issuewild', value: 'pki.goog' }] },
  'a.spf.test': { TXT: ['v=spf1 a mx ptr exists:x.test include:c.spf.test -all'] },
  'b.spf.test': { TXT: ['v=spf1 a mx -all'] },
  'c.spf.test': { TXT: ['v=spf1 a mx -all'] },
  '_dmarc.busy.com': { TXT: ['v=DMARC1; p=quarantine'] },
  'mykey2024._domainkey.busy.com': { TXT: [`v=DKIM1; p=${KEY}`] },
  // Plain +all-free SPF with qualifier-less "all" is +all
  'open.com': { TXT: ['v=spf1 all'] },
};

t.test('security checks pass and fail, score, recommendations, details', async (t) => {
  const dns = await startDnsServer(zone);
  const rdap = await startRdapServer({
    'good.com': rdapDomain('good.com', { registrar: 'R', expiry: '2030-01-01T00:00:00Z', nameservers: ['ns1.good.com'], status: ['client transfer prohibited'], signed: true }),
    'bad.com': rdapDomain('bad.com', { registrar: 'R', expiry: '2030-01-01T00:00:00Z', nameservers: ['ns1.bad.com'], status: ['active'] }),
  });
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.address, DOMMON_RDAP_URL: rdap.url });
  t.teardown(async () => {
    await s.close();
    await Promise.all([dns.close(), rdap.close()]);
  });
  const api = client(s.url, await s.token());
  const add = async (domain: string, extra: object = {}) => (await api.post('/api/v1/domains', { domain, ...extra })).body.id as string;

  const good = await add('good.com');
  await api.post(`/api/v1/domains/${good}/registration`);
  const g = await api.post(`/api/v1/domains/${good}/security`);
  t.equal(g.status, 200);
  t.equal(g.body.domain, 'good.com');
  t.same(g.body.checks, { spf: 'pass', dmarc: 'pass', dkim: 'pass', caa: 'pass' });
  t.equal(g.body.dnssec_enabled, true);
  t.equal(g.body.transfer_lock, true);
  t.equal(g.body.security_score, 100);
  t.same(g.body.recommendations, []);
  t.equal(g.body.details.spf.lookups, 3, 'include + mx + nested include');
  t.equal(g.body.details.dmarc.policy, 'reject');
  t.same(g.body.details.dkim.selectors_found, ['selector1'], 'DKIM key found through a CNAME');
  t.same(g.body.details.caa.issuers, ['letsencrypt.org']);
  t.equal(g.body.details.dnssec.ds_records, 1);
  t.equal(g.body.details.dnssec.registry_signed, true);
  t.ok(dns.queries.some((q) => q.type === 'DS' && q.name === 'good.com'), 'DS asked of the configured server');

  const bad = await add('bad.com');
  await api.post(`/api/v1/domains/${bad}/registration`);
  const b = (await api.post(`/api/v1/domains/${bad}/security`)).body;
  t.same(b.checks, { spf: 'fail', dmarc: 'fail', dkim: 'fail', caa: 'fail' });
  t.equal(b.dnssec_enabled, false);
  t.equal(b.transfer_lock, false);
  t.equal(b.security_score, 0);
  t.equal(b.recommendations.length, 6, 'one sentence per failed check (spf, dmarc, dkim, caa, dnssec, transfer lock)');
  t.match(b.recommendations[0], /Merge the 2 SPF records/);
  t.match(b.recommendations[1], /p=none/);
  t.match(b.recommendations[2], /DKIM/);
  t.match(b.recommendations[3], /CAA/);
  t.match(b.recommendations[4], /DS record .* no DNSKEY/);
  t.match(b.recommendations[5], /transfer lock/);
  t.same(b.details.spf.problems.length, 2);

  const busy = await add('busy.com', { dkim_selectors: ['mykey2024'] });
  const u = (await api.get(`/api/v1/domains/${busy}/security`)).body;
  t.equal(u.checks.spf, 'fail');
  t.ok(u.details.spf.lookups > 10);
  t.match(u.recommendations[0], /at most 10 DNS look-ups/);
  t.equal(u.checks.dmarc, 'pass');
  t.equal(u.checks.dkim, 'pass');
  t.same(u.details.dkim.selectors_found, ['mykey2024']);
  t.equal(u.checks.caa, 'pass');
  t.equal(u.transfer_lock_known, false, 'no registration data yet');

  const open = await add('open.com');
  const o = (await api.get(`/api/v1/domains/${open}/security`)).body;
  t.equal(o.checks.spf, 'fail');
  t.match(o.recommendations[0], /\+all/);
  t.match(o.recommendations[1], /Publish a DMARC record at _dmarc\.open\.com/);

  // A DNS failure (SERVFAIL) is a failed check with the error in the details, never a 500.
  dns.failing.add('good.com');
  const f = await api.post(`/api/v1/domains/${good}/security`);
  t.equal(f.status, 200);
  t.equal(f.body.checks.spf, 'fail');
  t.match(f.body.details.lookup_errors.spf, /SERVFAIL/);
  dns.failing.clear();

  // Fix bad.com's SPF and check again: the stored result follows the zone.
  zone['bad.com']!.TXT = ['v=spf1 mx -all'];
  const fixed = (await api.post(`/api/v1/domains/${bad}/security`)).body;
  t.equal(fixed.checks.spf, 'pass');
  t.equal((await api.get(`/api/v1/domains/${bad}/security`)).body.checks.spf, 'pass');

  // One-shot check (what `dommon check` uses): nothing stored, same rules.
  const one = await s.app.services.intel.checkName('www.good.com');
  t.equal(one.domain, 'good.com');
  t.equal(one.registration.state, 'ok');
  t.equal(one.registration.expiry_date, '2030-01-01');
  t.same(one.security.checks, { spf: 'pass', dmarc: 'pass', dkim: 'pass', caa: 'pass' });
  t.equal(one.security.security_score, 100);
  t.equal(one.health_grade, 'A');
  t.equal(one.overall_status, 'healthy');

  t.equal((await api.get('/api/v1/domains/00000000-0000-4000-8000-000000000000/security')).status, 404);
  t.equal((await api.get('/api-domains/not-a-uuid/security')).status, 404);
});
