// Domain health: a 0-100 score from four inputs, its letter grade and the overall status.
// Pure functions; services/health.ts gathers the inputs and stores the result.
import { daysUntil } from './clock.js';
import { partsScore, type SecurityPart } from './security.js';

/** Weight of each input; an input that is unknown is left out and the others are scaled up to 100. */
export const HEALTH_WEIGHTS = { registration: 30, certificates: 30, security: 25, liveness: 15 } as const;

export interface HealthInputs {
  /** Effective registration expiry (manual override or registry), YYYY-MM-DD; null when unknown. */
  expiry_date: string | null;
  /** ssl_status of each checked endpoint certificate (valid, expiring_soon, expired, invalid, error, unknown). */
  certificates: string[];
  /** 0-100 DNS security score; null before the first security check. */
  security_score: number | null;
  /** Liveness of each enabled configuration: current status and 24 h uptime (percent). */
  liveness: { status: 'up' | 'down' | 'unknown'; uptime_24h: number | null }[];
  /** Why the registration expiry is unknown (the last look-up's reason), for the reasons. */
  registration_cause?: string | null;
  /** The checks behind security_score (securityParts of the stored check), for the reasons; null: not known. */
  security_parts?: SecurityPart[] | null;
}

export type OverallStatus = 'healthy' | 'warning' | 'critical';
export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

/** What a grade reads: the four inputs, or in place of `security` each DNS-security check. */
type HealthReasonInput = 'registration' | 'certificates' | 'liveness' | 'security' | SecurityPart['check'];

/** One input of a grade: how it stands, whether the score counted it and the points it cost. */
export interface HealthReason {
  input: HealthReasonInput;
  /** ok, warning, bad, or unknown (nothing known now: left out, or counted from its last known result). */
  status: 'ok' | 'warning' | 'bad' | 'unknown';
  /** False: left out of the score (unknown); the others are scaled up to 100. */
  counted: boolean;
  /** Points of 100 this input cost: the score is 100 minus the sum over every reason (0 when the score is null). */
  points_lost: number;
  /** One sentence: the state, and for an unknown input its cause. */
  reason: string;
}

export interface HealthResult {
  score: number | null;
  grade: Grade | null;
  overall_status: OverallStatus | null;
  /** Per-input sub-scores (0-100, null when unknown), for the API's detail. */
  components: {
    registration: number | null;
    certificates: number | null;
    security: number | null;
    liveness: number | null;
  };
  /** Every input, in a fixed order: why the score is what it is (or unknown). */
  reasons: HealthReason[];
}

/** Registration sub-score by days left: >60: 100, 31-60: 75, 15-30: 50, 1-14: 20, expired: 0. */
export function registrationScore(expiry: string | null, now: Date): number | null {
  if (!expiry) return null;
  const days = daysUntil(expiry, now);
  if (days < 0) return 0;
  if (days <= 14) return 20;
  if (days <= 30) return 50;
  if (days <= 60) return 75;
  return 100;
}

const CERT_POINTS: Record<string, number> = { valid: 100, expiring_soon: 50, expired: 0, invalid: 0, error: 0 };

/** Certificate sub-score: the worst checked certificate decides (unknown ones are ignored). */
function certificateScore(statuses: string[]): number | null {
  const known = statuses.map((s) => CERT_POINTS[s]).filter((p): p is number => p !== undefined);
  return known.length ? Math.min(...known) : null;
}

/** Liveness sub-score: 0 when any probe is down, else the lowest 24 h uptime mapped 90 % -> 0 .. 100 % -> 100. */
export function livenessScore(l: HealthInputs['liveness']): number | null {
  if (l.some((x) => x.status === 'down')) return 0;
  const uptimes = l.map((x) => x.uptime_24h).filter((u): u is number => u !== null);
  if (!uptimes.length) return null;
  const worst = Math.min(...uptimes);
  return Math.max(0, Math.min(100, Math.round((worst - 90) * 10)));
}

/** A 80-100, B 60-79, C 40-59, D 20-39, F under 20. */
export function gradeFor(score: number): Grade {
  if (score >= 80) return 'A';
  if (score >= 60) return 'B';
  if (score >= 40) return 'C';
  if (score >= 20) return 'D';
  return 'F';
}

