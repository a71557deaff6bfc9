// Registration and DNS-security refreshes from the check_schedule table, the health/expiry sweep,
// the weekly RDAP bootstrap refresh and the ownership-verification worker. Nothing here throws out
// of a cycle: every failure is logged and the target is rescheduled.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Domain } from '../domain/types.js';
import type { Exclusive } from '../services/deps.js';
import type { IntelServices } from '../services/intel.js';
import { periodic, type Worker } from './periodic.js';
import { eachLimit } from '../domain/concurrency.js';

import { DOMAIN_REFRESH_KINDS, type DomainRefreshKind } from '../domain/types.js';

interface IntelSchedulerDeps {
  intel: IntelServices;
  clock: Clock;
  log: Logger;
  /** DOMMON_CHECK_INTERVAL and DOMMON_VERIFY_INTERVAL, seconds. */
  checkInterval: number;
  verifyInterval: number;
  /** How often the schedule table is looked at (ms). */
  tickMs?: number;
  sweepMs?: number;
  concurrency?: number;
  /** Skip the IANA bootstrap refresh (DOMMON_RDAP_URL set: nothing to bootstrap). */
  refreshBootstrap?: boolean;
  /** The bootstrap refresh to run instead of the store's own (several nodes: services/bootstrap.ts). */
  bootstrapRefresh?: (now: Date) => Promise<unknown>;
  /** Runs the health sweep only where this node holds its singleton lock (store/singletons.ts). */
  exclusive?: Exclusive;
}

const SYNC_MS = 600_000;

export function createIntelScheduler(deps: IntelSchedulerDeps) {
  const { intel, clock, log } = deps;
  const concurrency = deps.concurrency ?? 4;
  const leaseMs = 120_000;
  const startedAt = performance.now();
  // Set by stop(): claimed jobs not yet started stay claimed (their lease runs out) instead of running.
  let stopping = false;
  let syncedAt = -Infinity;
  const runners = {
    registration: (d: Domain) => intel.refreshRegistration(d).then((r) => r.state),
    security: (d: Domain) => intel.refreshSecurity(d).then((s) => `score ${s.security_score}`),
    nameservers: (d: Domain) =>
      intel.refreshNameservers(d).then((s) => (s.error ? `failed: ${s.error}` : `${s.nameservers?.length} NS`)),
  } satisfies Record<DomainRefreshKind, (d: Domain) => Promise<string>>;

  async function runOne(kind: DomainRefreshKind, targetId: string): Promise<void> {
    const d = await intel.schedule.domain(targetId);
    if (!d) return;
    try {
      const outcome = await runners[kind](d);
      log.debug({ kind, domain: d.domain, outcome }, 'refresh done');
    } catch (err) {
      if (stopping) return; // cancelled by stop(): the claim's lease runs out and the next start retries
      // The services own the schedule: the refresh wrote its next run with its result; a crash is
      // retried after a tenth of the interval.
      await intel.refreshFailed(kind, targetId, (err as Error).message).catch(() => undefined);
      log.warn({ kind, domain: d.domain, err: (err as Error).message }, 'refresh failed');
    }
  }

  /** One pass: sync rows for new domains, claim what is due, run it with a concurrency limit. */
  async function tick(): Promise<number> {
    const now = clock.now();
    const iso = now.toISOString();
    const jobs: { kind: DomainRefreshKind; id: string }[] = [];
    // The domain service writes and deletes a domain's schedule rows with the domain itself; this full
    // sync (a scan of every domain; its cost is in docs/benchmarks.md) only repairs rows written some other way: at
    // start and every 10 minutes.
    if (performance.now() - syncedAt >= SYNC_MS) {
      await intel.schedule.sync(DOMAIN_REFRESH_KINDS, iso);
      syncedAt = performance.now();
    }
    // Nothing due (most ticks): one read for every kind, no write.
    for (const kind of await intel.schedule.dueKinds(DOMAIN_REFRESH_KINDS, iso)) {
      const due = await intel.schedule.claimDue(kind, iso, 50, new Date(now.getTime() + leaseMs).toISOString());
      jobs.push(...due.map((id) => ({ kind, id })));
    }
    await eachLimit(
      jobs,
      concurrency,
      (j) => runOne(j.kind, j.id).catch((err) => log.error({ err: (err as Error).message }, 'refresh crashed')),
      () => stopping,
    );
    // The first bootstrap refresh waits a minute after start, so short-lived processes never fetch it.
    if (deps.refreshBootstrap !== false && intel.bootstrap && performance.now() - startedAt > 60_000) {
      const refresh = deps.bootstrapRefresh;
      const bootstrap = intel.bootstrap;
      void (refresh
        ? refresh(now).catch((err: Error) => log.warn({ err: err.message }, 'RDAP bootstrap refresh failed'))
        : bootstrap
            .refreshIfStale(now)
            .then((r) => r === 'refreshed' && log.info('RDAP bootstrap refreshed from IANA')));
    }
    return jobs.length;
  }

  const workers: (Worker & { runNow(): Promise<void> })[] = [
    periodic('intel-refresh', deps.tickMs ?? 1000, tick, log),
    periodic(
      'intel-sweep',
      deps.sweepMs ?? 60_000,
      () => (deps.exclusive ? deps.exclusive('sweep', () => intel.sweep()) : intel.sweep()),
      log,
    ),
    periodic(
      'verification',
      deps.verifyInterval * 1000,
      () => intel.verification.cycle(deps.verifyInterval * 900),
      log,
    ),
  ];

  return {
    tick,
    workers,
    start() {
      stopping = false;
      for (const w of workers) void w.start();
    },
    async stop() {
      stopping = true;
      intel.abort();
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
