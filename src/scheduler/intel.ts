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
  /** At most this long (ms) between a domain's refreshes and its health; HEALTH_FLUSH_MS by default. */
  healthFlushMs?: number;
}

const SYNC_MS = 600_000;
/** At most this long between a domain's refreshes and its health (the coalesced recompute of a round). */
const HEALTH_FLUSH_MS = 1000;

export function createIntelScheduler(deps: IntelSchedulerDeps) {
  const { intel, clock, log } = deps;
  const concurrency = deps.concurrency ?? 4;
  const leaseMs = 120_000;
  const startedAt = performance.now();
  // Set by stop(): claimed jobs not yet started stay claimed (their lease runs out) instead of running.
  let stopping = false;
  let syncedAt = -Infinity;
  // Registration and DNS security feed the domain's health: a round's refreshes leave it to the
  // coalesced recompute below (one per domain, read in batches) instead of one in each refresh's transaction.
  const deferHealth = { deferHealth: true };
  const runners = {
    registration: (d: Domain) => intel.refreshRegistration(d, deferHealth).then((r) => r.state),
    security: (d: Domain) => intel.refreshSecurity(d, deferHealth).then((s) => `score ${s.security_score}`),
    nameservers: (d: Domain) =>
      intel.refreshNameservers(d).then((s) => (s.error ? `failed: ${s.error}` : `${s.nameservers?.length} NS`)),
  } satisfies Record<DomainRefreshKind, (d: Domain) => Promise<string>>;
  const feedsHealth = { registration: true, security: true, nameservers: false } satisfies Record<
    DomainRefreshKind,
    boolean
  >;

  // Domains whose round is over and whose health is not recomputed yet: taken together at the end of
  // the tick, or HEALTH_FLUSH_MS after the first of them, whichever comes first.
  const healthDue = new Set<string>();
  let healthTimer: NodeJS.Timeout | null = null;
  let healthRun: Promise<void> = Promise.resolve();
  function flushHealth(): Promise<void> {
    if (healthTimer) clearTimeout(healthTimer);
    healthTimer = null;
    if (!healthDue.size) return healthRun;
    const ids = [...healthDue];
    healthDue.clear();
    // One flush at a time; a failed one is left to the health sweep, which recomputes every domain.
    healthRun = healthRun.then(() =>
      intel.health.recomputeMany(ids).then(
        () => undefined,
        (err: Error) => log.warn({ err: err.message, domains: ids.length }, 'health recompute failed'),
      ),
    );
    return healthRun;
  }
  function healthAfterRound(domainId: string): void {
    healthDue.add(domainId);
    healthTimer ??= setTimeout(() => void flushHealth(), deps.healthFlushMs ?? HEALTH_FLUSH_MS);
  }

  /** The domain's due refreshes, one after another, then its health (a crashed refresh changed nothing). */
  async function runDomain(d: Domain, kinds: readonly DomainRefreshKind[]): Promise<void> {
    let health = false;
    for (const kind of kinds) {
      if (stopping) break;
      try {
        const outcome = await runners[kind](d);
        health ||= feedsHealth[kind];
        log.debug({ kind, domain: d.domain, outcome }, 'refresh done');
      } catch (err) {
        if (stopping) break; // cancelled by stop(): the claim's lease runs out and the next start retries
        // The services own the schedule: the refresh wrote its next run with its result; a crash is
        // retried after a tenth of the interval.
        await intel.refreshFailed(kind, d.id, (err as Error).message).catch(() => undefined);
        log.warn({ kind, domain: d.domain, err: (err as Error).message }, 'refresh failed');
      }
    }
    if (health) healthAfterRound(d.id);
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
    // A domain's due kinds run together (in DOMAIN_REFRESH_KINDS order: security sees the registration
    // just stored), so its health is recomputed once for the round; the domains are read in one query.
    const byDomain = new Map<string, DomainRefreshKind[]>();
    for (const j of jobs) {
      const kinds = byDomain.get(j.id);
      if (kinds) kinds.push(j.kind);
      else byDomain.set(j.id, [j.kind]);
    }
    const ids = [...byDomain.keys()];
    const found = new Map<string, Domain>();
    for (let i = 0; i < ids.length; i += 500)
      for (const d of await intel.schedule.domains(ids.slice(i, i + 500))) found.set(d.id, d);
    // In the order claimed; a domain deleted since is skipped.
    const domains = ids.flatMap((id) => found.get(id) ?? []);
    await eachLimit(
      domains,
      concurrency,
      (d) =>
        runDomain(d, byDomain.get(d.id)!).catch((err) => log.error({ err: (err as Error).message }, 'refresh crashed')),
      () => stopping,
    );
    await flushHealth();
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
    /** Stops the periodic workers; unlike stop(), look-ups in flight and those asked for still run. */
    async pause() {
      await Promise.all(workers.map((w) => w.stop()));
    },
    async stop() {
      stopping = true;
      intel.abort();
      await Promise.all(workers.map((w) => w.stop()));
      // The refreshes that finished keep their health (the store closes after this).
      await flushHealth();
    },
  };
}

export type IntelScheduler = ReturnType<typeof createIntelScheduler>;