/**
 * critical: registration expired or within 7 days, a certificate expired/invalid/unreachable, a
 * liveness probe down, or a score under 40; warning: registration within 30 days, a certificate
 * expiring soon, uptime under 99 % or a score under 80; healthy otherwise.
 */
function overallStatus(score: number, i: HealthInputs, now: Date): OverallStatus {
  const days = i.expiry_date ? daysUntil(i.expiry_date, now) : null;
  const certBad = i.certificates.some((s) => s === 'expired' || s === 'invalid' || s === 'error');
  const down = i.liveness.some((x) => x.status === 'down');
  if ((days !== null && days <= 7) || certBad || down || score < 40) return 'critical';
  const lowUptime = i.liveness.some((x) => x.uptime_24h !== null && x.uptime_24h < 99);
  if ((days !== null && days <= 30) || i.certificates.includes('expiring_soon') || lowUptime || score < 80)
    return 'warning';
  return 'healthy';
}

const SECURITY_NAMES: Record<SecurityPart['check'], string> = {
  spf: 'SPF',
  dmarc: 'DMARC',
  dkim: 'DKIM',
  caa: 'CAA',
  dnssec: 'DNSSEC',
  transfer_lock: 'transfer lock',
};

const level = (sub: number): HealthReason['status'] => (sub >= 100 ? 'ok' : sub <= 20 ? 'bad' : 'warning');

function registrationReason(i: HealthInputs, sub: number | null, now: Date): Omit<HealthReason, 'points_lost'> {
  if (sub === null || !i.expiry_date)
    return {
      input: 'registration',
      status: 'unknown',
      counted: false,
      reason: `registration expiry unknown (${i.registration_cause ?? 'no registry date and no manual date yet'}); left out of the score`,
    };
  const days = daysUntil(i.expiry_date, now);
  const when = days < 0 ? `expired ${-days} day(s) ago` : `expires in ${days} day(s)`;
  return {
    input: 'registration',
    status: level(sub),
    counted: true,
    reason: `registration ${when} (${i.expiry_date})`,
  };
}

function certificateReason(i: HealthInputs, sub: number | null): Omit<HealthReason, 'points_lost'> {
  const known = i.certificates.filter((s) => CERT_POINTS[s] !== undefined);
  if (sub === null)
    return {
      input: 'certificates',
      status: 'unknown',
      counted: false,
      reason: i.certificates.length
        ? `no certificate could be checked yet (${i.certificates.length} endpoint(s), status unknown); left out of the score`
        : 'no endpoint certificate checked yet; left out of the score',
    };
  const worst = known.reduce((a, s) => (CERT_POINTS[s]! < CERT_POINTS[a]! ? s : a), known[0]!);
  const bad = known.filter((s) => CERT_POINTS[s] === CERT_POINTS[worst]).length;
  return {
    input: 'certificates',
    status: level(sub),
    counted: true,
    reason:
      sub >= 100
        ? `all ${known.length} certificate(s) valid`
        : `${bad} of ${known.length} certificate(s) ${worst.replace('_', ' ')}`,
  };
}

function livenessReason(i: HealthInputs, sub: number | null): Omit<HealthReason, 'points_lost'> {
  if (sub === null)
    return {
      input: 'liveness',
      status: 'unknown',
      counted: false,
      reason: 'no liveness result in the last 24 h; left out of the score',
    };
  const down = i.liveness.filter((x) => x.status === 'down').length;
  if (down) return { input: 'liveness', status: 'bad', counted: true, reason: `${down} liveness check(s) down` };
  const worst = Math.min(...i.liveness.map((x) => x.uptime_24h).filter((u): u is number => u !== null));
  return {
    input: 'liveness',
    status: level(sub),
    counted: true,
    reason: `lowest 24 h uptime ${Math.round(worst * 100) / 100} %`,
  };
}

function partReason(p: SecurityPart): Omit<HealthReason, 'points_lost'> {
  const name = SECURITY_NAMES[p.check];
  const warned = (p.warnings ?? []).map((w) => `; warning: ${w}`).join('');
  if (p.status === 'pass')
    return {
      input: p.check,
      status: 'ok',
      counted: true,
      reason: p.check === 'transfer_lock' ? 'transfer lock on' : `${name} pass${warned}`,
    };
  if (p.status === 'fail')
    return { input: p.check, status: 'bad', counted: true, reason: `${name} fail: ${p.cause}${warned}` };
  if (p.counted)
    return {
      input: p.check,
      status: 'unknown',
      counted: true,
      reason: `${name} unknown now (${p.cause}); its last known result (${p.counted}${p.since ? ` on ${p.since.slice(0, 10)}` : ''}) is counted`,
    };
  return {
    input: p.check,
    status: 'unknown',
    counted: false,
    reason: `${name} unknown (${p.cause}); left out of the score`,
  };
}

