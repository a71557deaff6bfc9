// Certificate verdicts a browser agrees with, on real certificates made here and served on loopback:
// every certificate a TLS library accepts is read (empty subject, no CN, IDN, thousands of names), the
// host is named only by the subjectAltName, the chain's earliest notAfter counts, and refusals say why.
import crypto from 'node:crypto';
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { inspectTls } from '../../src/probes/tls.js';
import { expiryOf, invalidReason, sslStatus, type TlsResult } from '../../src/domain/certificate.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { startOpensslServer } from '../support/openssl-server.js';
import { issue, makeCa, makeIntermediate } from '../support/certs.js';

const never = new AbortController().signal;
const HOST = 'www.example.com';

t.test('certificate verdicts on loopback', async (t) => {
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const ca = makeCa('Verdict Root');
  const rsaCa = makeCa('Verdict RSA Root', { rsaBits: 2048 });
  const deps = { resolver: createResolver([dns.server]), ca: [ca.cert, rsaCa.cert] };
  const inspect = async (tls: { cert: string; key: string }, host = HOST): Promise<TlsResult> => {
    const target = await startHttpTarget({ tls });
    try {
      return await inspectTls({ host, port: target.port, timeoutMs: 5000 }, deps, never);
    } finally {
      await target.close();
    }
  };
  const inspectWeak = async (o: { cert: string; key: string; chain?: string }): Promise<TlsResult> => {
    const server = await startOpensslServer(o);
    try {
      return await inspectTls({ host: HOST, port: server.port, timeoutMs: 5000 }, deps, never);
    } finally {
      await server.close();
    }
  };
  const verdict = (r: TlsResult) => ({
    status: sslStatus(r, new Date()),
    reason: r.ok ? invalidReason(r) : r.error,
  });

  t.test('an empty subject with a SAN is read, and valid', async (t) => {
    const r = await inspect(issue({ ca, cn: HOST, subject: '/', toDays: 90 }));
    t.same(verdict(r), { status: 'valid', reason: null });
    t.match(r, { ok: true, leaf: { subject: '', issuer: 'CN=Verdict Root', sans: [HOST] } });
  });

  t.test('no common name, SAN only: valid', async (t) => {
    const r = await inspect(issue({ ca, cn: HOST, subject: '/O=No CN Org', toDays: 90 }));
    t.same(verdict(r), { status: 'valid', reason: null });
    t.match(r, { leaf: { subject: 'O=No CN Org', sans: [HOST] } });
  });

  t.test('the host only in the common name, no SAN: invalid for the host, says why', async (t) => {
    const r = await inspect(issue({ ca, cn: HOST, sans: null, toDays: 90 }));
    const v = verdict(r);
    t.equal(v.status, 'invalid');
    t.match(v.reason, /no subjectAltName: browsers and Go no longer accept a host named only in the common name/);
    t.match(r, { ok: true, trusted: true, hostname_match: false, has_san: false });
  });

  t.test('wildcards as browsers: a whole left-most label only', async (t) => {
    const r = await inspect(issue({ ca, cn: 'x', sans: ['w*.example.com', '*.example.org'], toDays: 90 }));
    t.same(verdict(r), { status: 'invalid', reason: 'certificate does not match the host name' });
    const ok = await inspect(issue({ ca, cn: 'x', sans: ['*.example.com'], toDays: 90 }));
    t.same(verdict(ok), { status: 'valid', reason: null });
  });

  t.test('internationalised names: the host as U-label or A-label', async (t) => {
    const tls = issue({
      ca,
      cn: 'xn--bcher-kva.example',
      sans: ['xn--bcher-kva.example', '*.xn--bcher-kva.example'],
      toDays: 90,
    });
    for (const host of ['xn--bcher-kva.example', 'bücher.example', 'www.bücher.example']) {
      t.same(verdict(await inspect(tls, host)), { status: 'valid', reason: null }, host);
    }
    t.equal(verdict(await inspect(tls, 'bucher.example')).status, 'invalid');
  });

  t.test('5,000 names', async (t) => {
    const names = [...Array.from({ length: 4999 }, (_, i) => `n${i}.example.com`), HOST];
    const r = await inspect(issue({ ca, cn: 'many', sans: names, toDays: 90 }));
    t.same(verdict(r), { status: 'valid', reason: null });
    t.equal(r.ok && r.leaf.sans.length, 5000);
    t.equal(r.ok && r.leaf.sans.at(-1), HOST);
  });

  t.test('an intermediate that expires before the leaf sets the status and the date', async (t) => {
    const mid = makeIntermediate(ca, 'Short Intermediate', { toDays: 10 });
    const leaf = issue({ ca: mid, cn: HOST, toDays: 90 });
    const r = await inspect({ cert: leaf.cert + mid.cert, key: leaf.key });
    t.same(verdict(r), { status: 'expiring_soon', reason: null });
    const e = r.ok ? expiryOf(r) : null;
    t.match(e, { position: 1, role: 'intermediate', subject: 'CN=Short Intermediate' });
    t.equal(e?.not_after, new Date(new crypto.X509Certificate(mid.cert).validTo).toISOString());

    const old = makeIntermediate(ca, 'Expired Intermediate', { fromDays: -100, toDays: -2 });
    const leaf2 = issue({ ca: old, cn: HOST, toDays: 90 });
    const r2 = await inspect({ cert: leaf2.cert + old.cert, key: leaf2.key });
    t.equal(verdict(r2).status, 'expired', 'an expired intermediate: expired, though the leaf has 90 days');
    t.match(r2.ok && expiryOf(r2), { role: 'intermediate', subject: 'CN=Expired Intermediate' });
  });

  t.test('incomplete chain: the server sends only its leaf', async (t) => {
    const mid = makeIntermediate(ca, 'Missing Intermediate');
    // As a public CA's certificate: it names where its issuer is published (AIA caIssuers).
    const leaf = issue({
      ca: mid,
      cn: HOST,
      toDays: 90,
      extensions: ['authorityInfoAccess=caIssuers;URI:http://127.0.0.1:9/intermediate.der'],
    });
    const v = verdict(await inspect(leaf));
    t.equal(v.status, 'invalid');
    t.match(
      v.reason,
      /^incomplete chain: the server does not send its intermediate certificate \(.*CN=Missing Intermediate\); browsers may still fetch it, API clients and curl fail$/,
    );
    // Without AIA the same chain is as likely a private CA's: said so, not "incomplete".
    const bare = verdict(await inspect(issue({ ca: mid, cn: HOST, toDays: 90 })));
    t.equal(bare.status, 'invalid');
    t.match(
      bare.reason,
      /^untrusted issuer: the server sends no intermediate and its certificate's issuer \(.*CN=Missing Intermediate\) is not a trusted root: a private CA, or an intermediate the server should send$/,
    );
  });

  t.test('MD5 and SHA-1 signatures, a key too small: named, not UNSPECIFIED', async (t) => {
    for (const md of ['sha1', 'md5']) {
      const leaf = issue({ ca: rsaCa, cn: HOST, toDays: 90, md });
      const v = verdict(await inspectWeak(leaf));
      t.equal(v.status, 'invalid', `${md} leaf`);
      t.equal(
        v.reason,
        `the certificate is signed with ${md === 'md5' ? 'MD5' : 'SHA-1'}, which browsers and TLS libraries refuse; reissue it with SHA-256`,
      );
      const mid = makeIntermediate(rsaCa, `${md} Intermediate`, { md });
      const leaf2 = issue({ ca: mid, cn: HOST, toDays: 90 });
      const v2 = verdict(await inspectWeak({ ...leaf2, chain: mid.cert }));
      t.equal(v2.status, 'invalid', `${md} intermediate`);
      t.match(v2.reason, new RegExp(`^the intermediate certificate CN=${md} Intermediate is signed with `));
    }
    const small = issue({ ca: rsaCa, cn: HOST, toDays: 90, rsaBits: 768 });
    const v = verdict(await inspectWeak(small));
    t.equal(v.status, 'invalid');
    t.equal(
      v.reason,
      'the certificate has a 768-bit RSA key, too small for browsers and TLS libraries; use at least 2048 bits',
    );
  });

  t.test('a certificate too large for the TLS library', async (t) => {
    // One 120 KB extension: past OpenSSL's 100 KB limit on the certificates a peer sends.
    const big = issue({
      ca,
      cn: HOST,
      toDays: 90,
      extensions: [`1.2.3.4.5=DER:0483${(120_000).toString(16).padStart(6, '0')}${'41'.repeat(120_000)}`],
    });
    const r = await inspect(big);
    t.same(verdict(r), {
      status: 'error',
      reason:
        "tls: the server's certificate chain is larger than the TLS library accepts (OpenSSL reads at most 100 KB of certificates): send fewer or smaller certificates",
    });
  });
});
