// Pure liveness rules: state transitions (down after N failures, recovery), stats health, result ids.

/**
 * What an icmp check's echo requests saw (ping's summary): requests sent and replies received, the
 * share lost (whole percent), and the round trips of the replies in milliseconds (null when none
 * came back; `rtt_mdev_ms` also when the ping program prints no spread, as BusyBox's does not).
 */
export interface IcmpStats {
  packets_sent: number;
  packets_received: number;
  loss_percent: number;
  rtt_min_ms: number | null;
  rtt_avg_ms: number | null;
  rtt_max_ms: number | null;
  rtt_mdev_ms: number | null;
}

/** An icmp result's numbers in one line: `2/3 replies, 33.33 % lost, min/avg/max 0.025/0.041/0.062 ms`. */
export function echoSummary(s: IcmpStats): string {
  const counts = `${s.packets_received}/${s.packets_sent} replies, ${s.loss_percent} % lost`;
  return s.rtt_avg_ms === null ? counts : `${counts}, min/avg/max ${s.rtt_min_ms}/${s.rtt_avg_ms}/${s.rtt_max_ms} ms`;
}

/** The numbers a check type records beside a result's status and time, one key per type that has some. */
export interface ResultDetail {
  icmp?: IcmpStats;
}

export interface CheckOutcome {
  ok: boolean;
  responseTimeMs: number;
  statusCode: number | null;
  error: string | null;
  /** Numbers of the check's own type, kept with the result (an icmp check's loss and round trips). */
  detail?: ResultDetail;
  /** The check asks to run next at this time (epoch ms) instead of one interval on: a push endpoint's deadline. */
  nextCheckAt?: number;
  /** How long after the check's start its first packet went out to the target (ms; ProbeOutcome's). */
  sentAfterMs?: number;
}

/** The next due time a check asked for (never before `now`), else the schedule's. */
export function askedDue(o: CheckOutcome, now: number, scheduled: () => number): number {
  return o.nextCheckAt === undefined ? scheduled() : Math.max(Math.ceil(o.nextCheckAt), now + 1);
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

/**
 * Applies one probe result: down once failures reach the threshold, recovery on the first success after.
 * `quiet` (a maintenance window covers it): the transition of the status is still returned, to be
 * recorded, but the alert flag keeps its value from before the window, so the first result after the
 * window alerts once when the state then differs from the one last notified (quietly()).
 */
export function applyOutcome(
  prev: LivenessState,
  o: CheckOutcome,
  at: string,
  threshold: number,
  quiet = false,
): { next: LivenessState; event: LivenessTransition } {
  const failures = o.ok ? 0 : prev.consecutive_failures + 1;
  const down = failures >= Math.max(1, threshold);
  const { event, alerted } = transition(down, o.ok, prev.alerted_down);
  const next: LivenessState = {
    status: down ? 'down' : o.ok || prev.status !== 'down' ? 'up' : 'down',
    consecutive_failures: failures,
    ...lastCheck(o, at),
    alerted_down: alerted,
  };
  return quiet ? quietly(prev, next) : { next, event };
}

/** A result inside a maintenance window: the alert flag is left as it was; the event is the status's own flip. */
function quietly(prev: LivenessState, next: LivenessState): { next: LivenessState; event: LivenessTransition } {
  const flip = next.status !== prev.status && next.status !== null;
  const event = !flip ? null : next.status === 'down' ? 'down' : prev.status === 'down' ? 'recovery' : null;
  return { next: { ...next, alerted_down: prev.alerted_down }, event };
}

/** A state's fields that describe its newest check. */
const lastCheck = (o: CheckOutcome, at: string) => ({
  last_check: at,
  last_check_successful: o.ok,
  response_time_ms: o.responseTimeMs,
  status_code: o.statusCode,
  last_error: o.error,
});

/** One alert per outage: down when it is down and none was sent; recovery when `recovered` after one. */
function transition(
  down: boolean,
  recovered: boolean,
  alerted: boolean,
): { event: LivenessTransition; alerted: boolean } {
  if (down && !alerted) return { event: 'down', alerted: true };
  if (recovered && alerted) return { event: 'recovery', alerted: false };
  return { event: null, alerted };
}

/** The region of a node whose DOMMON_NODE_REGION is unset. */
export const DEFAULT_REGION = 'default';
/** Most regions one configuration may name. */
export const MAX_REGIONS = 16;

/**
 * A configuration checked from several regions: each region keeps its own state (applyOutcome, its
 * alert flag unused); the combined state, the one alerts, health and lists follow, is down only
 * while at least `confirmFrom` of `regions` have failed `threshold` times in a row. Its failure
 * count is the one those regions agree on (the k-th highest), its last check the newest outcome.
 * Regions with no check yet count as not failing. Returns the regions down now with the transition.
 */
export function combineRegions(
  prev: LivenessState,
  views: ReadonlyMap<string, LivenessState>,
  c: { regions: readonly string[]; confirm_from: number; failure_threshold: number },
  latest: { at: string; outcome: CheckOutcome },
  quiet = false,
): { next: LivenessState; event: LivenessTransition; down: string[] } {
  const threshold = Math.max(1, c.failure_threshold);
  const k = Math.min(Math.max(1, c.confirm_from), Math.max(1, c.regions.length));
  const failures = c.regions.map((r) => views.get(r)?.consecutive_failures ?? 0).sort((a, b) => b - a);
  const agreed = failures[k - 1] ?? 0;
  const down = agreed >= threshold;
  const regionsDown = c.regions.filter((r) => (views.get(r)?.consecutive_failures ?? 0) >= threshold);
  const { event, alerted } = transition(down, !down, prev.alerted_down);
  const next: LivenessState = {
    status: down ? 'down' : 'up',
    consecutive_failures: agreed,
    ...lastCheck(latest.outcome, latest.at),
    alerted_down: alerted,
  };
  return { ...(quiet ? quietly(prev, next) : { next, event }), down: regionsDown };
}

/** A due-queue run's key (release()'s answer, a node's held runs): the config id, with its region when it has one. */
export const dueKey = (configId: string, region = ''): string => (region ? `${configId}\n${region}` : configId);

/**
 * Results are keyed (config, time): the regions of one configuration never write the same
 * millisecond because each region's results carry its place in the list in the time's low 4 bits
 * (a result's time is off by at most 15 ms). Without regions the time is kept as it is.
 */
export function regionalTs(ts: number, regions: readonly string[], region: string): number {
  const i = regions.indexOf(region);
  return i < 0 ? ts : ts - (ts % MAX_REGIONS) + i;
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

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
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
