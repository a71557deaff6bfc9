// Pure rules of `dommon check`: how each check's result grades against the thresholds, and the
// exit code of a run (0 healthy, 1 warning, 2 critical; the worst target decides).
import type { SslStatus } from './certificate.js';
import type { LookupOutcome } from './registration.js';

export const CHECK_KINDS = ['registration', 'tls', 'dns-security', 'liveness'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Ordered from best to worst; `skipped` never changes the exit code. */
export const SEVERITIES = ['skipped', 'ok', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Thresholds {
  /** Warning when a registration or certificate expires within this many days. */
  warnDays: number;
  /** Critical within this many days (and once expired). */
  critDays: number;
  /** Warning when the DNS security score (0-100) is below this. */
  minSecurity: number;
}

export function worst(list: Severity[]): Severity {
  return list.reduce<Severity>((w, s) => (SEVERITIES.indexOf(s) > SEVERITIES.indexOf(w) ? s : w), 'skipped');
}

export function exitCode(s: Severity): 0 | 1 | 2 {
  return s === 'critical' ? 2 : s === 'warning' ? 1 : 0;
}

/** Days left until an expiry: within critDays (or past) critical, within warnDays warning. */
export function expirySeverity(days: number, t: Pick<Thresholds, 'warnDays' | 'critDays'>): Severity {
  if (days <= t.critDays) return 'critical';
  if (days <= t.warnDays) return 'warning';
  return 'ok';
}

/** The daemon's ssl_status first (expired, invalid, error are critical), then the days left. */
export function tlsSeverity(
  status: SslStatus,
  days: number | null,
  t: Pick<Thresholds, 'warnDays' | 'critDays'>,
): Severity {
  if (status === 'expired' || status === 'invalid' || status === 'error') return 'critical';
  if (days === null) return 'warning';
  return expirySeverity(days, t);
}

/** Outcome of the RDAP/WHOIS look-up. */
type LookupKind = LookupOutcome['kind'];

/**
 * Registration: a name the registry does not know is critical (lapsed or never registered); a failed
 * look-up is a warning (nothing known); no RDAP/WHOIS service for the TLD is skipped; otherwise the
 * days until the registry expiry date decide (no published date: ok).
 */
export function registrationSeverity(
  kind: LookupKind,
  days: number | null,
  t: Pick<Thresholds, 'warnDays' | 'critDays'>,
): Severity {
  if (kind === 'unsupported') return 'skipped';
  if (kind === 'not_found') return 'critical';
  if (kind !== 'ok') return 'warning';
  return days === null ? 'ok' : expirySeverity(days, t);
}

/**
 * DNS security is hygiene, not an outage: a score below the minimum is a warning, never critical;
 * no score (every DNS look-up failed) is a warning too: nothing is known, nothing failed.
 */
export function securitySeverity(score: number | null, t: Pick<Thresholds, 'minSecurity'>): Severity {
  return score === null || score < t.minSecurity ? 'warning' : 'ok';
}

/**
 * Liveness: up when the probe succeeded; without an expected status asked for, any 2xx or 3xx
 * answer counts as up too (a bare domain often redirects to www or to a login page).
 */
export function livenessUp(
  o: { ok: boolean; reason: string | null; statusCode: number | null },
  expectedStatus: number | null,
): boolean {
  if (o.ok) return true;
  return (
    expectedStatus === null &&
    o.reason === 'status' &&
    o.statusCode !== null &&
    o.statusCode >= 200 &&
    o.statusCode < 400
  );
}
