// Maintenance window rules by table: one-off spans, recurring occurrences read in their IANA zone
// across both daylight-saving changes, bounds, coverage, and the spans an uptime leaves out.
import t from 'tap';
import {
  activeSpan,
  covers,
  mergeSpans,
  nextSpan,
  spansIn,
  type MaintenanceWindow,
} from '../../src/domain/maintenance.js';

const base: MaintenanceWindow = {
  id: 'w',
  team_id: 't',
  name: 'w',
  starts_at: null,
  ends_at: null,
  cron: null,
  duration_minutes: null,
  timezone: 'UTC',
  endpoint_ids: [],
  domain_ids: [],
  portfolio_ids: [],
  is_enabled: true,
  created_at: '',
  updated_at: '',
};
const at = (iso: string) => Date.parse(iso);
const iso = (s: { start: number; end: number } | null) =>
  s && { start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() };

t.test('one-off: [starts_at, ends_at)', async (t) => {
  const w = { ...base, starts_at: '2026-05-01T10:00:00.000Z', ends_at: '2026-05-01T11:00:00.000Z' };
  t.equal(activeSpan(w, at('2026-05-01T09:59:59.999Z')), null);
  t.same(iso(activeSpan(w, at('2026-05-01T10:00:00Z'))), { start: w.starts_at, end: w.ends_at });
  t.equal(activeSpan(w, at('2026-05-01T11:00:00Z')), null, 'the end is outside');
  t.equal(activeSpan({ ...w, is_enabled: false }, at('2026-05-01T10:30:00Z')), null, 'disabled: nothing');
  t.same(iso(nextSpan(w, at('2026-04-30T00:00:00Z'))), { start: w.starts_at, end: w.ends_at });
  t.equal(nextSpan(w, at('2026-05-01T10:30:00Z')), null);
});

t.test(
  'recurring in America/New_York across spring forward (8 March 2026) and fall back (1 November 2026)',
  async (t) => {
    const w = { ...base, cron: '30 1 * * *', duration_minutes: 60, timezone: 'America/New_York' };
    // 01:30 EST is 06:30Z; from 8 March 01:30 EDT is 05:30Z.
    t.same(iso(activeSpan(w, at('2026-03-08T06:45:00Z'))), {
      start: '2026-03-08T06:30:00.000Z',
      end: '2026-03-08T07:30:00.000Z',
    });
    t.same(iso(activeSpan(w, at('2026-03-09T05:45:00Z'))), {
      start: '2026-03-09T05:30:00.000Z',
      end: '2026-03-09T06:30:00.000Z',
    });
    t.equal(activeSpan(w, at('2026-03-09T06:45:00Z')), null, '06:45Z is 02:45 EDT: after the window');
    t.equal(activeSpan(w, at('2026-03-09T05:29:59Z')), null);
    // Back to EST on 1 November: 01:30 local is 05:30Z on the 1st (EDT, the first 01:30), 06:30Z on the 2nd.
    t.same(iso(nextSpan(w, at('2026-11-01T00:00:00Z'))), {
      start: '2026-11-01T05:30:00.000Z',
      end: '2026-11-01T06:30:00.000Z',
    });
    t.same(iso(nextSpan(w, at('2026-11-01T12:00:00Z'))), {
      start: '2026-11-02T06:30:00.000Z',
      end: '2026-11-02T07:30:00.000Z',
    });
    // A time the spring change skips (02:30 on 8 March) starts at the first valid time after it, 03:00 EDT.
    const skipped = { ...w, cron: '30 2 * * *' };
    t.same(iso(nextSpan(skipped, at('2026-03-08T00:00:00Z'))), {
      start: '2026-03-08T07:00:00.000Z',
      end: '2026-03-08T08:00:00.000Z',
    });
  },
);

t.test('recurring with bounds; spans in a range, merged', async (t) => {
  const w = {
    ...base,
    cron: '0 * * * *',
    duration_minutes: 90,
    starts_at: '2026-05-01T00:00:00.000Z',
    ends_at: '2026-05-01T03:00:00.000Z',
  };
  t.equal(activeSpan(w, at('2026-04-30T23:30:00Z')), null, 'before the recurrence starts');
  t.equal(activeSpan(w, at('2026-05-01T03:10:00Z')), null, 'after it ends');
  t.same(iso(activeSpan(w, at('2026-05-01T01:40:00Z'))), {
    start: '2026-05-01T01:00:00.000Z',
    end: '2026-05-01T02:30:00.000Z',
  });
  // Occurrences at 00, 01 and 02 h, 90 minutes each, overlap: one span 00:00-03:30 clipped to the range.
  t.same(spansIn(w, at('2026-04-30T00:00:00Z'), at('2026-05-02T00:00:00Z')).map(iso), [
    { start: '2026-05-01T00:00:00.000Z', end: '2026-05-01T03:30:00.000Z' },
  ]);
  t.same(spansIn(w, at('2026-05-01T01:15:00Z'), at('2026-05-01T01:45:00Z')).map(iso), [
    { start: '2026-05-01T01:15:00.000Z', end: '2026-05-01T01:45:00.000Z' },
  ]);
  t.same(
    mergeSpans([
      { start: 5, end: 8 },
      { start: 1, end: 3 },
      { start: 2, end: 4 },
    ]),
    [
      { start: 1, end: 4 },
      { start: 5, end: 8 },
    ],
  );
});

t.test('coverage: the endpoint, its domain or its portfolio', async (t) => {
  const target = { endpoint_id: 'e1', domain_id: 'd1', portfolio_id: 'p1' };
  t.ok(covers({ ...base, endpoint_ids: ['e1'] }, target));
  t.ok(covers({ ...base, domain_ids: ['d1'] }, target));
  t.ok(covers({ ...base, portfolio_ids: ['p1'] }, target));
  t.notOk(covers({ ...base, endpoint_ids: ['e2'], domain_ids: ['d2'], portfolio_ids: ['p2'] }, target));
  t.notOk(covers({ ...base, portfolio_ids: ['p1'] }, { ...target, portfolio_id: null }));
});
