// Liveness monitoring use cases: record probe outcomes (raw row, aggregates, state and down/recovery
// events in one transaction) and answer results, stats and status from the aggregates.
import { isoNow, type Clock } from '../domain/clock.js';
import { NotFound } from '../domain/errors.js';
import { fullUrl } from '../domain/endpoint.js';
import { explainCheckError } from '../domain/check-error.js';
import {
  applyOutcome,
  combineRegions,
  DEFAULT_REGION,
  dueKey,
  regionalTs,
  dayOf,
  dayString,
  DAY_MS,
  HOUR_MS,
  first24hBucket,
  first7dBucket,
  hourOf,
  INITIAL_STATE,
  resultId,
  statsHealth,
  uptimePercent,
  type CheckOutcome,
  type LivenessState,
  type Sums,
} from '../domain/liveness.js';
import type { Endpoint, LivenessConfig } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { HealthHook } from './deps.js';
import type { Fence } from './due-queue.js';
import type { MaintenanceWindowService } from './maintenance-windows.js';

export interface Recorded {
  config: LivenessConfig;
  endpoint: Endpoint;
  outcome: CheckOutcome;
  /** Epoch ms when the probe started. */
  at: number;
  /**
   * A run claimed from the due-queue (services/due-queue.ts): its lease's fencing token and the next
   * due time, ended with the result (the fence); a result whose lease was taken over is dropped.
   */
  lease?: { token: number; next: number | null; keep?: boolean; region?: string };
  /**
   * The config's state before this result as the lease's holder knows it (null: none yet): it wrote
   * that state itself and held the lease since, so nobody else wrote one (configs checked from anywhere;
   * a change since then revoked the lease and the result is fenced out). Absent: read it.
   */
  prev?: LivenessState | null;
  /** The region of the node that checked (default `default`). */
  region?: string;
}

/** One entry of the scheduler's working set. */
export interface Target {
  config: LivenessConfig;
  endpoint: Endpoint;
}

/** Which part of the working set to read: one config, one endpoint's, one domain's, or a page by id. */
interface TargetScope {
  id?: string;
  ids?: readonly string[];
  endpoint_id?: string;
  domain_id?: string;
  after?: string;
  limit?: number;
}

export interface LivenessStatus {
  /** `maintenance`: a maintenance window covers the endpoint now (its checks go on, alerts wait). */
  status: 'up' | 'down' | 'unknown' | 'maintenance';
  consecutive_failures: number;
  uptime_24h: number | null;
  uptime_7d: number | null;
  avg_response_time_ms: number | null;
  last_check: string | null;
  last_check_successful: boolean | null;
  response_time_ms: number | null;
  status_code: number | null;
  last_error: string | null;
}

/** One region's view of a configuration checked from several (the status answer's `regions`). */
interface RegionView extends Omit<LivenessState, 'status' | 'alerted_down'> {
  region: string;
  status: 'up' | 'down' | 'unknown';
}

/** Sums of several buckets (none: zeros). */
const sumOf = (rows: readonly Sums[]): Sums =>
  rows.reduce((a, r) => ({ total: a.total + r.total, ok: a.ok + r.ok, sum_ms: a.sum_ms + Number(r.sum_ms) }), {
    total: 0,
    ok: 0,
    sum_ms: 0,
  });

/** A span's sums as the stats answers show them (a span without checks: zeros). */
const statsOf = (x: Sums) => ({
  total_tests: x.total,
  successful_tests: x.ok,
  success_rate: uptimePercent(x) ?? 0,
  avg_response_time_ms: x.total ? Math.round(Number(x.sum_ms) / x.total) : 0,
});

function toStatus(s: LivenessState, h24: Sums, d7: Sums): LivenessStatus {
  return {
    status: s.status ?? 'unknown',
    consecutive_failures: s.consecutive_failures,
    uptime_24h: uptimePercent(h24),
    uptime_7d: uptimePercent(d7),
    avg_response_time_ms: h24.total ? Math.round(h24.sum_ms / h24.total) : null,
    last_check: s.last_check,
    last_check_successful: s.last_check_successful,
    response_time_ms: s.response_time_ms,
    status_code: s.status_code,
    last_error: s.last_error,
  };
}

