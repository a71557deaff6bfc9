// `dommon check` against loopback targets: HTTPS with certificates made here, plain HTTP, TCP.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { httpPeer, httpsPeer, makeCert } from '../support/loopback-https.js';
import { parseTarget } from '../../src/cli/check/targets.js';
import { exitCode, worst } from '../../src/cli/check/report.js';

t.setTimeout(120_000);
t.before(ensureBuilt);

t.test('target parsing and the exit-code rule', async (t) => {
  t.match(parseTarget('Example.COM.'), { kind: 'domain', host: 'example.com', port: 443, url: 'https://example.com/', tls: true, domain: 'example.com' });
  t.match(parseTarget('https://www.example.co.uk:8443/health'), { kind: 'url', host: 'www.example.co.uk', port: 8443, tls: true, domain: 'www.example.co.uk' });
  t.match(parseTarget('http://127.0.0.1/'), { kind: 'url', port: 80, tls: false, domain: null });
  t.match(parseTarget('mail.example.com:993'), { kind: 'hostport', port: 993, tls: true, url: null });
  t.match(parseTarget('db.internal:5432'), { kind: 'hostport', port: 5432, tls: false });
  t.match(parseTarget('[::1]:8443'), { kind: 'hostport', host: '::1', tls: true });
  for (const bad of ['ftp://example.com/', 'exa mple.com', 'host:99999', '']) t.throws(() => parseTarget(bad), undefined, bad);
  t.equal(exitCode(worst(['ok', 'skipped'])), 0);
  t.equal(exitCode(worst(['ok', 'warning', 'skipped'])), 1);
  t.equal(exitCode(worst(['warning', 'critical', 'ok'])), 2);
  t.equal(exitCode(worst([])), 0);
});

t.test('check against loopback HTTPS, HTTP and TCP targets', { timeout: 90_000 }, async (t) => {
  const long = makeCert(90);
  const soon = makeCert(20);
  const [good, warn, plain] = await Promise.all([httpsPeer(long), httpsPeer(soon), httpPeer()]);
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r())); // a port nobody listens on now
  t.teardown(async () => {
    await Promise.all([good.close(), warn.close(), plain.close()]);
    for (const c of [long, soon]) fs.rmSync(c.dir, { recursive: true, force: true });
  });
  // both test CAs trusted through one bundle, as --ca takes a PEM file
  const bundle = path.join(long.dir, 'bundle.pem');
  fs.writeFileSync(bundle, long.caPem + soon.caPem);
  const opts = ['--ca', bundle, '--checks', 'tls,liveness'];

  const [healthy, warning, untrusted, critDays, http500, tcp, json, mixed, badArgs, fileRun] = await Promise.all([
    cli(['check', good.url, ...opts]),
    cli(['check', warn.url, ...opts, '--warn-days', '30', '--crit-days', '7']),
    cli(['check', good.url, '--checks', 'tls']),
    cli(['check', warn.url, ...opts, '--crit-days', '21', '--warn-days', '40']),
    cli(['check', `${plain.url}?status=500`, ...opts]),
    cli(['check', `127.0.0.1:${plain.port}`, `127.0.0.1:${closedPort}`, '--checks', 'liveness', '--timeout', '3']),
    cli(['check', good.url, warn.url, `${plain.url}`, ...opts, '--json']),
    cli(['check', good.url, warn.url, ...opts]),
    cli(['check', 'ftp://x/']),
    cli(['check', '--file', '-', '--checks', 'liveness'], { input: `# targets\n${plain.url}\n\n127.0.0.1:${plain.port}\n` }),
  ]);

  t.equal(healthy.code, 0, healthy.stderr);
  t.match(healthy.stdout, /^OK\s+https:\/\/localhost:\d+\/\n\s+tls\s+OK\s+certificate expires in (89|90) day\(s\)/);
  t.match(healthy.stdout, /liveness\s+OK\s+HTTP 200 in \d+ ms/);

  t.equal(warning.code, 1, 'expiring within --warn-days is a warning (exit 1)');
  t.match(warning.stdout, /tls\s+WARNING\s+certificate expires in (19|20) day\(s\)/);

  t.equal(untrusted.code, 2, 'an untrusted certificate is critical');
  t.match(untrusted.stdout, /certificate not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)\)/);

  t.equal(critDays.code, 2, 'within --crit-days is critical');
  t.match(critDays.stdout, /tls\s+CRITICAL\s+certificate expires in (19|20) day/);
  t.equal(http500.code, 2);
  t.match(http500.stdout, /liveness\s+CRITICAL\s+HTTP 500/);

  t.equal(tcp.code, 2, 'the worst target decides');
  t.match(tcp.stdout, new RegExp(`OK\\s+127\\.0\\.0\\.1:${plain.port}\\n\\s+liveness\\s+OK\\s+TCP connect in \\d+ ms`));
  t.match(tcp.stdout, /TCP connect to 127\.0\.0\.1:\d+ failed: ECONNREFUSED/);
  t.match(tcp.stdout, /2 target\(s\): 1 ok, 0 warning, 1 critical -> exit 2/);

  t.equal(json.code, 1);
  t.match(json.json, { status: 'warning', exit_code: 1, warn_days: 30, crit_days: 7, summary: { ok: 2, warning: 1, critical: 0 } });
  const tls = json.json.targets[0].checks.find((c: any) => c.check === 'tls');
  t.match(tls.details, { trusted: true, host_matches: true, subject: 'CN=localhost', days_until_expiry: Number });
  t.same(json.json.targets[2].checks.map((c: any) => c.check), ['liveness'], 'no TLS check on plain HTTP');
  t.equal(mixed.code, 1);
  t.equal(badArgs.code, 2, 'a bad target is a usage error');
  t.match(badArgs.stderr, /^dommon: "ftp:\/\/x\/": only http and https URLs can be checked\n$/);
  t.equal(fileRun.code, 0, fileRun.stderr);
  t.match(fileRun.stdout, /2 target\(s\): 2 ok/);

  const [noTargets, badDays, unknownCheck, skipped] = await Promise.all([
    cli(['check']),
    cli(['check', 'example.com', '--warn-days', '5', '--crit-days', '10']),
    cli(['check', 'example.com', '--checks', 'tls,smell']),
    cli(['check', `localhost:${plain.port}`, '--checks', 'registration,dns-security,liveness', '--json']),
  ]);
  t.equal(noTargets.code, 2);
  t.equal(badDays.code, 2);
  t.equal(unknownCheck.code, 2);
  t.match(unknownCheck.stderr, /unknown check\(s\): smell/);
  t.equal(skipped.code, 0, 'skipped checks never fail a run');
  t.same(skipped.json.targets[0].checks.map((c: any) => [c.check, c.status]), [['liveness', 'ok']], 'registration/DNS do not apply to a name that is not a registrable domain');
});
