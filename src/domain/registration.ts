// Registration (RDAP/WHOIS) data as services see it, and the pure rules around it: lookup outcomes,
// expiry alert windows, refresh cadence, change detection (dates are read by registry-dates.ts).
import { daysUntil } from './clock.js';

export const REGISTRATION_SOURCES = ['rdap', 'whois'] as const;
export type RegistrationSource = (typeof REGISTRATION_SOURCES)[number];

/** unknown: never looked up; ok: last lookup answered; error: last lookup failed (reason says why); unsupported: nobody to ask. */
export const REGISTRATION_STATES = ['unknown', 'ok', 'error', 'unsupported'] as const;
export type RegistrationState = (typeof REGISTRATION_STATES)[number];

export interface RegistrationData {
  registrar: string | null;
  /** YYYY-MM-DD */
  expiry_date: string | null;
  creation_date: string | null;
  updated_date: string | null;
  nameservers: string[];
  /** EPP status codes in camelCase (clientTransferProhibited, ...). */
  statuses: string[];
  transfer_lock: boolean | null;
  dnssec_signed: boolean | null;
}

export type LookupOutcome =
  /** reason: said when the answer is read but lacks something ("the .de registry publishes no expiry date"). */
  | { kind: 'ok'; source: RegistrationSource; server: string; data: RegistrationData; reason?: string }
  | { kind: 'not_found'; source: RegistrationSource; server: string; reason: string }
  | { kind: 'rate_limited'; source: RegistrationSource; server: string; reason: string; retryAfterMs: number | null }
  | { kind: 'error'; source: RegistrationSource; server: string; reason: string }
  | { kind: 'unsupported'; reason: string };

export interface Registration extends RegistrationData {
  domain_id: string;
  source: RegistrationSource | null;
  state: RegistrationState;
  reason: string | null;
  checked_at: string | null;
  next_check_at: string | null;
}

export const EMPTY_REGISTRATION: RegistrationData = {
  registrar: null,
  expiry_date: null,
  creation_date: null,
  updated_date: null,
  nameservers: [],
  statuses: [],
  transfer_lock: null,
  dnssec_signed: null,
};

/** True when a registry answer was ever read into these fields. */
export function hasRegistrationData(r: RegistrationData): boolean {
  return !!(r.expiry_date || r.registrar || r.creation_date || r.nameservers.length || r.statuses.length);
}

/**
 * Stale: the last look-up failed (network error, rate limit, ...) and the fields shown are the ones
 * an earlier look-up read, as of `checked_at`; a failed look-up never clears what was known.
 */
export function isStale(r: Pick<Registration, 'state'> & RegistrationData): boolean {
  return r.state !== 'ok' && hasRegistrationData(r);
}

