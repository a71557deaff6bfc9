// Domain health: a 0-100 score from four inputs, its letter grade and the overall status.
// Pure functions; services/health.ts gathers the inputs and stores the result.
import { daysUntil } from './clock.js';

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
}

export type OverallStatus = 'healthy' | 'warning' | 'critical';
export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

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
  if (weight === 0) return { score: null, grade: null, overall_status: null, components };
  const score = Math.round(sum / weight);
  return { score, grade: gradeFor(score), overall_status: overallStatus(score, i, now), components };
}
