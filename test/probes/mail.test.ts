// smtp and imap endpoint types against real loopback peers: STARTTLS (smtp-server, the IMAP peer in
// test/support/imap.ts) and implicit TLS, with certificates made here; liveness (greeting + TLS), TLS
// inspection of the certificate behind STARTTLS, a server without STARTTLS, a bad greeting, a silent
// server (timeout) and the outbound policy.
import t from 'tap';
import { sslStatus } from '../../src/domain/certificate.js';
import { outboundPolicy } from '../../src/domain/outbound.js';
import type { UrlParts } from '../../src/domain/endpoint.js';
import { createResolver } from '../../src/net/resolve.js';
import { ENDPOINT_PLUGINS } from '../../src/probes/registry.js';
import { probeSession } from '../../src/probes/session.js';
import { smtpConversation, smtpMode } from '../../src/probes/smtp.js';
import { imapConversation, imapMode } from '../../src/probes/imap.js';
import { inspectTls } from '../../src/probes/tls.js';
import { issue, makeCa } from '../support/certs.js';
import { startImap } from '../support/imap.js';
import { startSmtp } from '../support/smtp.js';
import { startLoopbackDns, startTcpTarget } from '../support/targets.js';

const never = new AbortController().signal;
// 10 s for the conversations that succeed (the wait ends with the answer): a loaded machine once took
// more than 2 s over the first STARTTLS handshake. The timeouts tested set their own, shorter ones.
const settings = { timeout_seconds: 10, expected_status_code: 200 };
const at = (endpoint_type: 'smtp' | 'imap', port: number): UrlParts => ({
  endpoint_type,
  domain: 'example.test',
  subdomain: 'mail',
  port,
  path: null,
});

t.test('the TLS mode follows the port: implicit on 465 and 993, STARTTLS elsewhere', async (t) => {
  t.same(
    [smtpMode(465), smtpMode(587), smtpMode(25), smtpMode(2525)],
    ['implicit', 'starttls', 'starttls', 'starttls'],
  );
  t.same([imapMode(993), imapMode(143), imapMode(1143)], ['implicit', 'starttls', 'starttls']);
});

t.test('smtp: STARTTLS and implicit TLS, liveness and the certificate behind them', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Mail CA');
  const cert = issue({ ca, cn: 'mail.example.test', toDays: 200 });
  const starttls = await startSmtp({ cert });
  const implicit = await startSmtp({ cert, tls: 'implicit' });
  const plain = await startSmtp({ tls: 'none' });
  t.teardown(async () => {
    await starttls.close();
    await implicit.close();
    await plain.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]), ca: ca.cert };
  const { smtp } = ENDPOINT_PLUGINS;
  const now = new Date();

  const up = await smtp.liveness(at('smtp', starttls.port), settings, deps, never);
  t.same(
    { ok: up.ok, statusCode: up.statusCode, error: up.error, reason: up.reason },
    { ok: true, statusCode: 220, error: null, reason: null },
    'greeting 220, STARTTLS, handshake',
  );
  t.ok(up.responseTimeMs >= 0 && up.responseTimeMs < 10_000);

  const cert1 = await smtp.inspect!({ host: 'mail.example.test', port: starttls.port, timeoutMs: 10_000 }, deps, never);
  if (!cert1.ok) throw new Error(cert1.error);
  t.equal(cert1.leaf.subject, 'CN=mail.example.test', 'the certificate read after STARTTLS');
  t.equal(cert1.leaf.issuer, 'CN=Mail CA');
  t.same([cert1.trusted, cert1.hostname_match, cert1.self_signed], [true, true, false]);
  t.equal(sslStatus(cert1, now), 'valid');
  t.ok(Math.abs(Date.parse(cert1.leaf.not_after) - (now.getTime() + 200 * 86_400_000)) < 120_000);

  // Implicit TLS (465 in production; the peer's port is random, so the conversation is chosen here).
  const upTls = await probeSession(
    { host: 'mail.example.test', port: implicit.port, timeoutMs: 10_000 },
    smtpConversation('implicit'),
    deps,
    never,
  );
  t.same(
    [upTls.ok, upTls.statusCode, upTls.error],
    [true, 220, null],
    'handshake first, then the 220 greeting over TLS',
  );
  const cert2 = await inspectTls(
    { host: 'mail.example.test', port: implicit.port, timeoutMs: 10_000 },
    deps,
    never,
    smtpConversation('implicit'),
  );
  t.equal(cert2.ok && cert2.leaf.fingerprint256, cert1.leaf.fingerprint256, 'the same certificate over implicit TLS');
  const wrongMode = await smtp.liveness(at('smtp', implicit.port), { ...settings, timeout_seconds: 1 }, deps, never);
  t.equal(wrongMode.ok, false, 'STARTTLS spoken to an implicit-TLS port fails');

  const noTls = await smtp.liveness(at('smtp', plain.port), settings, deps, never);
  t.equal(noTls.ok, false);
  t.equal(noTls.reason, 'tls');
  // The extensions are counted, never named: their keywords are the server's bytes.
  t.match(
    noTls.error,
    /^tls: the server does not offer STARTTLS \(EHLO lists \d+ other extensions?\)$/,
    'a clear reason',
  );
  const noCert = await smtp.inspect!({ host: 'mail.example.test', port: plain.port, timeoutMs: 10_000 }, deps, never);
  t.same([noCert.ok, !noCert.ok && noCert.reason], [false, 'tls']);
  t.match(noCert, { error: /does not offer STARTTLS/ });
});

