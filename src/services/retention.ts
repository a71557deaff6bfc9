// Keeps the database bounded: a daily job deletes old raw results, finished delivery logs, old
// events and history in small batches (yielding between them so probes keep writing), then runs
// an incremental vacuum so the file gives the space back. The only place that prunes anything:
// the probing workers and the notification worker never delete history themselves.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/index.js';
import type { PingKind } from '../domain/push.js';
// The endpoint types' rules: forgetting certificates asks which types carry one (loading the registry defines them).
import '../probes/registry.js';

const DAY_MS = 86_400_000;

const PING_KINDS: readonly PingKind[] = ['start', 'success', 'fail', 'log'];
const HOUR_MS = 3_600_000;

/** Defaults of the liveness windows (DOMMON_RESULT_RETENTION_DAYS, DOMMON_HOURLY_RETENTION_DAYS, DOMMON_DAILY_RETENTION_DAYS). */
const LIVENESS_RETENTION_DAYS = { results: 7, hourly: 90, daily: 400 } as const;

/** Default of DOMMON_AUDIT_RETENTION_DAYS: a year of who changed what. */
const AUDIT_RETENTION_DAYS = 365;

/** Days of result partitions made ahead on PostgreSQL (retention runs daily; a missed day or two is covered). */
const PARTITION_DAYS_AHEAD = 3;

/** Windows of everything besides liveness results and aggregates; docs/operations.md lists them. */
export const RETENTION_WINDOWS = {
  /** finished deliveries (success/failed) and their attempts: the notification log */
  deliveryLogDays: 90,
  /** events already fanned out to every channel */
  eventDays: 90,
  /** fanned-out events that carry a dedupe key (they stop a repeated alert for the same window) */
  dedupedEventDays: 400,
  /** registration changes (registrar, expiry, name servers, statuses) */
  registrationHistoryDays: 730,
  /** certificates no longer served */
  certificateHistoryDays: 730,
  /** finished exposure scans (findings stay) */
  exposureScanDays: 180,
} as const;

interface RetentionReport {
  started_at: string;
  duration_ms: number;
  batches: number;
  deleted: {
    liveness_results: number;
    liveness_aggregates: number;
    deliveries: number;
    events: number;
    registration_history: number;
    certificate_history: number;
    exposure_scans: number;
    /** TLS schedule rows (and certificate state) of endpoints that are gone or no longer speak TLS. */
    tls_schedules: number;
    /** Dashboard sessions past their idle or absolute end (services/sessions.ts). */
    web_sessions: number;
    /** Heartbeat pings older than the raw results (each endpoint's last start and last finish stay). */
    push_pings: number;
    /** Audit trail entries older than DOMMON_AUDIT_RETENTION_DAYS. */
    audit_log: number;
  };
  /** Stopped early by the daemon's shutdown (the pass runs again at the next start). */
  aborted: boolean;
  freed_pages: number;
}

interface RetentionDeps {
  store: Store;
  clock: Clock;
  resultRetentionDays: number;
  /** Days of hourly liveness aggregates kept (default 90). */
  hourlyRetentionDays?: number;
  /** Days of daily liveness aggregates kept (default 400). */
  dailyRetentionDays?: number;
  /** A dashboard session unused this long has ended (DOMMON_SESSION_IDLE_HOURS; default 12 h). */
  sessionIdleMs?: number;
  /** Days of audit trail kept (DOMMON_AUDIT_RETENTION_DAYS; default 365). */
  auditRetentionDays?: number;
  log?: Logger;
  /** Rows per delete statement. */
  batchSize?: number;
  /** Pages per incremental_vacuum step. */
  vacuumPages?: number;
}

