// Runs every enabled liveness configuration every `interval_seconds`:
// - a timing wheel of 250 ms slots (O(1) per schedule, cheap at 10,000 configs);
// - next run = previous due time + interval, so slow probes never make the schedule drift;
// - first runs are spread over the interval, and after a restart each config resumes from its last result;
// - a global concurrency limit; outcomes are written in batched transactions;
// - changes apply without a restart, in time independent of the fleet's size: a change made in this
//   process (onChange: a config, an endpoint or a domain) re-reads that part of the working set only;
//   a write by another process (the CLI: the store's external stamp, polled every `pollMs`) and a
//   safety net every `reloadMs` (10 min) re-read the whole set, a page at a time.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { askedDue, DEFAULT_REGION, type CheckOutcome } from '../domain/liveness.js';
import type { Endpoint, LivenessConfig } from '../domain/types.js';
import type { MonitorService, Recorded, Target, TargetScope } from '../services/monitor.js';
import type { WorkingSetChange } from '../services/changes.js';

export type LivenessProbe = (endpoint: Endpoint, config: LivenessConfig, signal: AbortSignal) => Promise<CheckOutcome>;

interface LivenessSchedulerDeps {
  monitor: MonitorService;
  onChange(fn: (change: WorkingSetChange) => void): () => void;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  /** A value that changes when another process may have changed the working set (writes here come through onChange). */
  stamp?: () => string;
  concurrency?: number;
  flushMs?: number;
  pollMs?: number;
  reloadMs?: number;
  /** 0..1 random source for jitter (tests may pin it). */
  random?: () => number;
  /** This node's region: configs with regions that do not list it are not its to check (default `default`). */
  region?: string;
}

// A quarter second: lateness stays far under a second while probes due together start in one wake-up
// (batched starts and replies cost markedly less CPU per check than one wake-up per 100 ms).
export const SLOT_MS = 250;

const NO_CHECKS: ReadonlyMap<string, string> = new Map();

/** The run statistics both liveness schedulers keep (this one and the due-queue's, claiming.ts). */
interface RunStats {
  checks: number;
  lateMs: number[];
  firstRun: Map<string, number>;
  runs: { configId: string; due: number; started: number }[];
}

/** Counts a run as it starts, in bounded windows (lateness, the recent schedule). */
export function noteStart(stats: RunStats, configId: string, due: number, started: number): void {
  stats.checks++;
  stats.lateMs.push(started - due);
  if (stats.lateMs.length > 20_000) stats.lateMs.splice(0, 10_000);
  stats.runs.push({ configId, due, started });
  if (stats.runs.length > 2_000) stats.runs.splice(0, 1_000);
  if (!stats.firstRun.has(configId)) stats.firstRun.set(configId, started);
}

/** One probe's outcome: a probe that throws is a failed check with the error's message. */
export async function probeOnce(
  probe: LivenessProbe,
  target: { endpoint: Endpoint; config: LivenessConfig },
  signal: AbortSignal,
  elapsed: () => number,
): Promise<CheckOutcome> {
  try {
    return await probe(target.endpoint, target.config, signal);
  } catch (err) {
    return { ok: false, responseTimeMs: elapsed(), statusCode: null, error: `error: ${(err as Error).message}` };
  }
}

/** A fresh config's second run comes this far into the next interval at the earliest (a fraction of it). */
const FRESH_FROM = 0.6;

/**
 * The next due time (epoch ms, whole) after a run due at `due` that was sent at `sent` and ended at
 * `now`: one interval later, or for a fresh config a random point of the later part of the next
 * interval (configs created together do not probe together forever; FRESH_FROM); missed beats are
 * skipped rather than bunched, and never less than half an interval after the probe went out (a run
 * started late, as a dead node's taken over, does not catch up on its old phase with a second probe
 * right after).
 */
export function nextDue(
  due: number,
  intervalMs: number,
  fresh: boolean,
  random: () => number,
  now: number,
  sent: number = now,
): number {
  let next =
    due + (fresh ? Math.floor(intervalMs * FRESH_FROM + (1 - random()) * intervalMs * (1 - FRESH_FROM)) : intervalMs);
  // Rounded up to a slot boundary: the wheel starts a run anywhere in its slot, so a due time inside
  // the slot could send it up to SLOT_MS before half an interval has passed.
  const earliest = Math.max(now + 1, Math.ceil((sent + Math.ceil(intervalMs / 2)) / SLOT_MS) * SLOT_MS);
  if (next < earliest) next += Math.ceil((earliest - next) / intervalMs) * intervalMs;
  return next;
}

