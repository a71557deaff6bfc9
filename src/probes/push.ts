// push: a heartbeat. Nothing is dialled: the job calls its ping URL (services/push.ts keeps each ping),
// and this check, run by the liveness scheduler at the next deadline it asked for, reads the last start
// and finish and judges them: down when the last run failed, when a run started and did not finish
// within the grace time, or when no ping came by the expected time plus the grace time (the expected
// time is one period after the last finish, or the next time of the cron schedule after it, in its
// time zone). Before the first ping the expected time counts from the check's creation.
import { Cron } from 'croner';
import type { EndpointSettings } from '../domain/endpoint.js';
import type { Heartbeat, PushSchedule } from '../domain/push.js';
import type { EndpointPlugin } from './plugin.js';
import { failure, type ProbeOutcome } from './types.js';

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    push: true;
  }
}

const YEAR_S = 31_536_000;

/** The type's fields (defaults as Healthchecks.io's: a day, an hour's grace), stored in the endpoint's settings. */
const FIELDS = {
  period_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: YEAR_S,
    default: 86_400,
    description: 'a ping is expected this long after the last one (unless `schedule` is set)',
  },
  grace_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: YEAR_S,
    default: 3_600,
    description: 'how long after the expected time a ping may still come, and how long a started run may take',
  },
  schedule: {
    type: ['string', 'null'],
    minLength: 9,
    maxLength: 200,
    default: null,
    description: 'instead of the period: a cron expression (5 fields, or 6 with seconds first), when the job runs',
  },
  tz: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: 64,
    default: null,
    description: 'the IANA time zone `schedule` is read in (default UTC)',
  },
} as const;

/** A push endpoint's schedule from its settings (a `dommon check` target has none: the defaults). */
function scheduleOf(s: EndpointSettings = {}): PushSchedule {
  const int = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    period_seconds: int(s.period_seconds, FIELDS.period_seconds.default),
    grace_seconds: int(s.grace_seconds, FIELDS.grace_seconds.default),
    schedule: str(s.schedule),
    tz: str(s.tz),
  };
}

/** Why a push endpoint's settings are refused (a cron expression or time zone that does not parse); null: accepted. */
export function pushSettingsError(settings: EndpointSettings): string | null {
  const { schedule, tz } = scheduleOf(settings);
  if (tz !== null && schedule === null) return 'tz: a time zone needs a cron schedule';
  if (schedule === null) return null;
  const err = scheduleError(schedule, tz);
  return err && `schedule: ${err}`;
}

/** The first time of `schedule` (cron, 5 or 6 fields) strictly after `after` in `tz`; null: none. */
export function nextCronTime(schedule: string, tz: string | null, after: number): number | null {
  const next = new Cron(schedule, { timezone: tz ?? undefined, paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/** Why a cron expression or time zone is refused (null: accepted). */
export function scheduleError(schedule: string, tz: string | null): string | null {
  try {
    new Cron(schedule, { timezone: tz ?? undefined, paused: true }).nextRun();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The verdict on a heartbeat at `now`, and when it must be looked at again: the deadline of the next
 * expected ping (a ping before it moves it later, so the check then finds it and asks for the new one).
 * While down, one expected interval on: any ping from now on has its deadline no earlier than that.
 */
export function judgeHeartbeat(h: Heartbeat, now: number): ProbeOutcome & { nextCheckAt: number } {
  const graceMs = h.grace_seconds * 1000;
  // The next expected ping after t; a cron schedule with no next time expects none (a day on, looked at again).
  const expected = (t: number): number | null =>
    h.schedule ? nextCronTime(h.schedule, h.tz, t) : t + h.period_seconds * 1000;
  const again = expected(now) ?? now + 86_400_000;
  const ms = h.lastFinish?.duration_ms ?? 0;
  const running = h.lastStart && (!h.lastFinish || h.lastStart.at > h.lastFinish.at) ? h.lastStart : null;
  if (running && now >= running.at + graceMs)
    return {
      ...failure('late', `the run started at ${iso(running.at)} did not finish within ${h.grace_seconds} s`, ms),
      nextCheckAt: again,
    };
  if (h.lastFinish?.kind === 'fail') {
    const status = h.lastFinish.exit_status === null ? '' : ` (exit status ${h.lastFinish.exit_status})`;
    return {
      ...failure('failed', `the job reported a failure at ${iso(h.lastFinish.at)}${status}`, ms),
      nextCheckAt: running ? Math.min(again, running.at + graceMs) : again,
    };
  }
  const since = h.lastFinish?.at ?? h.created_at;
  const due = expected(since);
  const deadline = due === null ? null : due + graceMs;
  if (deadline !== null && now >= deadline)
    return {
      ...failure(
        'late',
        `${h.lastFinish ? `no ping since ${iso(since)}` : 'no ping yet'}: one was expected by ${iso(due!)} (+${h.grace_seconds} s grace)`,
        ms,
      ),
      nextCheckAt: again,
    };
  const next = Math.min(deadline ?? again, running ? running.at + graceMs : Infinity);
  return { ok: true, responseTimeMs: ms, statusCode: null, error: null, reason: null, nextCheckAt: next };
}

/** `push`: judged from the pings the job sent (its ping URL); nothing is dialled, no certificate. */
export const push: EndpointPlugin<'push'> = {
  name: 'push',
  defaultPort: 0,
  url: 'name',
  certificate: 'never',
  extension: true,
  fields: FIELDS,
  docs: {
    liveness:
      'the job pinged its ping URL in time and its last run did not fail (a heartbeat: nothing is dialled, docs/push.md)',
    certificate: 'none',
  },
  liveness: async (e, _c, deps) => {
    const pings = e.id && deps.heartbeat ? await deps.heartbeat(e.id) : undefined;
    if (!pings) return failure('error', 'a push endpoint is judged by its pings, not probed', 0);
    return judgeHeartbeat({ ...scheduleOf(e.settings), ...pings }, pings.now);
  },
};