const LAST_RUN_KEY = 'retention.last_run';
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createRetentionService(deps: RetentionDeps) {
  const { store, clock } = deps;
  const batchSize = deps.batchSize ?? 1000;
  const vacuumPages = deps.vacuumPages ?? 512;
  let running: Promise<RetentionReport> | undefined;

  async function drain(
    step: () => Promise<number>,
    counter: { batches: number },
    signal?: AbortSignal,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const n = await step();
      counter.batches++;
      total += n;
      await yieldToLoop();
      if (n < batchSize) return total;
    }
  }

  async function runOnce(signal?: AbortSignal): Promise<RetentionReport> {
    const now = clock.now();
    const t0 = performance.now();
    const ms = now.getTime();
    const ago = (days: number) => new Date(ms - days * DAY_MS).toISOString();
    const w = RETENTION_WINDOWS;
    const r = store.retention;
    const counter = { batches: 0 };

    let results = 0;
    const beforeTs = ms - deps.resultRetentionDays * DAY_MS;
    // PostgreSQL: whole days go as partitions (no row deletes), and the next days' are made ahead;
    // what is left (the default partition, the day the cut falls in) goes by range as on SQLite.
    results += await r.dropResultPartitionsBefore(beforeTs);
    await r.ensureResultPartitions(Math.floor(ms / DAY_MS), Math.floor(ms / DAY_MS) + PARTITION_DAYS_AHEAD);
    for (const seq of await r.livenessSeqsWithResultsBefore(beforeTs))
      results += await drain(() => r.deleteResults(seq, beforeTs, batchSize), counter, signal);
    // Aggregates too go by primary-key range, one configuration and batch at a time: no full scan of
    // tables that hold a row per configuration and hour.
    const beforeHour = Math.floor(ms / HOUR_MS) - (deps.hourlyRetentionDays ?? LIVENESS_RETENTION_DAYS.hourly) * 24;
    const beforeDay = Math.floor(ms / DAY_MS) - (deps.dailyRetentionDays ?? LIVENESS_RETENTION_DAYS.daily);
    let aggregates = 0;
    for (const [table, before] of [
      ['liveness_hourly', beforeHour],
      ['liveness_daily', beforeDay],
      ['liveness_region_daily', beforeDay],
    ] as const) {
      for (const seq of await r.livenessSeqsWithAggregatesBefore(table, before))
        aggregates += await drain(() => r.deleteAggregates(table, seq, before, batchSize), counter, signal);
    }
    // Heartbeat pings are a push endpoint's raw results: kept as long, by index range one endpoint,
    // kind and batch at a time.
    let pings = 0;
    for (const kind of PING_KINDS)
      for (const id of await r.pushEndpointsWithPingsBefore(kind, beforeTs))
        pings += await drain(() => r.deletePings(id, kind, beforeTs, batchSize), counter, signal);
    const deliveries = await drain(() => r.deleteDeliveries(ago(w.deliveryLogDays), batchSize), counter, signal);
    const events = await drain(
      () => r.deleteEvents(ago(w.eventDays), ago(w.dedupedEventDays), batchSize),
      counter,
      signal,
    );
    const registration = await drain(
      () => r.deleteRegistrationHistory(ago(w.registrationHistoryDays), batchSize),
      counter,
      signal,
    );
    const certificates = await drain(
      () => r.deleteCertificateHistory(ago(w.certificateHistoryDays), batchSize),
      counter,
      signal,
    );
    const scans = await drain(() => r.deleteExposureScans(ago(w.exposureScanDays), batchSize), counter, signal);
    const audit = await drain(
      () => store.audit.prune(ago(deps.auditRetentionDays ?? AUDIT_RETENTION_DAYS), batchSize),
      counter,
      signal,
    );
    const tlsSchedules = await store.certificates.forgetIneligible();
    const sessions = await store.webSessions.prune(ms, ms - (deps.sessionIdleMs ?? 12 * HOUR_MS));
    // One-time links a day after they were used or ran out (until then a second use says "used").
    await store.oneTimeLinks.prune(ms - 24 * HOUR_MS);

    // Freed pages go back to the file system a slice at a time; the checkpoint lets the file shrink.
    const freeBefore = await r.freePages();
    let free = freeBefore;
    while (free > 0 && !signal?.aborted) {
      await r.incrementalVacuum(vacuumPages);
      await yieldToLoop();
      const next = await r.freePages();
      if (next >= free) break; // auto_vacuum is off for this file: nothing to give back
      free = next;
    }
    await r.checkpoint();

    const report: RetentionReport = {
      started_at: now.toISOString(),
      duration_ms: Math.round(performance.now() - t0),
      batches: counter.batches,
      deleted: {
        liveness_results: results,
        liveness_aggregates: aggregates,
        deliveries,
        events,
        registration_history: registration,
        certificate_history: certificates,
        exposure_scans: scans,
        tls_schedules: tlsSchedules,
        web_sessions: sessions,
        push_pings: pings,
        audit_log: audit,
      },
      freed_pages: freeBefore - free,
      aborted: signal?.aborted ?? false,
    };
    if (!report.aborted) await store.meta.set(LAST_RUN_KEY, report.started_at);
    deps.log?.info({ retention: report }, 'retention run finished');
    return report;
  }

  return {
    /** One full pass now (never two at once); `signal` stops it between batches. */
    runOnce(signal?: AbortSignal): Promise<RetentionReport> {
      running ??= runOnce(signal).finally(() => {
        running = undefined;
      });
      return running;
    },
    /** Runs when the last pass is a day old (or never ran); the daemon calls this hourly, so restarts do not skip it. */
    async runIfDue(signal?: AbortSignal): Promise<RetentionReport | null> {
      const last = await store.meta.get(LAST_RUN_KEY);
      if (last && clock.now().getTime() - Date.parse(last) < DAY_MS) return null;
      return this.runOnce(signal);
    },
    async lastRun(): Promise<string | null> {
      return (await store.meta.get(LAST_RUN_KEY)) ?? null;
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
