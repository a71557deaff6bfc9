// Vantage points' pure rules (issue #22 item 10): each region's own state machine, the combined
// state down only while `confirm_from` regions agree, and result times that two regions never share.
import t from 'tap';
import {
  applyOutcome,
  combineRegions,
  INITIAL_STATE,
  MAX_REGIONS,
  regionalTs,
  type CheckOutcome,
  type LivenessState,
} from '../../src/domain/liveness.js';

const ok: CheckOutcome = { ok: true, responseTimeMs: 12, statusCode: 200, error: null };
const fail: CheckOutcome = { ok: false, responseTimeMs: 3, statusCode: null, error: 'connect ECONNREFUSED' };
const at = (n: number) => new Date(Date.UTC(2026, 10, 26, 8, 0, n)).toISOString();

/** Feeds (region, outcome) pairs through each region's state and the combined one; returns every event. */
function run(
  c: { regions: string[]; confirm_from: number; failure_threshold: number },
  steps: [string, CheckOutcome][],
): { events: string[]; state: LivenessState; views: Map<string, LivenessState>; down: string[] } {
  let state = INITIAL_STATE;
  const views = new Map<string, LivenessState>();
  const events: string[] = [];
  let down: string[] = [];
  steps.forEach(([region, o], i) => {
    views.set(region, applyOutcome(views.get(region) ?? INITIAL_STATE, o, at(i), c.failure_threshold).next);
    const r = combineRegions(state, views, c, { at: at(i), outcome: o });
    state = r.next;
    down = r.down;
    if (r.event) events.push(`${i}:${r.event}`);
  });
  return { events, state, views, down };
}

t.test('two of two regions must agree: one failing region raises nothing', async (t) => {
  const c = { regions: ['eu', 'us'], confirm_from: 2, failure_threshold: 1 };
  const r = run(c, [
    ['eu', ok],
    ['us', fail],
    ['eu', ok],
    ['us', fail],
    ['eu', ok],
    ['us', fail],
  ]);
  t.same(r.events, [], 'no down event while only us fails');
  t.equal(r.state.status, 'up');
  t.equal(r.state.consecutive_failures, 0, 'the count two regions agree on: eu has none');
  t.equal(r.views.get('us')!.consecutive_failures, 3);
  t.equal(r.views.get('us')!.status, 'down', "us's own view is down");
  t.same(r.down, ['us']);
  t.equal(r.state.last_check, at(5), 'the combined last check is the newest');
  t.equal(r.state.last_error, 'connect ECONNREFUSED');
});

t.test('one region is enough with confirm_from 1', async (t) => {
  const c = { regions: ['eu', 'us'], confirm_from: 1, failure_threshold: 1 };
  const r = run(c, [
    ['eu', ok],
    ['us', fail],
    ['eu', ok],
    ['us', ok],
  ]);
  t.same(r.events, ['1:down', '3:recovery'], 'down when us fails, recovered when us succeeds again');
  t.equal(r.state.status, 'up');
  t.equal(r.state.alerted_down, false);
});

t.test('both down: down once, recovered when fewer than confirm_from remain down', async (t) => {
  const c = { regions: ['eu', 'us', 'ap'], confirm_from: 2, failure_threshold: 2 };
  const r = run(c, [
    ['eu', fail],
    ['us', fail],
    ['eu', fail], // eu: 2 (down), us: 1: one region down
    ['us', fail], // us: 2: two regions down -> down
    ['ap', fail],
    ['eu', fail],
    ['us', ok], // us recovers: eu only (ap has 1) -> recovery
  ]);
  t.same(r.events, ['3:down', '6:recovery']);
  t.equal(r.state.consecutive_failures, 1, 'second highest of eu 3, ap 1, us 0');
  t.same(r.down, ['eu']);
});

t.test('a region never checked counts as not failing; confirm_from is capped at the regions', async (t) => {
  const c = { regions: ['eu', 'us'], confirm_from: 5, failure_threshold: 1 };
  t.same(run(c, [['eu', fail]]).events, [], 'us has no check: only one region down');
  t.same(
    run(c, [
      ['eu', fail],
      ['us', fail],
    ]).events,
    ['1:down'],
    'confirm_from above the region count means all of them',
  );
});

t.test('result times: each region of a config keeps to its own residue', async (t) => {
  const regions = ['eu', 'us', 'ap'];
  const ts = 1_764_144_000_123;
  const out = regions.map((r) => regionalTs(ts, regions, r));
  t.same(
    out.map((x) => x % MAX_REGIONS),
    [0, 1, 2],
  );
  t.equal(new Set(out).size, 3, 'three regions at the same millisecond: three keys');
  for (const x of out) t.ok(Math.abs(x - ts) < MAX_REGIONS, 'moved by less than 16 ms');
  t.equal(regionalTs(ts, [], 'eu'), ts, 'without regions the time is kept');
  t.equal(regionalTs(ts, regions, 'elsewhere'), ts, 'a region not listed keeps it too');
});