interface Entry {
  config: LivenessConfig;
  endpoint: Endpoint;
  due: number;
  /** Set on every reschedule; wheel items with another version are stale. */
  version: number;
  running: boolean;
  /**
   * Added while running and checked within a second: its second run comes at a random point of the
   * next interval, so configs created together (an import, a bulk create) do not probe together forever.
   */
  fresh: boolean;
}

interface SchedulerStats {
  checks: number;
  /** Lateness of recent runs against their schedule (ms), a bounded window. */
  lateMs: number[];
  /** Start time of each config's first run after start() (epoch ms). */
  firstRun: Map<string, number>;
  /** Recent runs as scheduled (due) and as started (epoch ms), a bounded window: the computed schedule. */
  runs: { configId: string; due: number; started: number }[];
  startedAt: number;
  /** Working-set entries read from the store, and full reloads done (start-up included): what a change cost. */
  targetsRead: number;
  fullLoads: number;
}

export function createLivenessScheduler(deps: LivenessSchedulerDeps) {
  const { monitor, probe, clock, log } = deps;
  const concurrency = deps.concurrency ?? 64;
  const random = deps.random ?? Math.random;
  const region = deps.region ?? DEFAULT_REGION;
  /** Configs without regions, and those listing this node's region, are this node's to check. */
  const mine = (x: Target): boolean => !x.config.regions.length || x.config.regions.includes(region);
  const entries = new Map<string, Entry>();
  const wheel = new Map<number, { id: string; version: number }[]>();
  let ready: string[] = [];
  let readyHead = 0;
  let cursor = 0;
  let running = 0;
  let versions = 0;
  let buffer: Recorded[] = [];
  let stopped = true;
  /** Waiting for the last probe in flight to end (stop()). */
  const idle: (() => void)[] = [];
  let aborter = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => void) | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let lastStamp = '';
  const stats: SchedulerStats = {
    checks: 0,
    lateMs: [],
    firstRun: new Map(),
    runs: [],
    startedAt: 0,
    targetsRead: 0,
    fullLoads: 0,
  };
  // Which entries an endpoint or domain change may touch, without a scan of every entry.
  const byEndpoint = new Map<string, string>();
  const byDomain = new Map<string, Set<string>>();

  const now = () => clock.now().getTime();

  function place(e: Entry, due: number): void {
    e.due = due;
    e.version = ++versions;
    // A due time in a slot the cursor already passed lands in the current slot.
    const slot = Math.max(Math.floor(due / SLOT_MS), cursor);
    const list = wheel.get(slot);
    const item = { id: e.config.id, version: e.version };
    if (list) list.push(item);
    else wheel.set(slot, [item]);
  }

  function upsert(config: LivenessConfig, endpoint: Endpoint, firstDue: () => number, fresh = false): void {
    const cur = entries.get(config.id);
    if (!cur) {
      const e: Entry = { config, endpoint, due: 0, version: 0, running: false, fresh };
      entries.set(config.id, e);
      index(e);
      place(e, firstDue());
      return;
    }
    const oldInterval = cur.config.interval_seconds * 1000;
    const newInterval = config.interval_seconds * 1000;
    unindex(cur);
    cur.config = config;
    cur.endpoint = endpoint;
    index(cur);
    // A new interval counts from the last run (a running probe reschedules itself when it ends).
    if (oldInterval !== newInterval && !cur.running) place(cur, Math.max(now(), cur.due - oldInterval + newInterval));
  }

  function index(e: Entry): void {
    byEndpoint.set(e.endpoint.id, e.config.id);
    let set = byDomain.get(e.endpoint.domain_id);
    if (!set) byDomain.set(e.endpoint.domain_id, (set = new Set()));
    set.add(e.config.id);
  }

  function unindex(e: Entry): void {
    if (byEndpoint.get(e.endpoint.id) === e.config.id) byEndpoint.delete(e.endpoint.id);
    const set = byDomain.get(e.endpoint.domain_id);
    set?.delete(e.config.id);
    if (set?.size === 0) byDomain.delete(e.endpoint.domain_id);
  }

  /** Drops an entry; its wheel items turn stale, and a probe in flight is not rescheduled. */
  function drop(id: string): void {
    const e = entries.get(id);
    if (!e) return;
    unindex(e);
    entries.delete(id);
  }

  /** Adds or updates entries read from the store; `last` gives last checks (start-up), else a new config starts soon. */
  function admit(targets: Target[], initial: boolean, last: ReadonlyMap<string, string>): void {
    const t = now();
    stats.targetsRead += targets.length;
    for (const { config, endpoint } of targets) {
      const interval = config.interval_seconds * 1000;
      const prev = last.get(config.id);
      upsert(
        config,
        endpoint,
        () => {
          if (prev) {
            const next = Date.parse(prev) + interval;
            // Overdue after a restart: spread over one interval instead of all at once.
            return next > t ? next : t + random() * interval;
          }
          // First run ever: spread over the interval at start; a config added later starts within a second.
          return t + random() * (initial ? interval : Math.min(interval, 1000));
        },
        !initial && !prev,
      );
    }
  }

  /** The whole working set, a page at a time, yielding to the event loop between pages. */
  async function load(initial: boolean): Promise<void> {
    if (deps.stamp) lastStamp = deps.stamp();
    stats.fullLoads++;
    const seen = new Set<string>();
    for await (const all of monitor.targetPages()) {
      if (stopped && !initial) return;
      const page = all.filter(mine);
      for (const x of page) seen.add(x.config.id);
      admit(page, initial, initial ? await monitor.lastChecks(page.map((x) => x.config.id)) : NO_CHECKS);
      await new Promise((r) => setImmediate(r));
    }
    for (const id of [...entries.keys()]) if (!seen.has(id)) drop(id);
  }

  /** One change made in this process: re-reads that config, endpoint or domain only. */
  async function apply(change: WorkingSetChange): Promise<void> {
    let scope: TargetScope;
    let before: (string | undefined)[];
    if ('config' in change) {
      scope = { id: change.config };
      before = [change.config];
    } else if ('endpoint' in change) {
      scope = { endpoint_id: change.endpoint };
      before = [byEndpoint.get(change.endpoint)];
    } else {
      scope = { domain_id: change.domain };
      before = [...(byDomain.get(change.domain) ?? [])];
    }
    const found = (await monitor.targetsIn(scope)).filter(mine);
    const keep = new Set(found.map((x) => x.config.id));
    for (const id of before) if (id !== undefined && !keep.has(id)) drop(id);
    admit(found, false, NO_CHECKS);
  }

  // Changes and reloads run one at a time, in order: a reload never undoes a later change.
  let queue: Promise<void> = Promise.resolve();
  let reloadQueued = false;
  function enqueue(what: string, fn: () => Promise<void>): Promise<void> {
    queue = queue
      .then(() => (stopped ? undefined : fn()))
      .catch((err) => log.warn({ err: { message: (err as Error).message } }, `liveness ${what} failed`));
    return queue;
  }

  /** Reloads everything (once for any number of calls made before it starts). */
  function reload(): Promise<void> {
    if (reloadQueued) return queue;
    reloadQueued = true;
    return enqueue('reload', () => {
      reloadQueued = false;
      return load(false);
    });
  }

  function tick(): void {
    if (stopped) return;
    const target = Math.floor(now() / SLOT_MS);
    // After a long pause (suspended process) visit only the occupied slots, not every empty one.
    const slots = target - cursor > 10_000 ? [...wheel.keys()].filter((k) => k <= target).sort((a, b) => a - b) : null;
    for (let i = 0; slots ? i < slots.length : cursor <= target; i++, slots || cursor++) {
      const slot = slots ? slots[i]! : cursor;
      const list = wheel.get(slot);
      if (!list) continue;
      wheel.delete(slot);
      for (const { id, version } of list) {
        const e = entries.get(id);
        if (e && e.version === version && !e.running) ready.push(id);
      }
    }
    cursor = target;
    drain();
  }

  function drain(): void {
    while (running < concurrency && readyHead < ready.length && !stopped) {
      const e = entries.get(ready[readyHead++]!);
      if (e && !e.running) run(e);
    }
    if (readyHead > 1024 && readyHead * 2 > ready.length) {
      ready = ready.slice(readyHead);
      readyHead = 0;
    }
  }

  function run(e: Entry): void {
    const started = now();
    noteStart(stats, e.config.id, e.due, started);
    e.running = true;
    running++;
    void check(e, started, aborter.signal);
  }

  /** One probe, its outcome buffered and the config rescheduled: one promise per check. */
  async function check(e: Entry, started: number, signal: AbortSignal): Promise<void> {
    const outcome = await probeOnce(probe, e, signal, () => now() - started);
    // A probe cut short by shutdown learnt nothing: it is not recorded.
    if (!signal.aborted) buffer.push({ config: e.config, endpoint: e.endpoint, outcome, at: started, region });
    e.running = false;
    running--;
    if (entries.get(e.config.id) === e && !stopped) {
      // Next due from the schedule, with the current interval.
      const t = now();
      const next = askedDue(outcome, t, () =>
        nextDue(e.due, e.config.interval_seconds * 1000, e.fresh, random, t, started),
      );
      e.fresh = false;
      place(e, next);
    }
    if (running === 0) for (const wake of idle.splice(0)) wake();
    drain();
  }

  /** Resolves when no probe is in flight. */
  const whenIdle = (): Promise<void> => (running === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r)));

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      if (!buffer.length) return;
      const batch = buffer;
      buffer = [];
      try {
        await monitor.record(batch);
      } catch (err) {
        log.error(
          { err: { message: (err as Error).message }, results: batch.length },
          'writing liveness results failed',
        );
      }
    });
    return flushing;
  }

  // One timer drives the wheel and the scheduler's slower duties (flush, change poll, safety reload):
  // each wake-up costs the process more than the work of an empty tick on a small VPS.
  function duties(): { every: number; due: number; run: () => void }[] {
    const t = performance.now();
    const list = [
      { every: deps.flushMs ?? 1000, run: () => void flush() },
      { every: deps.reloadMs ?? 600_000, run: () => void reload() },
    ];
    if (deps.stamp) {
      const stamp = deps.stamp;
      list.push({ every: deps.pollMs ?? 1000, run: () => (stamp() !== lastStamp ? void reload() : undefined) });
    }
    return list.map((d) => ({ ...d, due: t + d.every }));
  }

  return {
    stats,
    size: () => entries.size,
    /** When a configuration is due next (epoch ms), for tests and tooling. */
    dueOf: (configId: string): number | undefined => entries.get(configId)?.due,
    async start(): Promise<void> {
      stopped = false;
      aborter = new AbortController();
      // Every in-flight probe listens on the shutdown signal.
      setMaxListeners(concurrency + 16, aborter.signal);
      stats.startedAt = now();
      stats.firstRun.clear();
      // The cursor starts at the current slot before anything is placed: nothing lands behind it.
      cursor = Math.floor(now() / SLOT_MS);
      await load(true);
      unsubscribe = deps.onChange((change) => void enqueue('change', () => apply(change)));
      const jobs = duties();
      const timer = setInterval(() => {
        tick();
        const t = performance.now();
        for (const d of jobs) {
          if (t < d.due) continue;
          // Keeps its cadence (a late tick does not push the next one back); after a long pause, from now.
          d.due = d.due + d.every > t ? d.due + d.every : t + d.every;
          d.run();
        }
      }, SLOT_MS);
      timer.unref();
      timers.push(timer);
      tick();
    },
    /** Stops scheduling, gives in-flight probes `graceMs` to finish, then cancels them; writes what finished. */
    async stop(graceMs = 3000): Promise<void> {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
      timers.splice(0).forEach(clearInterval);
      await queue;
      const timer = setTimeout(() => aborter.abort(), graceMs);
      await whenIdle();
      clearTimeout(timer);
      aborter.abort();
      await flush();
      entries.clear();
      byEndpoint.clear();
      byDomain.clear();
      wheel.clear();
      ready = [];
      readyHead = 0;
    },
    /** Resolves once every change and reload queued so far is applied (tests and tooling). */
    settled: (): Promise<void> => queue,
    /** Writes buffered outcomes now (tests and tooling). */
    flush,
    reload,
  };
}