/** Whole points of `total` shared by `parts` (largest remainder), so that they add up exactly. */
function apportion(parts: number[], total: number): number[] {
  const out = parts.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = parts.map((p, k) => [p - Math.floor(p), k] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [frac, k] of order) {
    if (left <= 0) break;
    if (frac > 0 || parts[k]! > 0) {
      out[k]!++;
      left--;
    }
  }
  return out;
}

export function computeHealth(i: HealthInputs, now: Date): HealthResult {
  const components = {
    registration: registrationScore(i.expiry_date, now),
    certificates: certificateScore(i.certificates),
    security: i.security_score === null ? null : Math.max(0, Math.min(100, Math.round(i.security_score))),
    liveness: livenessScore(i.liveness),
  };
  let weight = 0;
  let sum = 0;
  for (const k of Object.keys(HEALTH_WEIGHTS) as (keyof typeof HEALTH_WEIGHTS)[]) {
    const v = components[k];
    if (v === null) continue;
    weight += HEALTH_WEIGHTS[k];
    sum += HEALTH_WEIGHTS[k] * v;
  }
  const score = weight === 0 ? null : Math.round(sum / weight);
  // Points each input cost of 100 (exact), then in whole points that add up to 100 - score.
  const lost = (k: keyof typeof HEALTH_WEIGHTS) =>
    score === null || components[k] === null ? 0 : (HEALTH_WEIGHTS[k] * (100 - components[k]!)) / weight;
  const reasons: Omit<HealthReason, 'points_lost'>[] = [
    registrationReason(i, components.registration, now),
    certificateReason(i, components.certificates),
    livenessReason(i, components.liveness),
  ];
  const exact = [lost('registration'), lost('certificates'), lost('liveness')];
  const parts = i.security_parts ?? null;
  // The parts explain the score only when they give it (a stored score always came from its parts).
  if (parts && partsScore(parts) === components.security) {
    const failing = parts.filter((p) => p.counted === 'fail');
    const failWeight = failing.reduce((a, p) => a + p.weight, 0);
    for (const p of parts) {
      const r = partReason(p);
      // Without a DNS result the security input is left out, the transfer lock with it.
      reasons.push(
        components.security === null && r.counted
          ? { ...r, counted: false, reason: `${r.reason}; left out with the DNS checks (it alone makes no score)` }
          : r,
      );
      exact.push(p.counted === 'fail' && failWeight ? (lost('security') * p.weight) / failWeight : 0);
    }
  } else {
    reasons.push(
      components.security === null
        ? {
            input: 'security',
            status: 'unknown',
            counted: false,
            reason: 'no DNS-security result yet (every look-up failed, or none was made); left out of the score',
          }
        : {
            input: 'security',
            status: level(components.security),
            counted: true,
            reason: `DNS-security score ${components.security}/100`,
          },
    );
    exact.push(lost('security'));
  }
  const points = apportion(exact, score === null ? 0 : 100 - score);
  const withPoints = reasons.map((r, k) => ({ ...r, points_lost: points[k]! }));
  if (score === null) return { score: null, grade: null, overall_status: null, components, reasons: withPoints };
  return {
    score,
    grade: gradeFor(score),
    overall_status: overallStatus(score, i, now),
    components,
    reasons: withPoints,
  };
}

/** One line for people: "B (72): DMARC fail -20, ..." or why the grade is unknown. */
export function healthLine(h: Pick<HealthResult, 'score' | 'grade' | 'reasons'>): string {
  if (h.score === null || h.grade === null) return 'health unknown: nothing could be checked yet';
  const costs = h.reasons.filter((r) => r.points_lost > 0).map((r) => `${r.reason} -${r.points_lost}`);
  const out = h.reasons.filter((r) => !r.counted).map((r) => r.input.replace('_', ' '));
  return (
    `health ${h.score} (${h.grade})` +
    (costs.length ? `: ${costs.join('; ')}` : '') +
    (out.length ? `; unknown, left out: ${out.join(', ')}` : '')
  );
}
