// Heartbeat (`push`) endpoints: a job calls its ping URL (Healthchecks.io's form: /ping/<key>, /start,
// /fail, /<exit status>, /log) instead of being probed. What crosses the store's boundary and the
// ping's own rules; when a ping is late is the plug-in's (src/probes/push.ts).

/**
 * What a ping key may be: 10 to 64 letters, digits, `-` and `_`. A key dommon makes is a random UUID; a
 * configuration file may set another, such as an Uptime Kuma push token (32 random letters and digits),
 * so the job's existing URL keeps working.
 */
export const PING_KEY = /^[A-Za-z0-9_-]{10,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A ping key as stored and looked up: a UUID in lower case (a URL may carry it in either case, as
 * Healthchecks.io's does), any other key exactly as written (an Uptime Kuma token is case-sensitive).
 */
export function pingKeyOf(key: string): string {
  return UUID.test(key) ? key.toLowerCase() : key;
}

/** The kinds of ping: a run starts, ends well, ends badly; or a message kept without changing anything. */
export type PingKind = 'start' | 'success' | 'fail' | 'log';

/**
 * A push endpoint's schedule (its endpoint-type fields): a ping every `period_seconds`, or at each time
 * of `schedule` (cron, in `tz`), and `grace_seconds` after that.
 */
export interface PushSchedule {
  period_seconds: number;
  grace_seconds: number;
  schedule: string | null;
  tz: string | null;
}

/** A push endpoint's ping key (its schedule is in the endpoint's settings). */
export interface PushCheck {
  endpoint_id: string;
  team_id: string;
  /** The ping URL's secret: a random UUID, or a key a configuration file set (PING_KEY). */
  ping_key: string;
  /** Epoch ms. */
  created_at: number;
}

export interface PushPing {
  kind: PingKind;
  /** Epoch ms. */
  at: number;
  exit_status: number | null;
  duration_ms: number | null;
}

/** A ping as kept: with the first bytes of its body and the body's full size. */
export interface PushPingRecord extends PushPing {
  body: string | null;
  body_bytes: number;
}

/** What the liveness check reads of the pings: the last start and finish. */
export interface HeartbeatPings {
  /** When the push endpoint was created (epoch ms): before the first ping, lateness counts from here. */
  created_at: number;
  /** The last success or fail ping. */
  lastFinish: PushPing | null;
  /** The last start ping (it may be older than the last finish). */
  lastStart: PushPing | null;
  /** When it was read (epoch ms, the service's clock): the time the verdict is for. */
  now: number;
}

/** What the liveness check judges: the schedule and the pings. */
export type Heartbeat = PushSchedule & HeartbeatPings;

/**
 * The most of a ping's body that is kept, in bytes (the rest is counted, not stored): Healthchecks.io
 * keeps the first 100 kB of a ping's body.
 */
export const PING_BODY_LIMIT = 100_000;

/** The kind of a ping from its URL's last part (none: success); null: not a ping URL. Exit status 0 is success. */
export function pingKindOf(action: string | undefined): { kind: PingKind; exit_status: number | null } | null {
  if (action === undefined || action === '') return { kind: 'success', exit_status: null };
  if (action === 'start' || action === 'fail' || action === 'log') return { kind: action, exit_status: null };
  if (/^\d{1,3}$/.test(action)) {
    const n = Number(action);
    if (n > 255) return null;
    return { kind: n === 0 ? 'success' : 'fail', exit_status: n };
  }
  return null;
}
