// Results, aggregates and retention with an injected clock: stats and uptime from aggregates equal
// the raw results; retention (the one retention worker, src/services/retention.ts) removes old raw
// rows and keeps aggregates (hourly 90 days, daily 400 days by default; each window configurable).
import t from 'tap';
import { mutableClock, monitored, openTestStore } from '../support/probing.js';
import { createRetentionService } from '../../src/services/retention.js';

const DAY = 86_400_000;

t.test('aggregates match raw results; retention keeps aggregates', async (t) => {
  const start = Date.UTC(2026, 0, 1, 0, 0, 0);
  const clock = mutableClock(start);
  const s = await openTestStore({}, clock);
  t.teardown(() => s.close());
  const [cfg] = await monitored(s, 1, 9, { interval_seconds: 60 });
  const endpoint = (await s.services.monitor.targets())[0]!.endpoint;
  // 40 days of results, one every 2 hours, every 5th failing, response times varying.
  const batch = [];
  let n = 0;
  for (let at = start; at < start + 40 * DAY; at += 2 * 3_600_000, n++) {
    const ok = n % 5 !== 0;
    batch.push({
      config: cfg!,
      endpoint,
      at,
      outcome: {
        ok,
        responseTimeMs: 10 + (n % 7),
        statusCode: ok ? 200 : 500,
        error: ok ? null : 'status: HTTP 500, expected 200',
      },
    });
  }
  await s.services.monitor.record(batch);
  clock.set(start + 40 * DAY - 1000);

  const raw = batch.filter((b) => b.at >= clock.ms() - 7 * DAY + 0);
  const stats = await s.services.monitor.stats(s.teamId, cfg!.id, 40);
  t.equal(stats.total_tests, batch.length, 'daily aggregates count every result');
  t.equal(stats.successful_tests, batch.filter((b) => b.outcome.ok).length);
  t.equal(stats.stats.length, 40);
  t.same(stats.stats[0], {
    date: '2026-01-01',
    total_tests: 12,
    successful_tests: batch.slice(0, 12).filter((b) => b.outcome.ok).length,
    success_rate: Math.round((batch.slice(0, 12).filter((b) => b.outcome.ok).length / 12) * 10000) / 100,
    avg_response_time_ms: Math.round(batch.slice(0, 12).reduce((a, b) => a + b.outcome.responseTimeMs, 0) / 12),
  });
  t.equal(stats.status, 'critical', 'success rate 80 % is under 95 %');

  const st = await s.services.monitor.status(s.teamId, cfg!.id);
  const day7 = batch.filter((b) => Math.floor(b.at / DAY) >= Math.floor(clock.ms() / DAY) - 6);
  t.equal(
    st.uptime_7d,
    Math.round((day7.filter((b) => b.outcome.ok).length / day7.length) * 10000) / 100,
    'uptime_7d from daily aggregates',
  );
  const h24 = batch.filter((b) => Math.floor(b.at / 3_600_000) >= Math.floor(clock.ms() / 3_600_000) - 23);
  t.equal(
    st.uptime_24h,
    Math.round((h24.filter((b) => b.outcome.ok).length / h24.length) * 10000) / 100,
    'uptime_24h from hourly aggregates',
  );
  t.equal(st.avg_response_time_ms, Math.round(h24.reduce((a, b) => a + b.outcome.responseTimeMs, 0) / h24.length));
  t.ok(raw.length > 0);

  const before = await s.store.livenessData.countResults(cfg!.seq);
  t.equal(before, batch.length);
  const retention = createRetentionService({ store: s.store, clock, resultRetentionDays: 30, batchSize: 7 });
  const report = await retention.runOnce();
  const removed = report.deleted.liveness_results;
  t.ok(report.batches > removed / 7, `chunked deletes (${report.batches} batches)`);
  const cutoff = clock.ms() - 30 * DAY;
  t.equal(removed, batch.filter((b) => b.at < cutoff).length, 'raw rows older than 30 days removed');
  t.equal(await s.store.livenessData.countResults(cfg!.seq), batch.filter((b) => b.at >= cutoff).length);
  const after = await s.services.monitor.stats(s.teamId, cfg!.id, 40);
  t.equal(after.total_tests, batch.length, 'daily aggregates kept: stats over 40 days unchanged');
  t.same(after.stats, stats.stats);
  const results = await s.services.monitor.results(s.teamId, cfg!.id, { hours: 24 * 40, limit: 100, offset: 0 });
  t.equal(results.total, batch.filter((b) => b.at >= cutoff).length, 'results only within retention');

  // The default windows keep every aggregate of these 40 days (hourly 90 days, daily 400 days).
  const hourlyAll = async () => (await s.store.livenessData.hourlySums([cfg!.seq], 0))(cfg!.seq).total;
  t.equal(await hourlyAll(), batch.length, 'hourly aggregates of 40 days kept under the 90-day default');
  t.equal(report.deleted.liveness_aggregates, 0);
  // A shorter hourly window: rows older than it go, by primary-key range in batches; daily rows stay.
  const short = createRetentionService({
    store: s.store,
    clock,
    resultRetentionDays: 30,
    hourlyRetentionDays: 2,
    dailyRetentionDays: 400,
    batchSize: 7,
  });
  const r2 = await short.runOnce();
  const keptHours = batch.filter((b) => Math.floor(b.at / 3_600_000) >= Math.floor(clock.ms() / 3_600_000) - 48).length;
  t.equal(r2.deleted.liveness_aggregates, batch.length - keptHours, 'hourly rows older than 2 days removed');
  t.equal(await hourlyAll(), keptHours);
  t.equal(
    (await s.services.monitor.stats(s.teamId, cfg!.id, 40)).total_tests,
    batch.length,
    'daily aggregates untouched',
  );
  // Past 400 days the daily rows go too.
  clock.advance(401 * DAY);
  await retention.runOnce();
  t.equal((await s.services.monitor.stats(s.teamId, cfg!.id, 500)).total_tests, 0);
});