export function createMonitorService({
  store,
  clock,
  metrics,
  recomputeHealth,
  recomputeHealthMany,
  maintenance,
}: {
  store: Store;
  clock: Clock;
  metrics?: { check(kind: string, outcome: string, n?: number): void };
  recomputeHealth?: HealthHook;
  /** Recomputes many domains at once (services/health.ts recomputeMany); absent: recomputeHealth, one by one. */
  recomputeHealthMany?: (domainIds: readonly string[]) => Promise<unknown>;
  /** Which maintenance window covers an endpoint when (absent: none ever does). */
  maintenance?: Pick<MaintenanceWindowService, 'covering' | 'coveringEach' | 'spansOf'>;
}) {
  async function config(teamId: string, id: string): Promise<LivenessConfig> {
    const c = await store.liveness.get(teamId, id);
    if (!c) throw new NotFound('Liveness configuration');
    return c;
  }

  // Domains whose liveness input flipped: recomputed right after the write, off the probe write path,
  // by one loop that takes every domain due at once (a burst of flips costs one recompute per domain per pass).
  const healthDue = new Set<string>();
  let healthRun: Promise<void> | null = null;
  let healthCooldownUntil = 0;
  function healthLoop(): Promise<void> {
    healthRun ??= (async () => {
      while (healthDue.size && recomputeHealth) {
        // A burst of flips (the first pass over thousands of probes of one domain) is taken in passes
        // spaced by 50x the last pass's own time (at least 250 ms), so recomputing stays under ~2% of a core.
        const wait = healthCooldownUntil - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
        const ids = [...healthDue];
        healthDue.clear();
        const started = performance.now();
        // A failure is left to the sweep, which recomputes every domain.
        if (recomputeHealthMany) await recomputeHealthMany(ids).catch(() => undefined);
        else for (const id of ids) await recomputeHealth(store, id).catch(() => undefined);
        healthCooldownUntil = performance.now() + Math.max(250, 50 * (performance.now() - started));
      }
      healthDue.clear();
    })().finally(() => {
      healthRun = null;
    });
    return healthRun;
  }

  /**
   * Current status and uptime of configurations (by id) from their state rows and the aggregates at
   * `now` (epoch ms): three queries for the lot, however many there are (up to 500 each).
   */
  async function statusesOf(
    configs: readonly Pick<LivenessConfig, 'id' | 'seq' | 'endpoint_id'>[],
    now = clock.now().getTime(),
  ): Promise<Map<string, LivenessStatus>> {
    if (!configs.length) return new Map();
    const seqs = configs.map((c) => c.seq);
    const [states, h24, d7, covered] = await Promise.all([
      store.livenessData.statesIn(configs.map((c) => c.id)),
      store.livenessData.hourlySums(seqs, first24hBucket(now)),
      store.livenessData.dailySums(seqs, first7dBucket(now)),
      maintenance?.covering(
        configs.map((c) => c.endpoint_id),
        now,
      ),
    ]);
    return new Map(
      configs.map((c) => {
        const s = toStatus(states.get(c.id) ?? INITIAL_STATE, h24(c.seq), d7(c.seq));
        return [c.id, covered?.has(c.endpoint_id) ? { ...s, status: 'maintenance' } : s];
      }),
    );
  }

  /**
   * Uptimes that leave out the checks made while a maintenance window covered the endpoint: the
   * aggregates less the raw results inside the windows' spans (raw results are kept
   * DOMMON_RESULT_RETENTION_DAYS, so older spans cannot be taken out).
   */
  async function uptimesOutsideWindows(c: LivenessConfig, now: number) {
    const from24 = first24hBucket(now) * HOUR_MS;
    const from7 = first7dBucket(now) * DAY_MS;
    const spans = maintenance ? await maintenance.spansOf(c.endpoint_id, from7, now + 1) : [];
    const [h24, d7] = await Promise.all([
      store.livenessData.hourlySums([c.seq], first24hBucket(now)),
      store.livenessData.dailySums([c.seq], first7dBucket(now)),
    ]);
    const less = async (all: Sums, from: number) => {
      const inside = spans.filter((s) => s.end > from).map((s) => ({ start: Math.max(s.start, from), end: s.end }));
      const x = inside.length ? await store.livenessData.rawSumsIn(c.seq, inside) : { total: 0, ok: 0, sum_ms: 0 };
      return { total: all.total - x.total, ok: all.ok - x.ok, sum_ms: all.sum_ms - x.sum_ms };
    };
    const [a, b] = await Promise.all([less(h24(c.seq), from24), less(d7(c.seq), from7)]);
    return {
      uptime_24h: uptimePercent(a),
      uptime_7d: uptimePercent(b),
      avg_response_time_ms: a.total ? Math.round(a.sum_ms / a.total) : null,
    };
  }

  const statusOf = async (c: LivenessConfig): Promise<LivenessStatus> => (await statusesOf([c])).get(c.id)!;

  /** Enabled configs of enabled endpoints in a scope (see the repository), with their endpoints (by ids: one read). */
  async function targetsIn(scope: TargetScope): Promise<Target[]> {
    const { ids, ...rest } = scope;
    if (ids) return store.liveness.enabledTargetsByIds(ids);
    const configs = await store.liveness.enabledTargets(rest);
    if (!configs.length) return [];
    const byId = new Map((await store.endpoints.byIds(configs.map((c) => c.endpoint_id))).map((e) => [e.id, e]));
    return configs.flatMap((c) => {
      const endpoint = byId.get(c.endpoint_id);
      return endpoint?.is_enabled ? [{ config: c, endpoint }] : [];
    });
  }

  return {
    statusOf,
    statusesOf,
    /** Resolves once the health of every domain whose liveness flipped so far is stored. */
    healthSettled: async (): Promise<void> => {
      while (healthRun || healthDue.size) await healthLoop();
    },

    targetsIn,

    /** The whole working set, a page (by config id) at a time: start-up never holds two copies of it. */
    async *targetPages(size = 1000): AsyncGenerator<Target[]> {
      for (let after: string | undefined; ;) {
        const page = await targetsIn({ after, limit: size });
        if (page.length) yield page;
        if (page.length < size) return;
        after = page.at(-1)!.config.id;
      }
    },

    /** The whole working set in one array (tests and tools; the scheduler reads it in pages). */
    async targets(): Promise<Target[]> {
      const out: Target[] = [];
      for await (const page of this.targetPages()) out.push(...page);
      return out;
    },

    lastChecks: (configIds: readonly string[]) => store.livenessData.lastChecks(configIds),

    /**
     * Writes a batch of outcomes (raw rows, aggregates, states and down/recovery events) in one
     * transaction; the leased ones only where `fence` (the due-queue's, in the same transaction)
     * finds their lease still held. Returns how many were written (the others' configs were deleted,
     * or their leases taken over or revoked), the dueKeys of leased runs not written (the node holds
     * them no more), and the new states of the configs checked from anywhere that were written (a
     * lease's holder keeps them: see Recorded.prev).
     */
    async record(
      batch: Recorded[],
      fence?: Fence,
    ): Promise<{ written: number; fenced: string[]; states: Map<string, LivenessState> }> {
      if (!batch.length) return { written: 0, fenced: [], states: new Map() };
      const ordered = [...batch].sort((a, b) => a.at - b.at);
      // The window covering each result's endpoint when it was checked: its transitions are recorded, not alerted.
      const windows = maintenance
        ? await maintenance.coveringEach(ordered.map((r) => ({ endpointId: r.endpoint.id, at: r.at })))
        : [];
      const windowOf = new Map(ordered.map((r, i) => [r, windows[i] ?? null]));
      const fenced: string[] = [];
      const after = new Map<string, LivenessState>();
      const written = await store.transaction(async (tx) => {
        fenced.length = 0;
        after.clear();
        const now = isoNow(clock);
        const ids = [...new Set(ordered.map((r) => r.config.id))];
        // A config may have been deleted while its probe ran; a claimed run writes only while its lease
        // holds (and sets its next due time in the same transaction).
        // A run claimed again (a new token: its lease was revoked or ran out) supersedes the earlier
        // token's results in the same batch: those were computed before the revoke and are not written.
        const newest = new Map<string, number>();
        for (const r of ordered)
          if (r.lease) {
            const key = dueKey(r.config.id, r.lease.region);
            newest.set(key, Math.max(newest.get(key) ?? -Infinity, r.lease.token));
          }
        const current = (r: Recorded) => newest.get(dueKey(r.config.id, r.lease!.region)) === r.lease!.token;
        const leased = ordered.filter((r) => r.lease && current(r));
        // The states the leases' holders know (each config's first result in the batch: the later ones
        // follow from it); read in the release only when some holder does not know one.
        const known = new Map<string, LivenessState | null>();
        let unknown = false;
        for (const r of leased) {
          if (r.config.regions.length || known.has(r.config.id)) continue;
          if (r.prev === undefined) unknown = true;
          else known.set(r.config.id, r.prev);
        }
        if (leased.length && !fence) throw new Error('leased results need the due-queue that leased them');
        const released = leased.length
          ? await fence!(
              tx,
              [
                ...new Map(
                  leased.map((r) => [
                    dueKey(r.config.id, r.lease!.region),
                    { configId: r.config.id, timeout: r.config.timeout_seconds, ...r.lease! },
                  ]),
                ).values(),
              ],
              unknown,
            )
          : undefined;
        const live = released?.live ?? (await tx.livenessData.existing(ids));
        if (released)
          for (const r of leased) {
            const key = dueKey(r.config.id, r.lease!.region);
            if (!live.has(key)) fenced.push(key);
          }
        const isLive = (r: Recorded) =>
          r.lease ? current(r) && live.has(dueKey(r.config.id, r.lease.region)) : live.has(r.config.id);
        // Configs checked from several regions: their combined state is locked first (two regions'
        // nodes may write one config at once), then every region's view of them is read.
        const liveIds = new Set(ordered.filter(isLive).map((r) => r.config.id));
        const regional = [
          ...new Set(
            ordered.filter((r) => r.config.regions.length && liveIds.has(r.config.id)).map((r) => r.config.id),
          ),
        ];
        if (regional.length) await tx.livenessData.lockStates(regional);
        // The states the holders knew, and those the release read (null: none yet); the others
        // (configs with regions, after their lock; results without a lease) are read here.
        const readWith = new Map<string, LivenessState | null>(known);
        for (const [id, state] of released?.states ?? []) readWith.set(id, state);
        const locked = new Set(regional);
        const unread = [...liveIds].filter((id) => !readWith.has(id) || locked.has(id));
        const states = unread.length ? await tx.livenessData.states(unread) : new Map<string, LivenessState>();
        for (const [id, state] of readWith) if (state && !locked.has(id)) states.set(id, state);
        const views = regional.length
          ? await tx.livenessData.regionStates(regional)
          : new Map<string, Map<string, LivenessState>>();
        const rows = [];
        const changed = new Map<string, LivenessState>();
        const changedViews = new Map<string, { configId: string; region: string; state: LivenessState }>();
        // Domains whose health input moved: a status flip or a check outcome flip (uptime starts or stops falling).
        const flipped = new Set<string>();
        for (const r of ordered) {
          if (!isLive(r)) continue;
          const region = r.region ?? DEFAULT_REGION;
          const regions = r.config.regions;
          // A run of a region the config no longer lists (changed while it ran) counts for nothing.
          if (regions.length && !regions.includes(region)) continue;
          rows.push({
            cfg: r.config.seq,
            ts: regionalTs(r.at, regions, region),
            ok: r.outcome.ok,
            ms: r.outcome.responseTimeMs,
            status: r.outcome.statusCode,
            error: r.outcome.error,
            region,
            detail: r.outcome.detail ?? null,
            regional: regions.length > 0,
          });
          const prev: LivenessState = changed.get(r.config.id) ?? states.get(r.config.id) ?? INITIAL_STATE;
          const at = new Date(r.at).toISOString();
          const quiet = windowOf.get(r) ?? null;
          let next: LivenessState;
          let event: 'down' | 'recovery' | null;
          let down: string[] = [];
          if (regions.length) {
            let v = views.get(r.config.id);
            if (!v) views.set(r.config.id, (v = new Map<string, LivenessState>()));
            const view = applyOutcome(v.get(region) ?? INITIAL_STATE, r.outcome, at, r.config.failure_threshold).next;
            v.set(region, view);
            changedViews.set(dueKey(r.config.id, region), { configId: r.config.id, region, state: view });
            ({ next, event, down } = combineRegions(prev, v, r.config, { at, outcome: r.outcome }, quiet !== null));
          } else ({ next, event } = applyOutcome(prev, r.outcome, at, r.config.failure_threshold, quiet !== null));
          changed.set(r.config.id, next);
          if (next.status !== prev.status || next.last_check_successful !== prev.last_check_successful)
            flipped.add(r.endpoint.domain_id);
          if (event) {
            const url = fullUrl(r.endpoint);
            const where =
              (regions.length
                ? event === 'down'
                  ? ` from ${down.length} of ${regions.length} regions (${down.join(', ')})`
                  : ` (seen from ${region})`
                : '') + (quiet ? ` during maintenance window "${quiet.window.name}" (not notified)` : '');
            await tx.events.add(
              {
                team_id: r.config.team_id,
                event_type: 'liveness',
                severity: event === 'down' ? 'high' : 'info',
                category: event === 'down' ? 'endpoint_down' : 'endpoint_recovered',
                domain_id: r.endpoint.domain_id,
                endpoint_id: r.endpoint.id,
                message:
                  event === 'down'
                    ? `${r.endpoint.name} (${url}) is DOWN${where} after ${next.consecutive_failures} failed check(s): ${r.outcome.error ?? 'failed'}`
                    : `${r.endpoint.name} (${url}) has RECOVERED${where} (${r.outcome.responseTimeMs} ms)`,
                details: {
                  transition: event,
                  url,
                  status_code: r.outcome.statusCode,
                  error: r.outcome.error,
                  consecutive_failures: next.consecutive_failures,
                  response_time_ms: r.outcome.responseTimeMs,
                  region,
                  ...(regions.length ? { regions_down: down, confirm_from: r.config.confirm_from } : {}),
                  ...(quiet ? { maintenance_window_id: quiet.window.id } : {}),
                },
                maintenance_window_id: quiet?.window.id ?? null,
              },
              now,
            );
          }
        }
        await tx.livenessData.addResults(
          rows,
          [...changed].map(([configId, state]) => ({ configId, state, exists: states.has(configId) })),
        );
        if (changedViews.size) await tx.livenessData.saveRegionStates([...changedViews.values()]);
        for (const [id, state] of changed) if (!locked.has(id)) after.set(id, state);
        for (const id of flipped) healthDue.add(id);
        return rows.length;
      });
      if (healthDue.size) void healthLoop();
      if (metrics) {
        const ok = ordered.reduce((n, r) => n + (r.outcome.ok ? 1 : 0), 0);
        if (ok) metrics.check('liveness', 'success', ok);
        if (ordered.length > ok) metrics.check('liveness', 'failure', ordered.length - ok);
      }
      return { written, fenced: [...new Set(fenced)], states: after };
    },

    async results(teamId: string, id: string, q: { hours: number; limit: number; offset: number; region?: string }) {
      const c = await config(teamId, id);
      const since = clock.now().getTime() - q.hours * 3_600_000;
      const page = await store.livenessData.results(c.seq, since, q.limit, q.offset, q.region);
      return {
        total: page.total,
        items: page.items.map((r) => {
          const ts = new Date(r.ts).toISOString();
          return {
            id: resultId(c.seq, r.ts),
            test_timestamp: ts,
            timestamp: ts,
            is_successful: r.ok,
            response_time_ms: r.ms,
            status_code: r.status,
            error: r.error,
            region: r.region,
            // The check type's own numbers, under its name (`icmp`), on the results that have them.
            ...r.detail,
          };
        }),
      };
    },

    async stats(teamId: string, id: string, days: number) {
      const c = await config(teamId, id);
      const from = dayOf(clock.now().getTime()) - days + 1;
      // Configs with regions: the same span per region (every listed region, checked or not; a region
      // the config no longer lists is left out), read with the totals in one snapshot.
      const { daily: rows, regions: perRegion } = await store.livenessData.dailyWithRegions(
        c.seq,
        from,
        c.regions.length > 0,
      );
      const all = sumOf(rows);
      const state = (await store.livenessData.state(c.id)) ?? INITIAL_STATE;
      const rate = uptimePercent(all);
      return {
        regions: c.regions.map((region) => ({
          region,
          ...statsOf(sumOf(perRegion.filter((r) => r.region === region))),
        })),
        confirm_from: c.confirm_from,
        stats: rows.map((r) => ({ date: dayString(r.bucket), ...statsOf(r) })),
        days,
        ...statsOf(all),
        status: statsHealth(rate, state.consecutive_failures, c.failure_threshold),
        consecutive_failures: state.consecutive_failures,
      };
    },

    /** Hourly aggregates of the last `hours` hours (the current hour included), oldest first; hours without checks are absent. */
    async hourly(teamId: string, id: string, hours: number) {
      const c = await config(teamId, id);
      const rows = await store.livenessData.hourly(c.seq, hourOf(clock.now().getTime()) - hours + 1);
      return rows.map((r) => ({ hour: new Date(r.bucket * 3_600_000).toISOString(), ...statsOf(r) }));
    },

    /**
     * The combined status, and with regions each region's own view (`unknown`: none of its nodes
     * checked yet). `excludeMaintenance`: uptimes and average leave out checks made in maintenance windows.
     */
    async status(
      teamId: string,
      id: string,
      opts: { excludeMaintenance?: boolean } = {},
    ): Promise<
      LivenessStatus & {
        id: string;
        endpoint_id: string;
        reason: string | null;
        confirm_from: number;
        regions: RegionView[];
      }
    > {
      const c = await config(teamId, id);
      const uptimes = opts.excludeMaintenance ? await uptimesOutsideWindows(c, clock.now().getTime()) : {};
      const views: ReadonlyMap<string, LivenessState> =
        (c.regions.length ? (await store.livenessData.regionStates([c.id])).get(c.id) : undefined) ?? new Map();
      const combined = await statusOf(c);
      return {
        id: c.id,
        endpoint_id: c.endpoint_id,
        ...combined,
        ...uptimes,
        reason: combined.last_check_successful === false ? explainCheckError(combined.last_error) : null,
        confirm_from: c.confirm_from,
        regions: c.regions.map((region) => {
          const v: LivenessState = views.get(region) ?? INITIAL_STATE;
          return {
            region,
            status: v.status ?? 'unknown',
            consecutive_failures: v.consecutive_failures,
            last_check: v.last_check,
            last_check_successful: v.last_check_successful,
            response_time_ms: v.response_time_ms,
            status_code: v.status_code,
            last_error: v.last_error,
            reason: v.last_check_successful === false ? explainCheckError(v.last_error) : null,
          };
        }),
      };
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
