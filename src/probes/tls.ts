// TLS inspection: one handshake with SNI, the leaf and chain read with crypto.X509Certificate,
// whether the chain is trusted and whether the certificate names the host. Never throws. A protocol
// that upgrades a plain connection (SMTP, IMAP STARTTLS) passes its conversation (session.ts).
import crypto from 'node:crypto';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import type { CertificateInfo, TlsResult } from '../domain/certificate.js';
import { closeSession, openTls, type Conversation } from './session.js';
import { refusalReason, weakness } from './tls-refusals.js';
import { classify, deadline, type ProbeDeps } from './types.js';

export interface TlsTarget {
  host: string;
  port: number;
  timeoutMs: number;
}

/** Verification errors that leave the chain itself trusted: dates (judged by the caller's clock) and the host name (checked separately). */
const NOT_CHAIN_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID']);
const TOO_LARGE =
  "the server's certificate chain is larger than the TLS library accepts (OpenSSL reads at most 100 KB of certificates): send fewer or smaller certificates";
const SELF_SIGNED_ERRORS = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);

/** A distinguished name on one line; Node gives `undefined` for an empty subject or issuer. */
function dn(s: string | undefined): string {
  return (s ?? '').split('\n').filter(Boolean).join(', ');
}

/**
 * The subjectAltName entries as Node prints them (`DNS:a, IP Address:1.2.3.4`; an entry with a comma
 * or a quote is a JSON string: `DNS:"a,b"`), each without its `DNS:` / `IP Address:` prefix.
 */
function parseSans(text: string | undefined): string[] {
  const out: string[] = [];
  const re = /([^:,]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:,\s*|$)/gy;
  for (let m = re.exec(text ?? ''); m && m[0]; m = re.exec(text ?? '')) {
    const kind = m[1]!.trim();
    let value = m[2]!;
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        /* kept as printed */
      }
    }
    out.push(kind === 'DNS' || kind === 'IP Address' ? value : `${kind}:${value}`);
  }
  return out;
}

/** Bits of the named curves servers use (OpenSSL's and NIST's names). */
const CURVE_BITS: Record<string, number> = {
  prime256v1: 256,
  'P-256': 256,
  secp256k1: 256,
  secp384r1: 384,
  'P-384': 384,
  secp521r1: 521,
  'P-521': 521,
};
const EDWARDS_BITS: Record<string, number> = { ed25519: 256, ed448: 456 };

/** The public key's algorithm and size (RSA/DSA modulus, EC curve); nulls when Node cannot read it. */
function keyOf(x: crypto.X509Certificate): { key_type: string | null; key_bits: number | null } {
  try {
    const k = x.publicKey;
    const type = k.asymmetricKeyType ?? null;
    const d = k.asymmetricKeyDetails ?? {};
    const bits = d.modulusLength ?? (d.namedCurve ? CURVE_BITS[d.namedCurve] : undefined) ?? EDWARDS_BITS[type ?? ''];
    return { key_type: type, key_bits: bits ?? null };
  } catch {
    return { key_type: null, key_bits: null };
  }
}

function certificateInfo(x: crypto.X509Certificate): CertificateInfo {
  return {
    ...keyOf(x),
    subject: dn(x.subject),
    issuer: dn(x.issuer),
    sans: parseSans(x.subjectAltName),
    not_before: new Date(x.validFrom).toISOString(),
    not_after: new Date(x.validTo).toISOString(),
    serial: x.serialNumber,
    fingerprint256: x.fingerprint256,
  };
}

export async function inspectTls(
  t: TlsTarget,
  deps: ProbeDeps,
  parent: AbortSignal,
  conv: Conversation = {},
): Promise<TlsResult> {
  const started = performance.now();
  const bare = t.host.replace(/^\[|\]$/g, '');
  // An internationalised name is looked up, sent as SNI and matched as its A-label (xn--).
  const host = net.isIP(bare) ? bare : domainToASCII(bare) || bare;
  const { signal, timedOut, done } = deadline(parent, t.timeoutMs);
  try {
    const socket = await openTls({ host, port: t.port }, deps, signal, conv);
    socket.on('error', () => undefined); // a reset after the handshake changes nothing read
    try {
      const peer = socket.getPeerCertificate(true);
      if (!peer || !peer.raw) return { ok: false, reason: 'tls', error: 'tls: the server sent no certificate' };
      const leafX = new crypto.X509Certificate(peer.raw);
      const leaf = certificateInfo(leafX);
      const chain: CertificateInfo[] = [];
      const sent = [{ x: leafX, position: 0, ...leaf }];
      const seen = new Set<string>([peer.fingerprint256]);
      for (let c = peer.issuerCertificate; c && c.raw && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
        seen.add(c.fingerprint256);
        const x = new crypto.X509Certificate(c.raw);
        const info = certificateInfo(x);
        chain.push(info);
        sent.push({ x, position: chain.length, ...info });
      }
      const authErr = socket.authorized
        ? null
        : String(
            (socket.authorizationError as unknown as { code?: string })?.code ?? socket.authorizationError ?? 'UNKNOWN',
          );
      const selfSigned =
        (authErr !== null && SELF_SIGNED_ERRORS.has(authErr) && chain.length === 0) ||
        (leafX.subject === leafX.issuer &&
          leafX.checkIssued(leafX) &&
          leafX.verify(leafX.publicKey) &&
          !socket.authorized);
      // As browsers and Go: only the subjectAltName names hosts (never the common name, which Node
      // still falls back to) and a wildcard is a whole left-most label.
      const match = net.isIP(host)
        ? leafX.checkIP(host) !== undefined
        : leafX.checkHost(host, { subject: 'never', partialWildcards: false }) !== undefined;
      const trusted = authErr === null || NOT_CHAIN_ERRORS.has(authErr);
      const weak = weakness(sent);
      return {
        ok: true,
        leaf,
        chain,
        protocol: socket.getProtocol(),
        trusted,
        self_signed: selfSigned,
        hostname_match: match,
        has_san: leafX.subjectAltName !== undefined,
        authorization_error: authErr,
        authorization_reason: trusted || authErr === null ? null : refusalReason(authErr, sent[0]!, chain.length, weak),
        handshake_ms: Math.round(performance.now() - started),
      };
    } finally {
      closeSession(socket, conv.bye);
    }
  } catch (err) {
    const { reason, detail } = classify(err, parent, timedOut);
    if ((err as { code?: string }).code === 'ERR_SSL_EXCESSIVE_MESSAGE_SIZE')
      return { ok: false, reason: 'tls', error: `tls: ${TOO_LARGE}` };
    return {
      ok: false,
      reason,
      error: `${reason}: ${reason === 'timeout' ? `no handshake within ${t.timeoutMs / 1000} s` : detail}`,
    };
  } finally {
    done();
  }
}
