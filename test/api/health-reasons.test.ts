// The daemon with DNS unreachable (a resolver that drops every query, one that answers SERVFAIL, a port
// where nothing listens) and with a DNS that answers but fails one SPF include: after the intelligence
// refresh the security results are unknown with their cause, never failed; the grade leaves them out
// and says so in `health_reasons` (GET /api/v1/domains/:id, `dommon domains show`), whose points add
// up to the score.
import t, { type Test } from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { closedUdpPort, startDnsServer, type Zone } from '../support/dns-server.js';
import { rdapDomain, startRdapServer } from '../support/rdap-server.js';

t.setTimeout(120_000);

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

const zone: Zone = {
  'mail.com': { TXT: ['v=spf1 include:_spf.sender.test -all'] },
  '_dmarc.mail.com': { TXT: ['v=DMARC1; p=none'] },
  '_spf.sender.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 -all'] },
};

async function daemon(t: Test, dnsServers: string) {
  const rdap = await startRdapServer({
    'mail.com': rdapDomain('mail.com', {
      registrar: 'Good Registrar',
      expiry: inDays(400),
      status: ['client transfer prohibited'],
    }),
  });
  const s = await startApp({ DOMMON_DNS_SERVERS: dnsServers, DOMMON_RDAP_URL: rdap.url });
  t.teardown(async () => {
    await s.close();
    await rdap.close();
  });
  const token = await s.token();
  const api = client(s.url, token);
  const id = (await api.post('/api/v1/domains', { domain: 'mail.com' })).body.id as string;
  t.equal((await api.post(`/api/v1/domains/${id}/registration`)).status, 200);
  const sec = (await api.post(`/api/v1/domains/${id}/security`)).body;
  const show = (...more: string[]) =>
    cli(['--remote', s.url, '--token', token, 'domains', 'show', 'mail.com', ...more]);
  return { api, id, sec, show };
}

const byInput = (reasons: { input: string }[]) => Object.fromEntries(reasons.map((r) => [r.input, r])) as any;

for (const mode of ['drops every query', 'answers SERVFAIL', 'nothing listens'] as const) {
  t.test(`DNS ${mode}: the security results are unknown with the cause; the grade leaves them out`, async (t) => {
    let servers: string;
    let cause: RegExp;
    if (mode === 'nothing listens') {
      servers = `127.0.0.1:${await closedUdpPort()}`;
      cause = /ECONNREFUSED|ETIMEOUT|REFUSED/;
    } else {
      const dns = await startDnsServer(zone);
      t.teardown(() => dns.close());
      for (const name of ['mail.com', 'sender.test'])
        (mode === 'drops every query' ? dns.silent : dns.failing).add(name);
      servers = dns.address;
      cause = mode === 'drops every query' ? /ETIMEOUT|timeout/i : /SERVFAIL/;
    }
    const { api, id, sec, show } = await daemon(t, servers);
    t.same(sec.checks, { spf: 'unknown', dmarc: 'unknown', dkim: 'unknown', caa: 'unknown' });
    t.equal(sec.security_score, null);
    t.match(sec.details.lookup_errors, { spf: cause, dmarc: cause, dkim: cause, caa: cause, dnssec: cause });

    const d = await api.get(`/api/v1/domains/${id}`);
    t.equal(d.status, 200);
    t.same([d.body.health_score, d.body.health_grade], [100, 'A'], 'the registration alone (400 days out)');
    const why = byInput(d.body.health_reasons);
    t.match(why.registration, { status: 'ok', counted: true, points_lost: 0 });
    t.match(why.registration.reason, /^registration expires in \d+ day\(s\)/);
    for (const k of ['spf', 'dmarc', 'dkim', 'caa', 'dnssec'])
      t.match(why[k], { status: 'unknown', counted: false, points_lost: 0, reason: cause }, k);
    t.match(why.dmarc.reason, /^DMARC unknown \(lookup failed: .*\); left out of the score$/);
    t.match(why.transfer_lock, { counted: false, reason: /^transfer lock on; left out with the DNS checks/ });

    await ensureBuilt();
    const out = await show();
    t.equal(out.code, 0, out.stderr);
    t.notMatch(out.stdout, /health_score\s+0\b|health_grade\s+F\b/);
    t.match(out.stdout, /health_score\s+100\n/);
    t.match(out.stdout, /\n\s+dmarc\s+unknown\s+DMARC unknown \(lookup failed: .*\); left out of the score\n/);
  });
}

t.test('a known bad DMARC and an unknown SPF: the reasons say exactly that and add up to the score', async (t) => {
  const dns = await startDnsServer(zone);
  t.teardown(() => dns.close());
  dns.failing.add('sender.test');
  const { api, id, sec, show } = await daemon(t, dns.address);
  t.match(sec.checks, { spf: 'unknown', dmarc: 'fail' });
  t.match(sec.details.lookup_errors, { spf: /^include:_spf\.sender\.test: DNS E?SERVFAIL$/ });
  // Security: DMARC (20) failed, DKIM (15), CAA (10), DNSSEC (20) absent, the lock (15) on; SPF left out: 15/80.
  t.equal(sec.security_score, 19);

  const d = await api.get(`/api/v1/domains/${id}`);
  // Registration 100 (30), security 19 (25); no certificate or liveness yet: (3000 + 475) / 55 = 63.
  t.same([d.body.health_score, d.body.health_grade], [63, 'B']);
  t.same(
    d.body.health_reasons.map((r: any) => [r.input, r.status, r.counted, r.points_lost]),
    [
      ['registration', 'ok', true, 0],
      ['certificates', 'unknown', false, 0],
      ['liveness', 'unknown', false, 0],
      ['spf', 'unknown', false, 0],
      // 25 * 81 / 55 = 36.8 points, shared by weight: 20, 15, 10, 20 of 65.
      ['dmarc', 'bad', true, 11],
      ['dkim', 'bad', true, 9],
      ['caa', 'bad', true, 6],
      ['dnssec', 'bad', true, 11],
      ['transfer_lock', 'ok', true, 0],
    ],
  );
  t.equal(100 - d.body.health_reasons.reduce((a: number, r: any) => a + r.points_lost, 0), d.body.health_score);
  const why = byInput(d.body.health_reasons);
  t.equal(
    why.spf.reason,
    'SPF unknown (lookup failed: include:_spf.sender.test: DNS ESERVFAIL); left out of the score',
  );
  t.equal(
    why.dmarc.reason,
    'DMARC fail: DMARC policy is "none" (monitoring only; spoofed mail is still delivered); fix: raise p to quarantine or reject once the reports show legitimate mail passes',
  );
  // The list answer carries the same stored score and grade.
  const list = await api.get('/api/v1/domains');
  t.match(list.body.data[0], { health_score: 63, health_grade: 'B' });

  await ensureBuilt();
  const out = await show();
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /health_grade\s+B\n/);
  t.match(out.stdout, /\n\s+dmarc\s+bad\s+-11\s+DMARC fail: DMARC policy is "none"/);
  t.match(out.stdout, /\n\s+spf\s+unknown\s+SPF unknown \(lookup failed: include:_spf\.sender\.test: DNS ESERVFAIL\)/);
  const json = await show('--json');
  t.same(json.json.health_reasons, d.body.health_reasons, '--json has the reasons');
});
