// The push check's verdict (see push.ts): when a job's next ping is expected (a period after the
// last finish, or the next time of its cron schedule in its time zone, read by croner) and whether
// its pings say it is late or failed. Loaded with the first push check, and by the push service to
// refuse a schedule that does not parse.
import { Cron } from 'croner';
import type { EndpointSettings } from '../domain/endpoint.js';
import type { Heartbeat } from '../domain/push.js';
import { failure, type ProbeOutcome } from './types.js';

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Why a push endpoint's settings are refused (a cron expression or time zone that does not parse); null: accepted. */
export function pushSettingsError(settings: EndpointSettings): string | null {
  const schedule = text(settings.schedule);
  const tz = text(settings.tz);
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
