// The liveness scheduler against a real HTTP target and a real store: restart without a burst,
// no drift, shutdown that cancels in-flight probes and writes only finished results.
import t from 'tap';
import { createLivenessScheduler } from '../../src/scheduler/liveness.js';
import { livenessProbe } from '../../src/probes/index.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { monitored, openTestStore } from '../support/probing.js';
import { sleep, waitFor } from '../support/wait.js';
import { systemClock } from '../../src/domain/clock.js';

function sequence(n: number) {
  let i = 0;
  return () => (i++ % n) / n;
}

t.test('restart: each config resumes from its last result, overdue ones spread over one interval', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget();
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server });
  t.teardown(async () => { await target.close(); await dns.close(); await s.close(); });
  const configs = await monitored(s, 40, target.port, { interval_seconds: 4 });
  const endpoints = new Map((await s.services.monitor.targets()).map((x) => [x.config.id, x.endpoint]));
  const now = Date.now();
  // 20 checked 2 s ago (due in 2 s), 20 checked 10 s ago (overdue): as if the daemon had just restarted.
  await s.services.monitor.record(configs.map((c, i) => ({
    config: c, endpoint: endpoints.get(c.id)!, at: now - (i < 20 ? 2000 : 10_000),
    outcome: { ok: true, responseTimeMs: 1, statusCode: 200, error: null },
  })));
  const sched = createLivenessScheduler({
    monitor: s.services.monitor, onChange: s.services.liveness.onChange, probe: livenessProbe(s.probes),
    clock: systemClock, log: s.log, random: sequence(20),
  });
  await sched.start();
  t.teardown(() => sched.stop());
  await sleep(900);
  const early = target.requests;
  t.ok(early >= 2 && early <= 8, `overdue configs spread: ${early} of 20 in the first 0.9 s (expected ~5)`);
  const onTime = configs.slice(0, 20).filter((c) => sched.stats.firstRun.has(c.id)).length;
  t.equal(onTime, 0, 'configs checked 2 s before the restart wait for their own turn');
  await waitFor(() => sched.stats.firstRun.size === 40, 5000);
  const startedAt = sched.stats.startedAt;
  const last = Math.max(...sched.stats.firstRun.values());
  t.ok(last - startedAt <= 4100, 'every config checked within one interval after the restart');
  for (const c of configs.slice(0, 20)) {
    const first = sched.stats.firstRun.get(c.id)!;
    t.ok(Math.abs(first - (now + 2000)) < 300, 'resumed at last result + interval');
  }
});

t.test('no drift, concurrency limit, and shutdown cancels in-flight probes without writing them', async (t) => {
  const dns = await startLoopbackDns();
  const fast = await startHttpTarget();
  const slow = await startHttpTarget({ behaviour: { kind: 'slow', ms: 20_000 } });
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server });
  t.teardown(async () => { await fast.close(); await slow.close(); await dns.close(); await s.close(); });
  const [f] = await monitored(s, 1, fast.port, { interval_seconds: 1 }, 'fast.example.com');
  const [sl] = await monitored(s, 1, slow.port, { interval_seconds: 1, timeout_seconds: 30 }, 'slow.example.com');
  const sched = createLivenessScheduler({
    monitor: s.services.monitor, onChange: s.services.liveness.onChange, probe: livenessProbe(s.probes),
    clock: systemClock, log: s.log, random: () => 0, flushMs: 200,
  });
  await sched.start();
  await waitFor(() => fast.requests >= 4 && slow.requests === 1, 8000);
  const late = [...sched.stats.lateMs].sort((a, b) => a - b);
  t.ok(late.at(-1)! < 250, `every run on schedule (max lateness ${late.at(-1)} ms)`);
  t.equal(slow.requests, 1, 'a config whose probe is still running is not started again');
  const t0 = Date.now();
  await sched.stop(400);
  t.ok(Date.now() - t0 < 1500, `stopped within the grace period (${Date.now() - t0} ms)`);
  const fastRows = await s.store.livenessData.countResults(f!.seq);
  t.ok(fastRows >= 4, 'finished results were written on stop');
  t.equal(await s.store.livenessData.countResults(sl!.seq), 0, 'the cancelled probe left nothing half-written');
  t.equal(await s.store.livenessData.state(sl!.id), undefined);
  const stamps = (await s.services.monitor.results(s.teamId, f!.id, { hours: 1, limit: 100, offset: 0 })).items.map((r) => Date.parse(r.test_timestamp)).sort();
  const gaps = stamps.slice(1).map((x, i) => x - stamps[i]!);
  // Stamps are start times: each is its due time plus that run's lateness, so a gap may differ from
  // 1 s by the largest lateness (checked above), and the span shows no drift accumulating.
  const maxLate = late.at(-1)! + 5;
  t.ok(gaps.every((g) => Math.abs(g - 1000) <= maxLate), `runs 1 s apart on the schedule: ${gaps.join(',')} (lateness up to ${maxLate} ms)`);
  t.ok(Math.abs(stamps.at(-1)! - stamps[0]! - gaps.length * 1000) <= maxLate, 'no drift over the run');
  const fastBefore = fast.requests;
  await sleep(1200);
  t.equal(fast.requests, fastBefore, 'nothing runs after stop');
});