t.test('smtp: a greeting other than 220, a silent server, the outbound policy', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Mail CA 2');
  const cert = issue({ ca, cn: 'mail.example.test', toDays: 200 });
  const starttls = await startSmtp({ cert });
  const silent = await startTcpTarget();
  const net = await import('node:net');
  const busy = net.createServer((s) => s.end('554 5.3.2 too busy, try later\r\n'));
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const busyPort = (busy.address() as import('node:net').AddressInfo).port;
  t.teardown(async () => {
    await starttls.close();
    await silent.close();
    busy.close();
    await dns.close();
  });
  const deps = { resolver: createResolver([dns.server]), ca: ca.cert };
  const { smtp } = ENDPOINT_PLUGINS;

  const b = await smtp.liveness(at('smtp', busyPort), settings, deps, never);
  t.same([b.ok, b.reason, b.statusCode], [false, 'status', 554]);
  t.equal(b.error, 'status: SMTP greeting 554, expected 220', 'the code, not the text');

  const s = await smtp.liveness(at('smtp', silent.port), { ...settings, timeout_seconds: 0.3 }, deps, never);
  t.same([s.ok, s.reason, s.error], [false, 'timeout', 'timeout: no answer within 0.3 s']);
  const hs = await probeSession(
    { host: 'mail.example.test', port: silent.port, timeoutMs: 300 },
    smtpConversation('implicit'),
    deps,
    never,
  );
  t.same(
    [hs.ok, hs.reason, hs.error],
    [false, 'timeout', 'timeout: no answer within 0.3 s'],
    'a handshake that never ends',
  );
  const hc = await inspectTls(
    { host: 'mail.example.test', port: silent.port, timeoutMs: 300 },
    deps,
    never,
    smtpConversation('starttls'),
  );
  t.same([hc.ok, !hc.ok && hc.reason], [false, 'timeout'], 'inspection behind a greeting that never comes');
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 100);
  const cut = await smtp.liveness(at('smtp', silent.port), settings, deps, stop.signal);
  t.same([cut.ok, cut.reason], [false, 'cancelled'], 'shutdown cancels a waiting probe');

  const guarded = {
    resolver: createResolver([dns.server], { policy: outboundPolicy('127.0.0.0/8', undefined) }),
    ca: ca.cert,
  };
  const d = await smtp.liveness(at('smtp', starttls.port), settings, guarded, never);
  t.same([d.ok, d.reason], [false, 'denied']);
  t.equal(d.error, 'denied: address 127.0.0.1 is denied by DOMMON_OUTBOUND_DENY (127.0.0.0/8)');
  const dc = await smtp.inspect!({ host: 'mail.example.test', port: starttls.port, timeoutMs: 10_000 }, guarded, never);
  t.same([dc.ok, !dc.ok && dc.reason], [false, 'denied']);
});

t.test(
  'imap: STARTTLS (capabilities in the greeting or asked), implicit TLS, no STARTTLS, a BYE greeting',
  async (t) => {
    const dns = await startLoopbackDns();
    const ca = makeCa('IMAP CA');
    const cert = issue({ ca, cn: 'mail.example.test', toDays: 20 });
    const greeted = await startImap({ cert });
    const asked = await startImap({ cert, capabilityInGreeting: false });
    const implicit = await startImap({ cert, tls: 'implicit' });
    const none = await startImap({ cert, tls: 'none' });
    const bye = await startImap({ cert, greeting: '* BYE server shutting down' });
    const peers = [greeted, asked, implicit, none, bye];
    t.teardown(async () => {
      for (const p of peers) await p.close();
      await dns.close();
    });
    const deps = { resolver: createResolver([dns.server]), ca: ca.cert };
    const { imap } = ENDPOINT_PLUGINS;
    const now = new Date();

    const up = await imap.liveness(at('imap', greeted.port), settings, deps, never);
    t.same([up.ok, up.error, up.statusCode], [true, null, null]);
    t.same(greeted.commands.slice(0, 1), ['STARTTLS'], 'a1 STARTTLS straight after a greeting that lists it');

    const up2 = await imap.liveness(at('imap', asked.port), settings, deps, never);
    t.equal(up2.ok, true);
    t.same(asked.commands.slice(0, 2), ['CAPABILITY', 'STARTTLS'], 'asks CAPABILITY when the greeting has none');

    const c = await imap.inspect!({ host: 'mail.example.test', port: asked.port, timeoutMs: 10_000 }, deps, never);
    if (!c.ok) throw new Error(c.error);
    t.equal(c.leaf.subject, 'CN=mail.example.test');
    t.equal(sslStatus(c, now), 'expiring_soon', '20 days left, as for https');
    await new Promise((r) => setTimeout(r, 100));
    t.ok(asked.commands.includes('LOGOUT (tls)'), 'the session ends with LOGOUT over TLS');

    const upTls = await probeSession(
      { host: 'mail.example.test', port: implicit.port, timeoutMs: 10_000 },
      imapConversation('implicit'),
      deps,
      never,
    );
    t.same([upTls.ok, upTls.error], [true, null], 'handshake first, then * OK over TLS');
    const cTls = await inspectTls(
      { host: 'mail.example.test', port: implicit.port, timeoutMs: 10_000 },
      deps,
      never,
      imapConversation('implicit'),
    );
    t.equal(cTls.ok && cTls.leaf.fingerprint256, c.leaf.fingerprint256);

    const no = await imap.liveness(at('imap', none.port), settings, deps, never);
    t.same([no.ok, no.reason], [false, 'tls']);
    t.equal(no.error, 'tls: the server does not offer STARTTLS (CAPABILITY lists 2 other capabilities)');
    t.notOk(none.commands.includes('STARTTLS'), 'STARTTLS is not even tried');

    const b = await imap.liveness(at('imap', bye.port), settings, deps, never);
    t.same([b.ok, b.reason], [false, 'status']);
    t.equal(b.error, 'status: IMAP greeting "* BYE", expected "* OK"', 'the status word, not the text');
  },
);