/** "client transfer prohibited" / "clientTransferProhibited https://icann.org/epp#..." -> clientTransferProhibited */
export function normalizeStatus(s: string): string {
  const first = s
    .trim()
    .split(/\s+(?=https?:|\()/)[0]!
    .trim();
  if (!first.includes(' ')) return first;
  const words = first.toLowerCase().split(/\s+/);
  return (
    words[0] +
    words
      .slice(1)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('')
  );
}

const EPP_STATUS = /^(ok|active|inactive|pending[A-Za-z]+|[a-zA-Z]+Period|(client|server)[A-Za-z]+(Prohibited|Hold))$/i;

/** True/false from EPP status codes; null when the registry shows none (DENIC's "connect", no data). */
export function hasTransferLock(statuses: string[]): boolean | null {
  if (!statuses.some((s) => EPP_STATUS.test(s))) return null;
  return statuses.some((s) => /^(client|server)TransferProhibited$/i.test(s));
}

/** Domain renewal alert windows (days before expiry); 0 is "expired". */
const EXPIRY_WINDOWS = [60, 30, 15] as const;
type ExpiryWindow = (typeof EXPIRY_WINDOWS)[number] | 0;

/** The tightest window the expiry date is in, or null when it is further away than 60 days. */
export function expiryWindow(expiry: string, now: Date): ExpiryWindow | null {
  const days = daysUntil(expiry, now);
  if (days < 0) return 0;
  for (const w of [...EXPIRY_WINDOWS].sort((a, b) => a - b)) if (days <= w) return w;
  return null;
}

export const WINDOW_SEVERITY: Record<ExpiryWindow, string> = {
  60: 'medium',
  30: 'high',
  15: 'critical',
  0: 'critical',
};

/**
 * Seconds until the next registration refresh: the configured interval, shortened as expiry nears
 * (half within 60 days, a quarter within 30, an eighth within 7 or once expired), never under
 * 10 minutes unless the interval itself is shorter. Failures retry sooner (Retry-After wins).
 */
export function registrationCadence(
  intervalSec: number,
  state: RegistrationState,
  expiry: string | null,
  now: Date,
  retryAfterMs: number | null = null,
): number {
  const floor = Math.min(intervalSec, 600);
  if (retryAfterMs !== null) return Math.max(1, Math.ceil(retryAfterMs / 1000));
  if (state === 'error') return Math.max(floor, Math.min(intervalSec, 3600));
  if (state === 'unsupported' || !expiry) return intervalSec;
  const days = daysUntil(expiry, now);
  const factor = days > 60 ? 1 : days > 30 ? 2 : days > 7 ? 4 : 8;
  return Math.max(floor, Math.round(intervalSec / factor));
}

export interface RegistrationChange {
  field: 'registrar' | 'nameservers' | 'expiry_date' | 'transfer_lock';
  old_value: string | null;
  new_value: string | null;
}

/** What changed between two successful lookups (first data is not a change). */
export function registrationChanges(prev: RegistrationData, next: RegistrationData): RegistrationChange[] {
  const out: RegistrationChange[] = [];
  const ns = (x: string[]) => (x.length ? [...x].sort().join(',') : null);
  if (prev.registrar && next.registrar && prev.registrar !== next.registrar)
    out.push({ field: 'registrar', old_value: prev.registrar, new_value: next.registrar });
  if (prev.nameservers.length && next.nameservers.length && ns(prev.nameservers) !== ns(next.nameservers)) {
    out.push({ field: 'nameservers', old_value: ns(prev.nameservers), new_value: ns(next.nameservers) });
  }
  if (prev.expiry_date && next.expiry_date && prev.expiry_date !== next.expiry_date)
    out.push({ field: 'expiry_date', old_value: prev.expiry_date, new_value: next.expiry_date });
  if (prev.transfer_lock !== null && next.transfer_lock !== null && prev.transfer_lock !== next.transfer_lock) {
    out.push({ field: 'transfer_lock', old_value: String(prev.transfer_lock), new_value: String(next.transfer_lock) });
  }
  return out;
}

export function changeMessage(domain: string, c: RegistrationChange): { message: string; severity: string } {
  switch (c.field) {
    case 'registrar':
      return { message: `${domain}: registrar changed from ${c.old_value} to ${c.new_value}`, severity: 'high' };
    case 'nameservers':
      return { message: `${domain}: nameservers changed from ${c.old_value} to ${c.new_value}`, severity: 'high' };
    case 'expiry_date':
      return (c.new_value ?? '') > (c.old_value ?? '')
        ? {
            message: `${domain}: renewed, registration now expires on ${c.new_value} (was ${c.old_value})`,
            severity: 'info',
          }
        : { message: `${domain}: registration expiry moved from ${c.old_value} to ${c.new_value}`, severity: 'medium' };
    case 'transfer_lock':
      return c.new_value === 'true'
        ? { message: `${domain}: transfer lock turned on`, severity: 'info' }
        : { message: `${domain}: transfer lock turned OFF; the domain can now be transferred away`, severity: 'high' };
  }
}