t.test('the global concurrency limit holds', async (t) => {
  const dns = await startLoopbackDns();
  const slow = await startHttpTarget({ behaviour: { kind: 'slow', ms: 600 } });
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server });
  t.teardown(async () => { await slow.close(); await dns.close(); await s.close(); });
  await monitored(s, 12, slow.port, { interval_seconds: 60, timeout_seconds: 5 });
  let active = 0;
  let peak = 0;
  const probe = livenessProbe(s.probes);
  const sched = createLivenessScheduler({
    monitor: s.services.monitor, onChange: s.services.liveness.onChange, clock: systemClock, log: s.log, random: () => 0, concurrency: 3,
    probe: async (e, c, signal) => {
      peak = Math.max(peak, ++active);
      try { return await probe(e, c, signal); } finally { active--; }
    },
  });
  await sched.start();
  t.teardown(() => sched.stop());
  await waitFor(() => sched.stats.checks === 12, 5000);
  t.equal(peak, 3);
  await sched.flush();
  t.equal(await s.store.livenessData.countResults(), 12 - active);
});

t.test('a large set: every config runs within one interval of start (none lost behind the wheel cursor)', async (t) => {
  const s = await openTestStore();
  t.teardown(() => s.close());
  const N = 4000;
  const now = new Date().toISOString();
  const d = await s.services.domains.create(s.teamId, { domain: 'many.example.com' });
  await s.store.transaction(async (tx) => {
    for (let i = 0; i < N; i++) {
      const id = crypto.randomUUID();
      await tx.endpoints.insert({ id, team_id: s.teamId, domain_id: d.id, name: `e${i}`, endpoint_type: 'http', subdomain: null, path: null, port: 9, is_enabled: 1, timeout_seconds: 5, notes: null, created_at: now, updated_at: now });
      await tx.db.insertInto('liveness_configs').values({ id: crypto.randomUUID(), seq: i + 1, team_id: s.teamId, endpoint_id: id, is_enabled: 1, timeout_seconds: 5, expected_status_code: 200, interval_seconds: 2, failure_threshold: 1, created_at: now, updated_at: now }).execute();
    }
  });
  // The probe is a dependency of the scheduler: here an instant success, so only scheduling is measured.
  const sched = createLivenessScheduler({
    monitor: s.services.monitor, onChange: s.services.liveness.onChange, clock: systemClock, log: s.log,
    probe: async () => ({ ok: true, responseTimeMs: 0, statusCode: 200, error: null }),
  });
  await sched.start();
  t.teardown(() => sched.stop());
  t.equal(sched.size(), N);
  await sleep(2300);
  t.equal(sched.stats.firstRun.size, N, 'all configs ran once within the first interval');
  const late = [...sched.stats.lateMs].sort((a, b) => a - b);
  t.ok(late[Math.floor(late.length * 0.99)]! < 1000, `p99 lateness ${late[Math.floor(late.length * 0.99)]} ms`);
  // Stop first: the scheduler keeps starting checks (2,000 a second here) while the count is read.
  await sched.stop();
  t.equal(await s.store.livenessData.countResults(), sched.stats.checks, 'every check written');
});
