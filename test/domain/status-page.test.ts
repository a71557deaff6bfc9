// Pure status page rules: 90 daily bars from sparse daily sums, incidents paired from down/recovery
// transitions (any order, open at either end), and the overall status.
import t from 'tap';
import { overallStatus, pairIncidents, uptimeDays } from '../../src/domain/status-page.js';
import { dayOf } from '../../src/domain/liveness.js';

t.test('uptimeDays: 90 UTC days oldest first, null without checks, the total over the window', async (t) => {
  const today = dayOf(Date.parse('2026-11-26T12:00:00Z'));
  const { days, uptime } = uptimeDays(today, [
    { bucket: today, total: 200, ok: 199 },
    { bucket: today - 89, total: 100, ok: 50 },
    { bucket: today - 90, total: 100, ok: 0 }, // outside the window
  ]);
  t.equal(days.length, 90);
  t.same(days[0], { date: '2026-08-29', uptime: 50 });
  t.same(days[89], { date: '2026-11-26', uptime: 99.5 });
  t.equal(days[1]!.uptime, null);
  t.equal(uptime, 83, '249 of 300');
  t.equal(uptimeDays(today, []).uptime, null);
});

t.test('pairIncidents: down opens, the next recovery closes; open ends either side', async (t) => {
  const ev = (key: string, kind: 'down' | 'recovery', at: string) => ({ key, kind, at: `2026-11-${at}Z` });
  const out = pairIncidents([
    ev('b', 'recovery', '02T00:00:00.000'), // began before the window
    ev('a', 'recovery', '10T00:01:30.000'),
    ev('a', 'down', '10T00:00:00.000'),
    ev('a', 'down', '10T00:00:30.000'), // a second down while down: the same incident
    ev('a', 'down', '20T00:00:00.000'), // still down
  ]);
  t.same(out, [
    { key: 'a', started_at: '2026-11-20T00:00:00.000Z', resolved_at: null, duration_seconds: null },
    {
      key: 'a',
      started_at: '2026-11-10T00:00:00.000Z',
      resolved_at: '2026-11-10T00:01:30.000Z',
      duration_seconds: 90,
    },
    { key: 'b', started_at: null, resolved_at: '2026-11-02T00:00:00.000Z', duration_seconds: null },
  ]);
  t.equal(pairIncidents(out.length ? [ev('x', 'down', '01T00:00:00.000')] : [], 0).length, 0, 'limit');
});

t.test('overallStatus', async (t) => {
  t.equal(overallStatus([]), 'unknown');
  t.equal(overallStatus(['unknown']), 'unknown');
  t.equal(overallStatus(['up', 'unknown']), 'operational');
  t.equal(overallStatus(['up', 'down']), 'partial_outage');
  t.equal(overallStatus(['down', 'unknown', 'down']), 'major_outage');
});
