// `dommon check` with DNS unreachable in each way it can be: a resolver that drops every query
// (timeouts), one that answers SERVFAIL, a port where nothing listens, and a resolver that answers
// for the domain but not for a name its SPF record includes. A look-up that could not be made is
// unknown with its cause, never a failed policy, is left out of the grade, and the grade says why.
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { closedUdpPort, startDnsServer, type Zone } from '../support/dns-server.js';
import { rdapDomain, startRdapServer } from '../support/rdap-server.js';
import { loadConfig } from '../../src/config/index.js';
import { createCheckEngine } from '../../src/app.js';
import { parseTarget } from '../../src/cli/check/targets.js';
import { runChecks } from '../../src/cli/check/index.js';

t.setTimeout(120_000);

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

// What the domain publishes when DNS answers: an SPF record with an include, DMARC p=none.
const zone: Zone = {
  'mail.com': { TXT: ['v=spf1 include:_spf.sender.test -all'] },
  '_dmarc.mail.com': { TXT: ['v=DMARC1; p=none'] },
  '_spf.sender.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 -all'] },
};

async function setup(t: Test, dnsServers: string) {
  const rdap = await startRdapServer({
    'mail.com': rdapDomain('mail.com', {
      registrar: 'Good Registrar',
      expiry: inDays(400),
      status: ['client transfer prohibited'],
    }),
  });
  t.teardown(() => rdap.close());
  const env = {
    DOMMON_DNS_SERVERS: dnsServers,
    DOMMON_RDAP_URL: rdap.url,
    DOMMON_WHOIS_SERVER: '127.0.0.1:9',
    DOMMON_IANA_WHOIS: '127.0.0.1:9',
    DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-check-dns-${process.pid}`),
  };
  const engine = createCheckEngine(loadConfig({}, env), { registrationBudgetMs: 10_000 });
  t.teardown(() => engine.close());
  const run = () =>
    runChecks([parseTarget('mail.com')], engine, ['registration', 'dns-security'], {
      warnDays: 30,
      critDays: 7,
      minSecurity: 50,
      expectedStatus: null,
      timeoutMs: 10_000,
      now: () => new Date(),
    });
  return { env, run };
}

for (const mode of ['drops every query', 'answers SERVFAIL', 'nothing listens'] as const) {
  t.test(
    `DNS ${mode}: every DNS check is unknown with its cause, the grade counts only the registration`,
    async (t) => {
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
      const { env, run } = await setup(t, servers);
      const started = Date.now();
      const r = await run();
      const target = r.targets[0]!;
      const sec = target.checks.find((c) => c.check === 'dns-security')!;
      t.match(sec.details.checks, { spf: 'unknown', dmarc: 'unknown', dkim: 'unknown', caa: 'unknown' });
      t.equal(sec.details.security_score, null);
      t.match((sec.details.lookup_errors as Record<string, string>).spf, cause);
      t.equal(sec.status, 'warning', 'nothing known, nothing failed');
      t.equal(r.exit_code, 1, 'a warning, not critical');
      // The grade is the registration's alone (400 days out: 100), and says what was left out and why.
      t.match(target.health, { score: 100, grade: 'A' });
      const why = Object.fromEntries(target.health.reasons.map((x) => [x.input, x]));
      t.match(why.registration, { status: 'ok', counted: true, points_lost: 0 });
      for (const k of ['spf', 'dmarc', 'dkim', 'caa', 'dnssec'])
        t.match(why[k], { status: 'unknown', counted: false, points_lost: 0, reason: cause }, k);
      t.match(why.spf!.reason, /^SPF unknown \(lookup failed: .*\); left out of the score$/);
      if (mode === 'drops every query')
        t.ok(Date.now() - started < 30_000, 'DKIM stops asking once the resolver does not answer');

      // The command line's process, with its exit code and JSON, once: where the resolver drops every
      // query (the process must still end, its queries given up). The other two ways are the same
      // engine's report, asserted above, through the same process.
      if (mode !== 'drops every query') return;
      await ensureBuilt();
      const out = await cli(['check', 'mail.com', '--checks', 'registration,dns-security', '--json'], { env });
      t.equal(out.code, 1, out.stderr);
      t.notMatch(out.stdout, /"(spf|dmarc)": "fail"/);
      t.match(out.json.targets[0].health, { score: 100, grade: 'A' });
      t.match(
        out.json.targets[0].health.reasons.find((x: { input: string }) => x.input === 'dmarc'),
        { status: 'unknown', counted: false, points_lost: 0, reason: cause },
      );
    },
  );
}

t.test('an SPF include whose look-up fails makes SPF unknown, not a record of no look-ups', async (t) => {
  const dns = await startDnsServer(zone);
  t.teardown(() => dns.close());
  dns.failing.add('sender.test');
  const { env, run } = await setup(t, dns.address);
  const r = await run();
  const target = r.targets[0]!;
  const sec = target.checks.find((c) => c.check === 'dns-security')!;
  t.match(sec.details.checks, { spf: 'unknown', dmarc: 'fail' });
  t.match((sec.details.lookup_errors as Record<string, string>).spf, /^include:_spf\.sender\.test: DNS E?SERVFAIL$/);
  const why = Object.fromEntries(target.health.reasons.map((x) => [x.input, x]));
  t.match(why.spf, { status: 'unknown', counted: false, points_lost: 0 });
  t.match(why.spf!.reason, /^SPF unknown \(lookup failed: include:_spf\.sender\.test: DNS E?SERVFAIL\); left out/);
  t.match(why.dmarc, { status: 'bad', counted: true, reason: /^DMARC fail: DMARC policy is "none"/ });
  t.equal(
    100 - target.health.reasons.reduce((a, x) => a + x.points_lost, 0),
    target.health.score,
    'the points lost add up to the score',
  );
  t.ok(why.dmarc!.points_lost > 0);

  // The text report: a grade below A comes with its reason line.
  await ensureBuilt();
  const out = await cli(['check', 'mail.com', '--checks', 'registration,dns-security'], { env });
  t.match(out.stdout, /dns-security\s+WARNING\s+score \d+\/100 \(below 50\): spf unknown, dmarc fail/);
  t.notMatch(out.stdout, /spf fail/);
  t.match(
    out.stdout,
    new RegExp(
      `health ${target.health.score} \\(${target.health.grade}\\): DMARC fail: DMARC policy is "none" .* -${why.dmarc!.points_lost}`,
    ),
  );
  t.match(out.stdout, /unknown, left out: certificates, liveness, spf/);
});
