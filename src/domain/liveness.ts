// Pure liveness rules: state transitions (down after N failures, recovery), stats health, result ids.

export interface CheckOutcome {
  ok: boolean;
  responseTimeMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface LivenessState {
  status: 'up' | 'down' | null;
  consecutive_failures: number;
  last_check: string | null;
  last_check_successful: boolean | null;
  response_time_ms: number | null;
  status_code: number | null;
  last_error: string | null;
  /** A down alert was sent and no recovery yet. */
  alerted_down: boolean;
}

export const INITIAL_STATE: LivenessState = {
  status: null,
  consecutive_failures: 0,
  last_check: null,
  last_check_successful: null,
  response_time_ms: null,
  status_code: null,
  last_error: null,
  alerted_down: false,
};

type LivenessTransition = 'down' | 'recovery' | null;

/** Applies one probe result: down once failures reach the threshold, recovery on the first success after. */
export function applyOutcome(
  prev: LivenessState,
  o: CheckOutcome,
  at: string,
  threshold: number,
): { next: LivenessState; event: LivenessTransition } {
  const failures = o.ok ? 0 : prev.consecutive_failures + 1;
  const down = failures >= Math.max(1, threshold);
  let event: LivenessTransition = null;
  let alerted = prev.alerted_down;
  if (down && !alerted) {
    event = 'down';
    alerted = true;
  } else if (o.ok && alerted) {
    event = 'recovery';
    alerted = false;
  }
  return {
    next: {
      status: down ? 'down' : o.ok || prev.status !== 'down' ? 'up' : 'down',
      consecutive_failures: failures,
      last_check: at,
      last_check_successful: o.ok,
      response_time_ms: o.responseTimeMs,
      status_code: o.statusCode,
      last_error: o.error,
      alerted_down: alerted,
    },
    event,
  };
}

/**
 * Stats health: critical when the endpoint is down now or success < 95 %, warning under 99 %,
 * otherwise healthy (documented in docs/http-api.md, "Rules worth knowing").
 */
export function statsHealth(
  successRate: number | null,
  consecutiveFailures: number,
  threshold: number,
): 'healthy' | 'warning' | 'critical' {
  if (consecutiveFailures >= Math.max(1, threshold)) return 'critical';
  if (successRate === null) return 'healthy';
  if (successRate < 95) return 'critical';
  if (successRate < 99) return 'warning';
  return 'healthy';
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
export const dayString = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** First hourly bucket of the 24 h uptime at `ms`: the current hour and the 23 before it. */
export const first24hBucket = (ms: number): number => hourOf(ms) - 23;
/** First daily bucket of the 7 d uptime at `ms`: today and the 6 days before. */
export const first7dBucket = (ms: number): number => dayOf(ms) - 6;
/** First daily bucket of the 30 d uptime at `ms`: today and the 29 days before. */
export const first30dBucket = (ms: number): number => dayOf(ms) - 29;

/** Results are keyed (config seq, time); their public id is a UUID (version 8) built from both. */
export function resultId(seq: number, ts: number): string {
  const s = seq.toString(16).padStart(8, '0').slice(-8);
  const t = ts.toString(16).padStart(12, '0').slice(-12);
  return `${s}-0000-8000-8000-${t}`;
}

export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Share of successful checks in percent (two decimals), or null when there were none. */
export const uptimePercent = (s: { total: number; ok: number } | undefined): number | null =>
  s?.total ? round2((s.ok / s.total) * 100) : null;

/** Checks in an aggregate bucket or a span of them: how many, how many succeeded, their summed response time (ms). */
export interface Sums {
  total: number;
  ok: number;
  sum_ms: number;
}
