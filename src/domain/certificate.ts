// Pure certificate rules: ssl_status from an inspection, expiry alert windows, event severities.
import { daysUntil } from './clock.js';

export const SSL_STATUSES = ['valid', 'expiring_soon', 'expired', 'invalid', 'error', 'unknown'] as const;
export type SslStatus = (typeof SSL_STATUSES)[number];

/** Days before expiry at which an `ssl_expiry` event is raised, once per window per certificate. */
const EXPIRY_WINDOWS = [30, 14, 7, 1] as const;
const EXPIRING_SOON_DAYS = 30;

export interface CertificateInfo {
  subject: string;
  issuer: string;
  sans: string[];
  not_before: string;
  not_after: string;
  serial: string;
  fingerprint256: string;
  /** The public key's algorithm (`rsa`, `ec`, `ed25519`, ...) and size in bits (RSA modulus, EC curve). */
  key_type: string | null;
  key_bits: number | null;
}

/** One certificate of the chain a server sent, as stored and shown (leaf first). */
export interface ChainCertificate {
  subject: string;
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
  fingerprint256: string;
  key_type: string | null;
  key_bits: number | null;
}

/** The chain a handshake showed, leaf first, in the stored shape. */
export function chainOf(r: TlsInspection): ChainCertificate[] {
  return [r.leaf, ...r.chain].map((c) => ({
    subject: c.subject,
    issuer: c.issuer,
    serial: c.serial,
    not_before: c.not_before,
    not_after: c.not_after,
    fingerprint256: c.fingerprint256,
    key_type: c.key_type,
    key_bits: c.key_bits,
  }));
}

/** What one TLS handshake showed. */
export interface TlsInspection {
  ok: true;
  leaf: CertificateInfo;
  chain: CertificateInfo[];
  protocol: string | null;
  /** The chain leads to a trusted root (expiry aside: dates are judged with the injectable clock). */
  trusted: boolean;
  self_signed: boolean;
  /** The leaf's subjectAltName names the host (the common name never counts, as in browsers and Go). */
  hostname_match: boolean;
  /** The leaf has a subjectAltName extension at all. */
  has_san: boolean;
  /** OpenSSL's verification error code, when not authorized. */
  authorization_error: string | null;
  /** That error in words a person can act on (incomplete chain, weak signature, small key), when known. */
  authorization_reason: string | null;
  handshake_ms: number;
}

export interface TlsFailure {
  ok: false;
  reason: string;
  error: string;
}

export type TlsResult = TlsInspection | TlsFailure;

/** The certificate of a chain that expires first, and where it sits. */
export interface EarliestExpiry {
  /** 0 for the leaf, then each issuer in the order the chain goes. */
  position: number;
  role: 'leaf' | 'intermediate';
  subject: string;
  not_after: string;
  fingerprint256: string;
}

/**
 * The earliest notAfter of the certificates the server sends (leaf first), as blackbox_exporter's
 * probe_ssl_earliest_cert_expiry: the leaf and its intermediates. A self-signed root ending the chain
 * is left out: a client checks against its own copy of a root, so the copy served changes nothing.
 */
export function earliestExpiry(
  chain: readonly Pick<ChainCertificate, 'subject' | 'issuer' | 'not_after' | 'fingerprint256'>[],
): EarliestExpiry | null {
  let best: EarliestExpiry | null = null;
  chain.forEach((c, i) => {
    if (i > 0 && i === chain.length - 1 && c.subject === c.issuer) return;
    if (best && Date.parse(c.not_after) >= Date.parse(best.not_after)) return;
    best = {
      position: i,
      role: i === 0 ? 'leaf' : 'intermediate',
      subject: c.subject,
      not_after: c.not_after,
      fingerprint256: c.fingerprint256,
    };
  });
  return best;
}

/** The inspection's expiry: the earliest notAfter of the chain it showed. */
export function expiryOf(r: TlsInspection): EarliestExpiry {
  return earliestExpiry([r.leaf, ...r.chain])!;
}

