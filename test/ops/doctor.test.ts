import fs from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { loadConfig } from '../../src/config/index.js';
import { openStore } from '../../src/store/index.js';
import { runDoctor } from '../../src/services/doctor.js';
import { tempDir } from '../support/app.js';
import { startUdpDns } from '../support/udp-dns.js';
import { startHttpRdap } from '../support/http-rdap.js';
import { startTcpWhois } from '../support/tcp-whois.js';
import { startSmtp } from '../support/smtp.js';
import { dommon } from '../support/spawn-dommon.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function dataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = tempDir('dommon-doctor-');
  fs.chmodSync(dir, 0o700);
  const store = await openStore(`${dir}/dommon.db`);
  await store.close();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('doctor: every configured peer answers', async (t) => {
  const [dnsA, dnsB, rdap, whois, smtp] = await Promise.all([
    startUdpDns(),
    startUdpDns(),
    startHttpRdap(),
    startTcpWhois(),
    startSmtp({ user: 'mailer', pass: 's3cret-pass' }),
  ]);
  t.teardown(() => Promise.all([dnsA.close(), dnsB.close(), rdap.close(), whois.close(), smtp.close()]));
  const dir = await dataDir(t);
  const env = {
    DOMMON_DNS_SERVERS: `${dnsA.address},${dnsB.address}`,
    DOMMON_RDAP_URL: rdap.url,
    DOMMON_WHOIS_SERVER: whois.address,
    DOMMON_SMTP_URL: smtp.url,
  };
  // 10 s: every peer answers, so the wait ends with the answer; a stalled host took the in-process SMTP
  // server's TLS handshake past 3 s once.
  const report = await runDoctor(loadConfig({ dataDir: dir }, env), { timeoutMs: 10_000, smtpCa: smtp.ca });
  const by = new Map(report.checks.map((c) => [c.name, c]));
  t.same(
    report.checks.map((c) => [c.name, c.status]),
    [
      ['data directory', 'ok'],
      ['database integrity', 'ok'],
      ['schema version', 'ok'],
      ['channel secrets', 'ok'],
      ['daemon', 'ok'],
      [`dns ${dnsA.address}`, 'ok'],
      [`dns ${dnsB.address}`, 'ok'],
      ['rdap', 'ok'],
      ['whois', 'ok'],
      ['smtp', 'ok'],
    ],
    JSON.stringify(report.checks),
  );
  t.equal(report.ok, true);
  t.match(by.get('schema version')!.detail, new RegExp(`at ${Object.keys(MIGRATIONS).at(-1)}`));
  t.equal(dnsA.queries.length, 1, 'the DNS peer saw the query');
  t.equal(rdap.requests[0], '/help');
  t.same(whois.queries, ['example.com']);
  t.match(by.get('smtp')!.detail, /DOMMON_SMTP_TLS=require\) answered and accepted the credentials/);
  t.same(smtp.authAttempts, ['mailer']);

  // Through the CLI: one JSON document, exit 0 (the child trusts the test CA through Node's NODE_EXTRA_CA_CERTS).
  const r = await dommon(['--data-dir', dir, '--json', 'doctor', '--timeout', '10000'], {
    ...env,
    NODE_EXTRA_CA_CERTS: smtp.caFile,
  });
  t.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  t.equal(json.ok, true);
  t.equal(json.checks.length, 10);
});

