// `dommon check` against loopback peers: the DNS, RDAP and WHOIS servers of test/support, and HTTPS
// and HTTP targets with certificates made here. Most cases run the engine in-process (runChecks with
// createCheckEngine); three spawns of the built CLI prove the exit codes, --json and the text report.
import dgram from 'node:dgram';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { httpPeer, httpsPeer, makeCert } from '../support/loopback-https.js';
import { startDnsServer, type Zone } from '../support/dns-server.js';
import { rdapDomain, startRdapServer } from '../support/rdap-server.js';
import { startWhoisServer, verisignText } from '../support/whois-server.js';
import { closedPort, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { startImap } from '../support/imap.js';
import { startSmtp } from '../support/smtp.js';
import { loadConfig } from '../../src/config/index.js';
import { createCheckEngine } from '../../src/app.js';
import { collectTargets, parseTarget } from '../../src/cli/check/targets.js';
import { runChecks, type CheckKind, type CheckReport } from '../../src/cli/check/index.js';
import {
  exitCode,
  expirySeverity,
  livenessUp,
  registrationSeverity,
  securitySeverity,
  tlsSeverity,
  worst,
} from '../../src/domain/check.js';

t.setTimeout(120_000);

const DAY = 86_400_000;
const inDays = (n: number) => new Date(Date.now() + n * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
const KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE';

/** A zone where every DNS-security check passes for `name` (score 100 with a transfer lock). */
function secure(name: string, a?: string): Zone {
  return {
    [name]: {
      TXT: ['v=spf1 mx -all'],
      CAA: [{ tag: 'issue', value: 'letsencrypt.org' }],
      MX: [{ preference: 10, exchange: `mx.${name}` }],
      DS: [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: 'abcdef0123' }],
      DNSKEY: [{ flags: 257, algorithm: 13, key: KEY }],
      ...(a ? { A: [a] } : {}),
    },
    [`_dmarc.${name}`]: { TXT: ['v=DMARC1; p=reject'] },
    [`selector1._domainkey.${name}`]: { TXT: [`v=DKIM1; k=ec; p=${KEY}`] },
  };
}

const zone: Zone = {
  ...secure('good.com'),
  ...secure('soon.com'),
  ...secure('warn.com'),
  ...secure('fallback.com'),
  'www.good.com': { A: ['127.0.0.1'] },
  'web.test': { A: ['127.0.0.1'] },
  'bare.com': { NS: ['ns1.bare.com'] }, // registered, but no mail or CA records: a low security score
};

const rdapAnswers = {
  'good.com': rdapDomain('good.com', {
    registrar: 'Good Registrar',
    expiry: inDays(400),
    status: ['client transfer prohibited'],
    signed: true,
  }),
  'soon.com': rdapDomain('soon.com', {
    registrar: 'Good Registrar',
    expiry: inDays(5),
    status: ['client transfer prohibited'],
  }),
  'warn.com': rdapDomain('warn.com', {
    registrar: 'Good Registrar',
    expiry: inDays(20),
    status: ['client transfer prohibited'],
  }),
  'bare.com': rdapDomain('bare.com', {
    registrar: 'Good Registrar',
    expiry: inDays(400),
    status: ['client transfer prohibited'],
  }),
  'fallback.com': { status: 503, body: { errorCode: 503, title: 'Service Unavailable' } },
  // gone.com: the RDAP server answers 404 (not registered)
};

t.test('targets, grading rules and the exit code', async (t) => {
  t.match(parseTarget('Example.COM.'), {
    kind: 'domain',
    host: 'example.com',
    port: 443,
    url: 'https://example.com/',
    tls: true,
    domain: 'example.com',
    endpoint: { endpoint_type: 'https', domain: 'example.com', port: 443, path: '/' },
  });
  t.match(parseTarget('https://www.example.co.uk:8443/health?x=1'), {
    kind: 'url',
    host: 'www.example.co.uk',
    port: 8443,
    tls: true,
    domain: 'example.co.uk',
    endpoint: { endpoint_type: 'https', port: 8443, path: '/health?x=1' },
  });
  t.match(parseTarget('http://127.0.0.1/'), {
    kind: 'url',
    port: 80,
    tls: false,
    domain: null,
    endpoint: { endpoint_type: 'http' },
  });
  t.match(parseTarget('mail.example.com:993'), {
    kind: 'hostport',
    port: 993,
    tls: true,
    url: null,
    domain: null,
    endpoint: { endpoint_type: 'port', port: 993 },
  });
  t.match(parseTarget('db.internal:5432'), { kind: 'hostport', port: 5432, tls: false });
  t.match(parseTarget('[::1]:8443'), { kind: 'hostport', host: '::1', tls: true, endpoint: { domain: '[::1]' } });
  t.equal(parseTarget('localhost').domain, null, 'a local name has no registrable domain');
  for (const bad of [
    'ftp://example.com/',
    'exa mple.com',
    'host:99999',
    '',
    'smtp://',
    'imap://example.com:99999',
    'icmp://',
    'icmp://gw.example.com:7',
    'icmp://gw.example.com/x',
  ])
    t.throws(() => parseTarget(bad), bad);
  t.match(parseTarget('icmp://GW.Example.com'), {
    kind: 'url',
    host: 'gw.example.com',
    url: 'icmp://gw.example.com',
    tls: false,
    domain: 'example.com',
    endpoint: { endpoint_type: 'icmp', domain: 'gw.example.com', port: null, path: null },
  });
  t.match(parseTarget('icmp://127.0.0.1/'), { host: '127.0.0.1', domain: null, url: 'icmp://127.0.0.1' });
  t.match(parseTarget('smtp://Mail.Example.com:587'), {
    kind: 'url',
    host: 'mail.example.com',
    port: 587,
    url: 'smtp://mail.example.com:587',
    tls: true,
    domain: 'example.com',
    endpoint: { endpoint_type: 'smtp', port: 587, path: null },
  });
  t.match(parseTarget('smtp://mail.example.com'), { port: 25, url: 'smtp://mail.example.com:25' });
  t.match(parseTarget('imap://mail.example.com:993/INBOX'), {
    port: 993,
    url: 'imap://mail.example.com:993',
    tls: true,
    endpoint: { endpoint_type: 'imap' },
  });
  t.same(
    collectTargets(['a.com'], '# list\nhttps://b.com/\n\n c.com:25 \n').map((x) => x.kind),
    ['domain', 'url', 'hostport'],
  );
  t.throws(() => collectTargets([], '# nothing\n'), /at least one TARGET/);

  const th = { warnDays: 30, critDays: 7, minSecurity: 50 };
  t.same(
    [40, 30, 8, 7, 0, -3].map((d) => expirySeverity(d, th)),
    ['ok', 'warning', 'warning', 'critical', 'critical', 'critical'],
  );
  t.same(
    (['valid', 'expiring_soon', 'expired', 'invalid', 'error'] as const).map((s) => tlsSeverity(s, 20, th)),
    ['warning', 'warning', 'critical', 'critical', 'critical'],
  );
  t.equal(tlsSeverity('valid', 90, th), 'ok');
  t.same(
    (['ok', 'not_found', 'error', 'rate_limited', 'unsupported'] as const).map((k) => registrationSeverity(k, 100, th)),
    ['ok', 'critical', 'warning', 'warning', 'skipped'],
  );
  t.equal(registrationSeverity('ok', null, th), 'ok', 'no published expiry date is not a problem');
  t.same([securitySeverity(49, th), securitySeverity(50, th)], ['warning', 'ok']);
  t.equal(
    livenessUp({ ok: false, reason: 'status', statusCode: 301 }, null),
    true,
    'a redirect is up unless a status is expected',
  );
  t.equal(livenessUp({ ok: false, reason: 'status', statusCode: 301 }, 200), false);
  t.equal(livenessUp({ ok: false, reason: 'status', statusCode: 500 }, null), false);
  t.equal(exitCode(worst(['ok', 'skipped'])), 0);
  t.equal(exitCode(worst(['ok', 'warning', 'skipped'])), 1);
  t.equal(exitCode(worst(['warning', 'critical', 'ok'])), 2);
  t.equal(exitCode(worst([])), 0);
});

t.test('check against loopback DNS, RDAP, WHOIS, HTTPS and HTTP peers', async (t) => {
  const good = makeCert(90, ['DNS:www.good.com', 'DNS:web.test']);
  const soon = makeCert(20, ['DNS:web.test']);
  const localOnly = makeCert(90); // a certificate for localhost only
  const [dns, rdap, whois, site, expiring, wrongHost, plain] = await Promise.all([
    startDnsServer(zone),
    startRdapServer(rdapAnswers),
    startWhoisServer({
      'fallback.com': verisignText('fallback.com', {
        registrar: 'Whois Registrar',
        expiry: inDays(200),
        nameservers: ['ns1.fallback.com'],
      }),
    }),
    httpsPeer(good),
    httpsPeer(soon),
    httpsPeer(localOnly),
    httpPeer(),
  ]);
  const closed = await closedPort();
  const dataDir = path.join(os.tmpdir(), `dommon-check-${process.pid}-never-created`);
  const env = {
    DOMMON_DNS_SERVERS: dns.address,
    DOMMON_RDAP_URL: rdap.url,
    DOMMON_WHOIS_SERVER: whois.address,
    DOMMON_DATA_DIR: dataDir,
  };
  const config = loadConfig({}, env);
  const bundle = path.join(good.dir, 'bundle.pem');
  fs.writeFileSync(bundle, good.caPem + soon.caPem);
  const engine = createCheckEngine(config, {
    ca: [good.caPem, soon.caPem, localOnly.caPem],
    registrationBudgetMs: 10_000,
  });
  const untrusting = createCheckEngine(config);
  t.teardown(async () => {
    engine.close();
    untrusting.close();
    await Promise.all([dns, rdap, whois, site, expiring, wrongHost, plain].map((p) => p.close()));
    for (const c of [good, soon, localOnly]) fs.rmSync(c.dir, { recursive: true, force: true });
  });
  const opts: Parameters<typeof runChecks>[3] = {
    warnDays: 30,
    critDays: 7,
    minSecurity: 50,
    expectedStatus: null,
    timeoutMs: 5000,
    now: () => new Date(),
  };
  const check = (
    targets: string[],
    kinds: CheckKind[],
    o: Partial<typeof opts> = {},
    e = engine,
  ): Promise<CheckReport> => runChecks(targets.map(parseTarget), e, kinds, { ...opts, ...o });
  const byCheck = (r: CheckReport, i = 0) => Object.fromEntries(r.targets[i]!.checks.map((c) => [c.check, c]));
  const names: CheckKind[] = ['registration', 'dns-security'];

  await t.test('healthy URL: every check on the real engine', async (t) => {
    const r = await check([`https://www.good.com:${site.port}/`], ['registration', 'tls', 'dns-security', 'liveness']);
    t.equal(r.exit_code, 0, JSON.stringify(r.targets[0]!.checks.map((c) => c.summary)));
    const c = byCheck(r);
    t.match(r.targets[0], {
      kind: 'url',
      domain: 'good.com',
      status: 'ok',
      health: { score: 100, grade: 'A', overall_status: 'healthy' },
    });
    t.match(c.registration!.details, {
      domain: 'good.com',
      state: 'ok',
      source: 'rdap',
      registrar: 'Good Registrar',
      expiry_date: inDays(400).slice(0, 10),
      days_until_expiry: 400,
      transfer_lock: true,
      dnssec_signed: true,
    });
    t.match(
      c.registration!.summary,
      /^good\.com expires in 400 day\(s\) \(\d{4}-\d\d-\d\d\), registrar Good Registrar via RDAP$/,
    );
    t.match(c['dns-security']!.details, {
      security_score: 100,
      checks: { spf: 'pass', dmarc: 'pass', dkim: 'pass', caa: 'pass' },
      dnssec_enabled: true,
      transfer_lock: true,
      recommendations: [],
    });
    t.match(c.tls!.details, {
      ssl_status: 'valid',
      trusted: true,
      hostname_match: true,
      self_signed: false,
      subject: 'CN=localhost',
      issuer: 'CN=dommon test CA',
      days_until_expiry: 90,
      sans: ['www.good.com', 'web.test'],
    });
    t.match(c.tls!.summary, /^certificate expires in 90 day\(s\) \(\d{4}-\d\d-\d\d\), valid$/);
    t.match(c.liveness!, { status: 'ok', details: { probe: 'https', up: true, status_code: 200 } });
    t.ok(
      dns.queries.some((q) => q.name === 'www.good.com' && q.type === 'A'),
      'the target host was resolved through DOMMON_DNS_SERVERS',
    );
    t.ok(
      dns.queries.some((q) => q.name === 'good.com' && q.type === 'DS'),
      'DNSSEC asked of DOMMON_DNS_SERVERS',
    );
    t.ok(rdap.requests.includes('/domain/good.com'), 'registration asked of DOMMON_RDAP_URL');
  });

  await t.test('registration thresholds, not registered, RDAP failing over to WHOIS', async (t) => {
    const r = await check(['soon.com', 'warn.com', 'fallback.com', 'gone.com', 'bare.com'], names);
    const [soonT, warnT, fallbackT, goneT, bareT] = r.targets;
    t.match(soonT, {
      status: 'critical',
      checks: [
        { check: 'registration', status: 'critical', details: { days_until_expiry: 5 } },
        { check: 'dns-security', status: 'ok' },
      ],
    });
    t.match(warnT, {
      status: 'warning',
      checks: [
        { check: 'registration', status: 'warning', details: { days_until_expiry: 20 } },
        { check: 'dns-security', status: 'ok' },
      ],
    });
    const f = byCheck(r, 2).registration!;
    t.equal(fallbackT!.status, 'ok');
    t.match(f.details, {
      state: 'ok',
      source: 'whois',
      registrar: 'Whois Registrar',
      days_until_expiry: 200,
      transfer_lock: true,
    });
    t.match((f.details.attempts as string[])[0], /^RDAP .*503/, 'the RDAP failure is kept in attempts');
    t.equal(whois.queries.filter((q) => q === 'fallback.com').length, 1);
    t.match(goneT!.checks[0], { status: 'critical', summary: /^gone\.com is not registered: RDAP .* not registered/ });
    t.match(byCheck(r, 4)['dns-security'], {
      status: 'warning',
      summary: /^score 15\/100 \(below 50\): spf fail, dmarc fail, dkim fail, caa fail, dnssec off, transfer lock on$/,
    });
    t.equal(bareT!.status, 'warning');
    t.same(r.summary, { ok: 1, warning: 2, critical: 2 });
    t.equal(r.exit_code, 2);
    // The same names with other thresholds: 20 days left is fine at --warn-days 14, 5 days a warning at --crit-days 3.
    const relaxed = await check(['soon.com', 'warn.com'], ['registration'], { warnDays: 14, critDays: 3 });
    t.same(
      relaxed.targets.map((x) => x.status),
      ['warning', 'ok'],
    );
  });

  await t.test('TLS status and liveness of URLs and host:port', async (t) => {
    const [r, untrusted] = await Promise.all([
      check(
        [
          `https://web.test:${expiring.port}/`,
          `https://www.good.com:${wrongHost.port}/`,
          `http://web.test:${plain.port}/?status=500`,
          `http://web.test:${plain.port}/?status=301`,
          `web.test:${plain.port}`,
          `web.test:${closed}`,
          `127.0.0.1:${closed}`,
        ],
        ['tls', 'liveness'],
      ),
      check([`https://www.good.com:${site.port}/`], ['tls'], {}, untrusting),
    ]);
    const [exp, wrong, s500, s301, tcpUp, tcpDown] = r.targets.map((_, i) => byCheck(r, i));
    t.match(exp!.tls, {
      status: 'warning',
      summary: /^certificate expires in 20 day\(s\) .*, expiring_soon$/,
      details: { ssl_status: 'expiring_soon' },
    });
    t.match(wrong!.tls, {
      status: 'critical',
      summary: 'certificate invalid: certificate does not match the host name',
      details: { ssl_status: 'invalid', hostname_match: false },
    });
    t.match(s500!.liveness, {
      status: 'critical',
      summary: 'down: HTTP 500 (expected 2xx or 3xx)',
      details: { up: false, status_code: 500, probe: 'http' },
    });
    t.equal(s500!.tls, undefined, 'no TLS check on plain HTTP');
    t.match(s301!.liveness, { status: 'ok', summary: /^HTTP 301 in \d+ ms$/ });
    t.match(tcpUp!.liveness, {
      status: 'ok',
      summary: /^TCP connect in \d+ ms$/,
      details: { probe: 'port', host: 'web.test' },
    });
    t.match(tcpDown!.liveness, { status: 'critical', summary: 'down: refused: connection refused' });
    t.same(
      r.targets.map((x) => x.checks.length),
      [2, 2, 1, 1, 1, 1, 1],
    );
    t.match(r.targets[4]!.health, { score: 100, grade: 'A' });
    t.match(untrusted.targets[0]!.checks[0], {
      status: 'critical',
      summary:
        /^certificate invalid: untrusted issuer: the server sends no intermediate and its certificate's issuer \(.+\) is not a trusted root: a private CA, or an intermediate the server should send$/,
    });
    const strict = await check([`http://web.test:${plain.port}/?status=301`], ['liveness'], { expectedStatus: 200 });
    t.equal(strict.exit_code, 2, '--expect-status 200 makes a redirect a failure');
    const t20 = await check([`https://web.test:${expiring.port}/`], ['tls'], { warnDays: 40, critDays: 21 });
    t.equal(t20.targets[0]!.status, 'critical', 'within --crit-days is critical');
  });

  await t.test('the built CLI: exit codes 0, 1 and 2, one JSON document, the text report, no database', async (t) => {
    await ensureBuilt();
    const run = (args: string[]) => cli(['check', ...args], { env });
    const [healthy, warning, critical, usage] = await Promise.all([
      run([`https://www.good.com:${site.port}/`, '--ca', bundle, '--json']),
      run(['warn.com', 'fallback.com', '--checks', 'registration,dns-security', '--json']),
      run(['soon.com', `web.test:${closed}`, '--checks', 'registration,dns-security,liveness']),
      run(['example.com', 'ftp://x/']),
    ]);
    t.equal(healthy.code, 0, healthy.stderr);
    t.match(healthy.json, {
      status: 'healthy',
      exit_code: 0,
      warn_days: 30,
      crit_days: 7,
      min_security: 50,
      summary: { ok: 1, warning: 0, critical: 0 },
    });
    const hc = Object.fromEntries(healthy.json.targets[0].checks.map((c: any) => [c.check, c]));
    t.same(Object.keys(hc), ['registration', 'tls', 'dns-security', 'liveness']);
    t.match(hc.registration.details, { registrar: 'Good Registrar', days_until_expiry: 400, source: 'rdap' });
    t.equal(hc['dns-security'].details.checks.spf, 'pass');
    t.equal(hc.tls.details.ssl_status, 'valid');
    t.equal(hc.liveness.details.status_code, 200);

    t.equal(warning.code, 1, warning.stderr);
    t.match(warning.json.targets, [
      {
        target: 'warn.com',
        status: 'warning',
        checks: [
          { check: 'registration', details: { days_until_expiry: 20 } },
          { check: 'dns-security', status: 'ok' },
        ],
      },
      {
        target: 'fallback.com',
        status: 'ok',
        checks: [{ check: 'registration', details: { source: 'whois', registrar: 'Whois Registrar' } }, {}],
      },
    ]);

    t.equal(critical.code, 2, critical.stderr);
    t.match(
      critical.stdout,
      /^CRITICAL\s+soon\.com {2}health \d+ \([A-F]\)\n\s+registration\s+CRITICAL\s+soon\.com expires in 5 day\(s\) .*registrar Good Registrar via RDAP\n\s+dns-security\s+OK\s+score 100\/100/,
    );
    t.match(
      critical.stdout,
      /\n\s+liveness\s+CRITICAL\s+down: dns: ENODATA soon\.com\n/,
      'soon.com has no address: its HTTPS liveness is down',
    );
    t.match(
      critical.stdout,
      new RegExp(`web\\.test:${closed}.*\\n\\s+liveness\\s+CRITICAL\\s+down: refused: connection refused`),
    );
    t.match(critical.stdout, /2 target\(s\): 0 ok, 0 warning, 2 critical -> exit 2\n$/);
    t.equal(usage.code, 2, 'a bad target is a usage error');
    t.equal(usage.stderr, 'dommon: "ftp://x/": only http, https, smtp, imap, icmp URLs can be checked\n');
    t.equal(usage.stdout, '');
    t.notOk(fs.existsSync(dataDir), 'no data directory or database was created');
  });
});

t.test('DNS unreachable: the security checks are unknown, not failed, and the exit code is not critical', async (t) => {
  // A UDP port nobody listens on: every DNS query is refused (ICMP port unreachable).
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  const deadPort = (sock.address() as AddressInfo).port;
  await new Promise<void>((r) => sock.close(() => r()));
  const rdap = await startRdapServer({
    'offline.com': rdapDomain('offline.com', {
      registrar: 'Good Registrar',
      expiry: inDays(400),
      status: ['client transfer prohibited'],
    }),
  });
  t.teardown(() => rdap.close());
  const env = {
    DOMMON_DNS_SERVERS: `127.0.0.1:${deadPort}`,
    DOMMON_RDAP_URL: rdap.url,
    DOMMON_WHOIS_SERVER: '127.0.0.1:9',
    DOMMON_IANA_WHOIS: '127.0.0.1:9',
    DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-check-${process.pid}-offline`),
  };
  const engine = createCheckEngine(loadConfig({}, env), { registrationBudgetMs: 10_000 });
  t.teardown(() => engine.close());
  const r = await runChecks([parseTarget('offline.com')], engine, ['registration', 'dns-security'], {
    warnDays: 30,
    critDays: 7,
    minSecurity: 50,
    expectedStatus: null,
    timeoutMs: 5000,
    now: () => new Date(),
  });
  const sec = r.targets[0]!.checks.find((c) => c.check === 'dns-security')!;
  t.match(sec, {
    status: 'warning',
    details: {
      security_score: null,
      checks: { spf: 'unknown', dmarc: 'unknown', dkim: 'unknown', caa: 'unknown' },
      dnssec: 'unknown',
      dnssec_enabled: null,
      recommendations: [],
    },
  });
  t.match(
    sec.summary,
    /^score unknown: spf unknown, dmarc unknown, dkim unknown, caa unknown, dnssec unknown, transfer lock on; look-ups failed \(unknown, not failed\): spf, dmarc, dkim, caa, dnssec$/,
  );
  t.match((sec.details.lookup_errors as Record<string, string>).spf, /ECONNREFUSED|ETIMEOUT|timeout/);
  t.equal(r.exit_code, 1, 'a warning: nothing is known, nothing failed');

  await ensureBuilt();
  const out = await cli(['check', 'offline.com', '--checks', 'registration,dns-security'], { env });
  t.equal(out.code, 1, out.stderr);
  t.match(out.stdout, /dns-security\s+WARNING\s+score unknown: spf unknown, dmarc unknown, dkim unknown, caa unknown/);
  t.notMatch(out.stdout, /spf fail|score 0/);
});

t.test('smtp:// and imap:// targets: the certificate behind STARTTLS, the greeting, no STARTTLS', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Check Mail CA');
  const smtp = await startSmtp({ cert: issue({ ca, cn: 'mail.example.com', toDays: 20 }) });
  const imap = await startImap({ cert: issue({ ca, cn: 'mail.example.com', toDays: 90 }) });
  const bare = await startSmtp({ tls: 'none' });
  const env = {
    DOMMON_DNS_SERVERS: dns.server,
    DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
    DOMMON_WHOIS_SERVER: '127.0.0.1:9',
    DOMMON_IANA_WHOIS: '127.0.0.1:9',
    DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-check-${process.pid}-mail`),
  };
  const engine = createCheckEngine(loadConfig({}, env), { ca: [ca.cert] });
  t.teardown(async () => {
    engine.close();
    await smtp.close();
    await imap.close();
    await bare.close();
    await dns.close();
  });
  const targets = [
    `smtp://mail.example.com:${smtp.port}`,
    `imap://mail.example.com:${imap.port}`,
    `smtp://mail.example.com:${bare.port}`,
    'icmp://gw.example.com',
  ];
  const r = await runChecks(targets.map(parseTarget), engine, ['tls', 'liveness'], {
    warnDays: 30,
    critDays: 7,
    minSecurity: 50,
    expectedStatus: null,
    timeoutMs: 5000,
    now: () => new Date(),
  });
  const [s, i, b, p] = r.targets.map((x) => Object.fromEntries(x.checks.map((c) => [c.check, c])));
  t.match(s!.tls, {
    status: 'warning',
    summary: /^certificate expires in 20 day\(s\) \(\d{4}-\d\d-\d\d\), expiring_soon$/,
    details: { ssl_status: 'expiring_soon', subject: 'CN=mail.example.com', trusted: true, hostname_match: true },
  });
  t.match(s!.liveness, {
    status: 'ok',
    summary: /^SMTP greeting 220 and STARTTLS in \d+ ms$/,
    details: { probe: 'smtp', up: true, status_code: 220, url: targets[0] },
  });
  t.match(i!.tls, { status: 'ok', details: { ssl_status: 'valid', days_until_expiry: 90 } });
  t.match(i!.liveness, {
    status: 'ok',
    summary: /^IMAP greeting \* OK and STARTTLS in \d+ ms$/,
    details: { probe: 'imap', up: true },
  });
  t.match(b!.liveness, {
    status: 'critical',
    summary: /^down: tls: the server does not offer STARTTLS \(EHLO lists \d+ other extensions?\)$/,
    details: { up: false, reason: 'tls' },
  });
  t.match(b!.tls, { status: 'critical', summary: /^TLS handshake failed: tls: the server does not offer STARTTLS/ });
  t.same(Object.keys(p!), ['liveness'], 'icmp: no certificate to inspect');
  t.match(p!.liveness, {
    status: 'ok',
    summary: /^ICMP echo: 3 of 3 replies, mean round trip \d+ ms$/,
    details: { probe: 'icmp', up: true, url: 'icmp://gw.example.com', status_code: null },
  });
  t.same(
    r.targets.map((x) => x.status),
    ['warning', 'ok', 'critical', 'ok'],
  );
  t.equal(r.exit_code, 2);
});
