// The registry of `dommon check` checks: one function per kind, the compiler checks every kind has one.
//
// TODO(lead, after merging the probing and intel branches):
//   - registration: look up RDAP (src/probes/rdap.ts), fall back to WHOIS (src/probes/whois.ts);
//     grade days until registry expiry with the same warnDays/critDays.
//   - dns-security: SPF/DMARC/DKIM/CAA/DNSSEC via src/probes/dns.ts (honours DOMMON_DNS_SERVERS).
//   - tls and liveness: swap the minimal node:tls/http/net code in ./tls.ts and ./liveness.ts for
//     src/probes/tls.ts, http.ts and tcp.ts; keep the grading and the CheckResult shape.
import type { CheckFn, CheckKind } from './types.js';
import { tlsCheck } from './tls.js';
import { livenessCheck } from './liveness.js';

const notYet = (check: CheckKind, what: string): CheckFn => async (target) =>
  target.domain ? { check, status: 'skipped', summary: `${what} is not available in this build yet`, details: {} } : null;

export const CHECKS = {
  registration: notYet('registration', 'registration (RDAP/WHOIS) lookup'),
  tls: tlsCheck,
  'dns-security': notYet('dns-security', 'DNS security (SPF, DMARC, DKIM, CAA, DNSSEC)'),
  liveness: livenessCheck,
} satisfies Record<CheckKind, CheckFn>;

export * from './types.js';
