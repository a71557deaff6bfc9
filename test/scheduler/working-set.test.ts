// The in-memory due-queue (SQLite) at 50,000 configs: a change made through a service re-reads only
// what it touched (counted in entries read from the store), never the whole fleet; a write by another
// process still reaches it through the external stamp.
import t from 'tap';
import { createLivenessScheduler } from '../../src/scheduler/liveness.js';
import { memoryDueQueue } from '../../src/services/due-queue.js';
import { livenessProbe } from '../../src/probes/index.js';
import { openStore } from '../../src/store/index.js';
import { newId } from '../../src/store/repos/util.js';
import { systemClock } from '../../src/domain/clock.js';
import { openTestStore } from '../support/probing.js';
import { sleep, waitFor } from '../support/wait.js';

// 50,000 configs written and read at start: tens of seconds on a busy 2-core machine.
t.setTimeout(120_000);

const DOMAINS = 100;
const PER_DOMAIN = 500;
const N = DOMAINS * PER_DOMAIN;

t.test(`one change among ${N} configs touches one scheduler entry`, async (t) => {
  const s = await openTestStore();
  t.teardown(() => s.close());
  // The fleet, written in bulk (the service path is measured by bench/probes.ts): 100 domains of 500
  // port endpoints, each with a daily config, so no probe is due during the test.
  const now = new Date().toISOString();
  const domains: Awaited<ReturnType<typeof s.services.domains.create>>[] = [];
  for (let d = 0; d < DOMAINS; d++)
    domains.push(await s.services.domains.create(s.teamId, { domain: `fleet-${d}.example` } as never));
  await s.store.transaction(async (tx) => {
    let seq = 0;
    for (const d of domains) {
      const eps = Array.from({ length: PER_DOMAIN }, (_, i) => ({
        id: newId(),
        team_id: s.teamId,
        domain_id: d.id,
        name: `p-${i}`,
        endpoint_type: 'port',
        subdomain: null,
        path: null,
        port: 9,
        is_enabled: 1,
        timeout_seconds: 5,
        notes: null,
        created_at: now,
        updated_at: now,
      }));
      for (let i = 0; i < eps.length; i += 250)
        await tx.db
          .insertInto('endpoints')
          .values(eps.slice(i, i + 250))
          .execute();
      const cfgs = eps.map((e) => ({
        id: newId(),
        seq: ++seq,
        team_id: s.teamId,
        endpoint_id: e.id,
        is_enabled: 1,
        timeout_seconds: 5,
        expected_status_code: 200,
        interval_seconds: 86_400,
        failure_threshold: 1,
        confirm_from: 1,
        created_at: now,
        updated_at: now,
      }));
      for (let i = 0; i < cfgs.length; i += 250)
        await tx.db
          .insertInto('liveness_configs')
          .values(cfgs.slice(i, i + 250))
          .execute();
    }
  });
  const queue = memoryDueQueue({
    monitor: s.services.monitor,
    onChange: s.services.liveness.onChange,
    clock: systemClock,
    stamp: () => s.store.stamp([]),
  });
  const sched = createLivenessScheduler({
    monitor: s.services.monitor,
    queue,
    probe: livenessProbe(s.probes),
    clock: systemClock,
    log: s.log,
  });
  await sched.start();
  t.teardown(() => sched.stop());
  await sched.settled();
  t.equal(queue.size(), N, 'the whole fleet is queued');
  t.equal(sched.size(), N, 'and held by the one process');
  t.same([queue.stats.targetsRead, queue.stats.fullLoads], [N, 1], 'start-up read each config once');
  /** A claim round once the changes so far are applied (a round already under way may predate them). */
  const claimed = async () => {
    await queue.settled();
    await sched.reload();
    await sched.reload();
  };

  // A changed interval: one entry re-read, its lease revoked and claimed again on the new interval.
  const [one] = (await s.services.liveness.list(s.teamId, {}, { limit: 1, offset: 0 })).items;
  const before = sched.dueOf(one!.id)!;
  await s.services.liveness.update(s.teamId, one!.id, { interval_seconds: 30 });
  await claimed();
  t.equal(queue.stats.targetsRead, N + 1, 'exactly one entry read from the store');
  t.ok(
    sched.dueOf(one!.id)! < before && sched.dueOf(one!.id)! <= Date.now() + 30_000,
    'rescheduled on the new interval',
  );

  // A new endpoint with a config: one entry added.
  const ep = await s.services.endpoints.create(s.teamId, {
    domain_id: domains[0]!.id,
    name: 'new',
    endpoint_type: 'port',
    port: 9,
  } as never);
  const cfg = await s.services.liveness.create(s.teamId, { endpoint_id: ep.id, interval_seconds: 86_400 });
  await claimed();
  t.same([queue.size(), queue.stats.targetsRead], [N + 1, N + 2], 'one more entry, one more read');
  t.ok(sched.dueOf(cfg.id)! <= Date.now() + 1000, 'a new config starts within a second');

  // Disabling an endpoint drops its entry; deleting a domain drops its 500 (nothing re-read).
  const [victim] = (await s.services.endpoints.list(s.teamId, { domain_id: domains[1]!.id }, { limit: 1, offset: 0 }))
    .items;
  await s.services.endpoints.update(s.teamId, victim!.id, { is_enabled: false });
  await queue.settled();
  t.same([queue.size(), queue.stats.targetsRead], [N, N + 2], 'disabled endpoint: its entry dropped');
  await s.services.domains.remove(s.teamId, domains[2]!.id);
  await queue.settled();
  t.same([queue.size(), queue.stats.targetsRead], [N - PER_DOMAIN, N + 2], 'deleted domain: its 500 entries dropped');

  // A rename re-reads that domain's configs only.
  await s.services.domains.update(s.teamId, domains[3]!.id, { domain: 'renamed.example' } as never);
  await queue.settled();
  t.equal(queue.stats.targetsRead, N + 2 + PER_DOMAIN, 'renamed domain: its 500 entries re-read');
  await sleep(200);
  t.equal(queue.stats.fullLoads, 1, 'none of these in-process changes caused a full reload');

  // Another process (the CLI) disables a config: the external stamp moves and the set is read again
  // at the next claim.
  const other = await openStore(s.store.file);
  t.teardown(() => other.close());
  await other.db.updateTable('liveness_configs').set({ is_enabled: 0 }).where('id', '=', cfg.id).execute();
  const gone = async () => (await queue.leases([{ configId: cfg.id, region: '' }])).length === 0;
  // A full reload of 50,000 configs: long on a loaded machine.
  await waitFor(async () => queue.stats.fullLoads === 2 && (await gone()), 60_000);
  t.equal(queue.size(), N - PER_DOMAIN - 1, "the other process's change is applied");
});
