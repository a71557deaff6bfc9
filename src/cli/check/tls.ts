// Minimal TLS check: handshake, trust, host name, days until the leaf certificate expires.
// TODO(lead, after merging probing): replace the handshake with src/probes/tls.ts and keep the grading here.
import tls from 'node:tls';
import net from 'node:net';
import { X509Certificate } from 'node:crypto';
import type { CheckFn } from './types.js';

interface Handshake {
  cert: X509Certificate;
  authorized: boolean;
  authorizationError: string | null;
  protocol: string | null;
  ms: number;
}

function handshake(host: string, port: number, ca: string[], timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = tls.connect({
      host,
      port,
      servername: net.isIP(host) ? undefined : host,
      rejectUnauthorized: false,
      ...(ca.length ? { ca: [...tls.rootCertificates, ...ca] } : {}),
    });
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const peer = socket.getPeerCertificate(false);
      if (!peer?.raw) return fail(new Error('server sent no certificate'));
      const err = socket.authorizationError as unknown as Error | string | null;
      resolve({
        cert: new X509Certificate(peer.raw),
        authorized: socket.authorized,
        authorizationError: err ? String((err as { code?: string }).code ?? err) : null,
        protocol: socket.getProtocol(),
        ms: Math.round(performance.now() - t0),
      });
      socket.end();
    });
  });
}

export const tlsCheck: CheckFn = async (target, o) => {
  if (!target.tls) return null;
  let h: Handshake;
  try {
    h = await handshake(target.host, target.port, o.ca, o.timeoutMs);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { check: 'tls', status: 'critical', summary: `TLS handshake failed: ${e.code ?? e.message}`, details: { error: e.message } };
  }
  const validTo = new Date(h.cert.validTo);
  const days = Math.floor((validTo.getTime() - o.now().getTime()) / 86_400_000);
  const hostOk = net.isIP(target.host) ? h.cert.checkIP(target.host) !== undefined : h.cert.checkHost(target.host) !== undefined;
  const details = {
    subject: h.cert.subject.replace(/\n/g, ', '),
    issuer: h.cert.issuer.replace(/\n/g, ', '),
    valid_from: new Date(h.cert.validFrom).toISOString(),
    valid_to: validTo.toISOString(),
    days_until_expiry: days,
    trusted: h.authorized,
    trust_error: h.authorizationError,
    host_matches: hostOk,
    fingerprint256: h.cert.fingerprint256,
    protocol: h.protocol,
    handshake_ms: h.ms,
  };
  const when = validTo.toISOString().slice(0, 10);
  if (days < 0) return { check: 'tls', status: 'critical', summary: `certificate expired ${-days} day(s) ago (${when})`, details };
  if (!hostOk) return { check: 'tls', status: 'critical', summary: `certificate does not cover ${target.host}`, details };
  if (!h.authorized) return { check: 'tls', status: 'critical', summary: `certificate not trusted (${h.authorizationError ?? 'unknown reason'})`, details };
  const summary = `certificate expires in ${days} day(s) (${when})`;
  if (days <= o.critDays) return { check: 'tls', status: 'critical', summary, details };
  if (days <= o.warnDays) return { check: 'tls', status: 'warning', summary, details };
  return { check: 'tls', status: 'ok', summary, details };
};