/** Which certificate expires, for a message: "certificate" or "intermediate certificate CN=...". */
export function expiringWhat(e: EarliestExpiry): string {
  return e.role === 'leaf' ? 'certificate' : `intermediate certificate ${e.subject || '(empty subject)'}`;
}

/**
 * valid / expiring_soon (<= 30 days) / expired / invalid (untrusted, self-signed, wrong host) / error.
 * Dates are those of the chain's earliest-expiring certificate.
 */
export function sslStatus(r: TlsResult, now: Date): SslStatus {
  if (!r.ok) return 'error';
  const notAfter = expiryOf(r).not_after;
  if (Date.parse(notAfter) <= now.getTime()) return 'expired';
  if (Date.parse(r.leaf.not_before) > now.getTime()) return 'invalid';
  if (!r.trusted || r.self_signed || !r.hostname_match) return 'invalid';
  if (daysUntil(notAfter, now) <= EXPIRING_SOON_DAYS) return 'expiring_soon';
  return 'valid';
}

/** Why a certificate is invalid, in words (null when it is not). */
export function invalidReason(r: TlsInspection): string | null {
  if (r.self_signed) return 'self-signed certificate';
  if (!r.trusted)
    return r.authorization_reason ?? `untrusted chain${r.authorization_error ? ` (${r.authorization_error})` : ''}`;
  if (!r.hostname_match && !r.has_san)
    return 'the certificate has no subjectAltName: browsers and Go no longer accept a host named only in the common name (since 2017); reissue it with the host in its subjectAltName';
  if (!r.hostname_match) return 'certificate does not match the host name';
  return null;
}

/** The smallest alert window the certificate is in (30, 14, 7, 1), or null outside all of them or once expired. */
export function expiryWindow(notAfter: string, now: Date): number | null {
  const days = daysUntil(notAfter, now);
  if (days < 0 || Date.parse(notAfter) <= now.getTime()) return null;
  let w: number | null = null;
  for (const x of EXPIRY_WINDOWS) if (days <= x) w = x;
  return w;
}

export function windowSeverity(window: number): 'critical' | 'high' | 'medium' {
  return window <= 1 ? 'critical' : window <= 7 ? 'high' : 'medium';
}

/** How bad a certificate status is, for a summary of several: error worst, unknown least. */
const SSL_RANK: Record<string, number> = { error: 5, invalid: 4, expired: 4, expiring_soon: 3, valid: 1, unknown: 0 };

/**
 * A domain's certificate summary from its endpoints' certificates: the worst status and the soonest
 * expiry of those that carry one (`carries`: a status other than unknown, or a type that always has a
 * certificate). Null status when none does. The status route and the dashboard both show this.
 */
export function certificateSummary(certs: readonly { status: string; expiry: string | null; carries: boolean }[]): {
  status: string | null;
  soonest: string | null;
} {
  const held = certs.filter((c) => c.carries);
  const status = held.reduce<string | null>(
    (w, c) => (w === null || (SSL_RANK[c.status] ?? 0) > (SSL_RANK[w] ?? 0) ? c.status : w),
    null,
  );
  const soonest =
    held
      .map((c) => c.expiry)
      .filter((x): x is string => !!x)
      .sort()[0] ?? null;
  return { status, soonest };
}

/** An endpoint's TLS inspection state: the latest certificate seen, its checks and when it is next looked at. */
export interface CertificateState {
  endpoint_id: string;
  ssl_status: SslStatus;
  subject: string | null;
  issuer: string | null;
  sans: string[];
  not_before: string | null;
  /** The earliest notAfter of the chain the server sent (earliestExpiry); the leaf's own is `chain[0].not_after`. */
  not_after: string | null;
  serial: string | null;
  fingerprint256: string | null;
  protocol: string | null;
  trusted: boolean | null;
  hostname_match: boolean | null;
  error: string | null;
  alerted_window: number | null;
  checked_at: string | null;
  next_check_at: string | null;
  /** The chain the server sent, leaf first (empty: never inspected since migration 012, or no handshake yet). */
  chain: ChainCertificate[];
}
