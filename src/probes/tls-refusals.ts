// Why OpenSSL refused a chain, in words a person can act on: Node names many refusals only
// `UNSPECIFIED` (a signature made with MD5 or SHA-1, a key under the security level), and "unable to
// verify the first certificate" most often means the server leaves out its intermediate.
import type crypto from 'node:crypto';

/** Signature algorithms OpenSSL's default security level refuses in a chain, by OID. */
const WEAK_SIGNATURES: Record<string, string> = {
  '1.2.840.113549.1.1.2': 'MD2',
  '1.2.840.113549.1.1.3': 'MD4',
  '1.2.840.113549.1.1.4': 'MD5',
  '1.2.840.113549.1.1.5': 'SHA-1',
  '1.2.840.10045.4.1': 'SHA-1',
  '1.2.840.10040.4.3': 'SHA-1',
  '1.3.14.3.2.29': 'SHA-1',
};

/** RSA and DSA keys under this many bits fail OpenSSL's default security level (1, 80 bits). */
const MIN_RSA_BITS = 1024;

/** One DER element at `off`: its tag and where its content starts and ends. */
function element(der: Buffer, off: number): { tag: number; start: number; end: number } {
  const tag = der[off]!;
  let len = der[off + 1]!;
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 4) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i]!;
    start += n;
  }
  if (start + len > der.length) throw new Error('truncated DER');
  return { tag, start, end: start + len };
}

/** The OID of the certificate's signatureAlgorithm (Certificate ::= SEQUENCE { tbs, signatureAlgorithm, ... }). */
function signatureOid(der: Buffer): string | null {
  try {
    const cert = element(der, 0);
    const tbs = element(der, cert.start);
    const alg = element(der, tbs.end);
    const oid = element(der, alg.start);
    if (oid.tag !== 0x06 || oid.end <= oid.start) return null;
    const bytes = der.subarray(oid.start, oid.end);
    const parts = [Math.min(2, Math.floor(bytes[0]! / 40)), bytes[0]! - 40 * Math.min(2, Math.floor(bytes[0]! / 40))];
    let v = 0;
    for (const b of bytes.subarray(1)) {
      v = v * 128 + (b & 0x7f);
      if (!(b & 0x80)) {
        parts.push(v);
        v = 0;
      }
    }
    return parts.join('.');
  } catch {
    return null;
  }
}

interface Sent {
  x: crypto.X509Certificate;
  /** 0 for the leaf. */
  position: number;
  subject: string;
  key_type: string | null;
  key_bits: number | null;
}

const role = (c: Sent) =>
  c.position === 0 ? 'the certificate' : `the intermediate certificate ${c.subject || '(empty subject)'}`;

/** A weak signature or key in the chain the server sent (its self-signed root aside), in words; null when none. */
export function weakness(certs: readonly Sent[]): string | null {
  for (const c of certs) {
    if (c.position > 0 && c.x.checkIssued(c.x)) continue; // a root: the client's own copy is what counts
    const alg = WEAK_SIGNATURES[signatureOid(c.x.raw) ?? ''];
    if (alg)
      return `${role(c)} is signed with ${alg}, which browsers and TLS libraries refuse; reissue it with SHA-256`;
    if ((c.key_type === 'rsa' || c.key_type === 'dsa') && c.key_bits !== null && c.key_bits < MIN_RSA_BITS)
      return `${role(c)} has a ${c.key_bits}-bit ${c.key_type.toUpperCase()} key, too small for browsers and TLS libraries; use at least 2048 bits`;
  }
  return null;
}

/** Words for OpenSSL's verification error, when they can say more than its code; null otherwise. */
export function refusalReason(code: string, leaf: Sent, sentIssuers: number, weak: string | null): string | null {
  if (weak && (code === 'UNSPECIFIED' || code.includes('TOO_WEAK') || code.includes('TOO_SMALL'))) return weak;
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' && sentIssuers === 0 && !leaf.x.checkIssued(leaf.x)) {
    const issuer = leaf.x.issuer ? leaf.x.issuer.split('\n').join(', ') : 'unnamed';
    // A certificate that says where its issuer is published (AIA caIssuers, as every public CA's do) lacks
    // only the intermediate the server should send; without one it is most likely from a private CA.
    return /CA Issuers/i.test(leaf.x.infoAccess ?? '')
      ? `incomplete chain: the server does not send its intermediate certificate (the issuer of its certificate, ${issuer}); browsers may still fetch it, API clients and curl fail`
      : `untrusted issuer: the server sends no intermediate and its certificate's issuer (${issuer}) is not a trusted root: a private CA, or an intermediate the server should send`;
  }
  if (code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY')
    return 'untrusted chain: the last certificate the server sends is not issued by a trusted root (a missing intermediate or a private CA)';
  return weak;
}