t.test('doctor: unreachable peers, wrong SMTP password, no secret in the output; exit 1', async (t) => {
  const smtp = await startSmtp({ user: 'mailer', pass: 'right-pass' });
  t.teardown(() => smtp.close());
  const dir = await dataDir(t);
  const [p1, p2, p3] = [await closedPort(), await closedPort(), await closedPort()];
  const env = {
    DOMMON_DNS_SERVERS: `127.0.0.1:${p1}`,
    DOMMON_RDAP_URL: `http://127.0.0.1:${p2}`,
    DOMMON_WHOIS_SERVER: `127.0.0.1:${p3}`,
    DOMMON_SMTP_URL: `smtp://mailer:wrong-pass-xyz@127.0.0.1:${smtp.port}`,
  };
  // 5 s: the SMTP check's TLS handshake and login must end within it on a loaded machine (500 ms ran out
  // once, 3 s on a stalled host); the DNS check waits all of it for the closed port's silence.
  const report = await runDoctor(loadConfig({ dataDir: dir }, env), { timeoutMs: 5000, smtpCa: smtp.ca });
  const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
  t.same(status, {
    'data directory': 'ok',
    'database integrity': 'ok',
    'schema version': 'ok',
    'channel secrets': 'ok',
    daemon: 'ok',
    [`dns 127.0.0.1:${p1}`]: 'fail',
    rdap: 'fail',
    whois: 'fail',
    smtp: 'fail',
  });
  t.equal(report.ok, false);
  const by = new Map(report.checks.map((c) => [c.name, c.detail]));
  t.match(by.get(`dns 127.0.0.1:${p1}`), /no answer/);
  t.match(by.get('rdap'), /ECONNREFUSED/);
  t.match(by.get('whois'), /ECONNREFUSED/);
  t.match(by.get('smtp'), /535|EAUTH/);
  t.notOk(JSON.stringify(report).includes('wrong-pass-xyz'), 'the SMTP password is never printed');

  const r = await dommon(['--data-dir', dir, 'doctor', '--timeout', '500'], {
    ...env,
    NODE_EXTRA_CA_CERTS: smtp.caFile,
  });
  t.equal(r.code, 1);
  t.match(r.stdout, /FAIL\s+rdap/);
  t.match(r.stdout, /4 check\(s\) failed/);
  t.notOk(r.stdout.includes('wrong-pass-xyz'));
});

t.test('doctor: the SMTP check connects as DOMMON_SMTP_TLS says', async (t) => {
  const [plain, tls] = await Promise.all([
    startSmtp({ user: 'mailer', pass: 's3cret', tls: 'none' }),
    startSmtp({ user: 'mailer', pass: 's3cret' }),
  ]);
  t.teardown(() => Promise.all([plain.close(), tls.close()]));
  const dir = await dataDir(t);
  const smtpCheck = async (env: Record<string, string>, smtpCa?: string) =>
    (await runDoctor(loadConfig({ dataDir: dir }, env), { timeoutMs: 10_000, smtpCa })).checks.find(
      (c) => c.name === 'smtp',
    )!;

  const noStarttls = await smtpCheck({ DOMMON_SMTP_URL: plain.url });
  t.equal(noStarttls.status, 'fail');
  t.match(noStarttls.detail, /DOMMON_SMTP_TLS=require\): SMTP server offers no STARTTLS and DOMMON_SMTP_TLS=require/);
  t.same(plain.authAttempts, [], 'credentials not sent in clear text');

  const untrusted = await smtpCheck({ DOMMON_SMTP_URL: tls.url });
  t.equal(untrusted.status, 'fail', 'the test CA is not trusted here');
  t.match(untrusted.detail, /certificate verification failed/);
  t.same(tls.authAttempts, []);

  t.equal(
    (await smtpCheck({ DOMMON_SMTP_URL: tls.url, DOMMON_SMTP_TLS: 'insecure' })).status,
    'ok',
    'insecure: any certificate',
  );
  const noCreds = await smtpCheck({
    DOMMON_SMTP_URL: plain.url.replace(/\/\/[^@]*@/, '//'),
    DOMMON_SMTP_TLS: 'verify-if-offered',
  });
  t.equal(noCreds.status, 'ok', noCreds.detail);
  t.match(noCreds.detail, /DOMMON_SMTP_TLS=verify-if-offered\) answered$/);
});

t.test('doctor: a corrupt database and an unwritable data directory fail; unset peers are skipped', async (t) => {
  const dir = tempDir('dommon-doctor-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(`${dir}/dommon.db`, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]));
  const report = await runDoctor(loadConfig({ dataDir: dir }, {}), { timeoutMs: 500 });
  const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
  t.equal(status['database integrity'], 'fail');
  t.equal(status.dns, 'skip');
  t.equal(status.smtp, 'skip');
  t.equal(report.ok, false);

  const file = `${dir}/plain-file`;
  fs.writeFileSync(file, '');
  const r2 = await runDoctor(loadConfig({ dataDir: `${file}/data` }, {}), { timeoutMs: 500 });
  t.equal(r2.checks[0]!.status, 'fail');
  t.match(r2.checks[0]!.detail, /not writable: (ENOTDIR|EEXIST)/);
});
