// The push check's verdict (probes/heartbeat.ts) by table: periods, cron schedules in a time zone, grace
// times, runs that start and do not finish, failures; and the next time it asks to be looked at.
import t from 'tap';
import { judgeHeartbeat, nextCronTime, scheduleError } from '../../src/probes/heartbeat.js';
import type { Heartbeat, PushPing } from '../../src/domain/push.js';

const T0 = Date.parse('2026-03-28T12:00:00Z');
const S = 1000;
const finish = (at: number, kind: 'success' | 'fail' = 'success', exit: number | null = null): PushPing => ({
  kind,
  at,
  exit_status: exit,
  duration_ms: 1234,
});
const hb = (over: Partial<Heartbeat>): Heartbeat => ({
  period_seconds: 60,
  grace_seconds: 10,
  schedule: null,
  tz: null,
  created_at: T0,
  lastStart: null,
  lastFinish: null,
  now: T0,
  ...over,
});

t.test('a period and grace', async (t) => {
  const h = hb({ lastFinish: finish(T0) });
  const inTime = judgeHeartbeat(h, T0 + 69 * S);
  t.same([inTime.ok, inTime.responseTimeMs, inTime.nextCheckAt], [true, 1234, T0 + 70 * S], 'up until period + grace');
  const late = judgeHeartbeat(h, T0 + 70 * S);
  t.equal(late.ok, false);
  t.equal(late.reason, 'late');
  t.match(late.error, /^late: no ping since 2026-03-28T12:00:00.000Z: one was expected by 2026-03-28T12:01:00.000Z/);
  t.equal(late.nextCheckAt, T0 + 130 * S, 'down: looked at again one period on');
  const never = judgeHeartbeat(hb({}), T0 + 70 * S);
  t.match(never.error, /^late: no ping yet/);
  t.equal(judgeHeartbeat(hb({}), T0 + 69 * S).ok, true, 'a new check counts from its creation');
});

t.test('failures and runs that do not finish', async (t) => {
  const failed = judgeHeartbeat(hb({ lastFinish: finish(T0, 'fail', 2) }), T0 + S);
  t.same([failed.ok, failed.reason], [false, 'failed']);
  t.match(failed.error, /exit status 2\)$/);
  // Started after the last finish: up within the grace time, and looked at again when it ends.
  const h = hb({ lastFinish: finish(T0), lastStart: { ...finish(T0 + 50 * S), kind: 'start', duration_ms: null } });
  const running = judgeHeartbeat(h, T0 + 55 * S);
  t.same([running.ok, running.nextCheckAt], [true, T0 + 60 * S]);
  const hung = judgeHeartbeat(h, T0 + 60 * S);
  t.same([hung.ok, hung.reason], [false, 'late']);
  t.match(hung.error, /did not finish within 10 s/);
  // A start before the last finish is an ended run.
  const old = hb({ lastFinish: finish(T0 + 50 * S), lastStart: { ...finish(T0), kind: 'start' } });
  t.equal(judgeHeartbeat(old, T0 + 100 * S).ok, true);
});

t.test('a cron schedule in a time zone', async (t) => {
  // 03:00 in Berlin is 01:00 UTC in winter and 02:00 UTC in summer (the clocks moved on 2026-03-29).
  t.equal(nextCronTime('0 3 * * *', 'Europe/Berlin', T0), Date.parse('2026-03-29T01:00:00Z'));
  t.equal(
    nextCronTime('0 3 * * *', 'Europe/Berlin', Date.parse('2026-03-29T01:00:00Z')),
    Date.parse('2026-03-30T01:00:00Z'),
  );
  t.equal(nextCronTime('0 3 * * *', null, T0), Date.parse('2026-03-29T03:00:00Z'));
  const h = hb({
    schedule: '0 3 * * *',
    tz: 'Europe/Berlin',
    grace_seconds: 600,
    lastFinish: finish(Date.parse('2026-03-28T02:00:30Z')),
  });
  const before = judgeHeartbeat(h, Date.parse('2026-03-29T01:09:59Z'));
  t.same([before.ok, before.nextCheckAt], [true, Date.parse('2026-03-29T01:10:00Z')]);
  const after = judgeHeartbeat(h, Date.parse('2026-03-29T01:10:00Z'));
  t.same([after.ok, after.reason, after.nextCheckAt], [false, 'late', Date.parse('2026-03-30T01:00:00Z')]);
  t.equal(scheduleError('0 3 * * *', 'Europe/Berlin'), null);
  t.type(scheduleError('61 * * * *', null), 'string');
  t.type(scheduleError('0 3 * * *', 'Nowhere/Else'), 'string');
});
