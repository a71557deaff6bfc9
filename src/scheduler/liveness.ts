// Runs every enabled liveness configuration every `interval_seconds`:
// - a timing wheel of 100 ms slots (O(1) per schedule, cheap at 10,000 configs);
// - next run = previous due time + interval, so slow probes never make the schedule drift;
// - first runs are spread over the interval, and after a restart each config resumes from its last result;
// - a global concurrency limit; outcomes are written in batched transactions;
// - API/CLI changes in this process apply at once (onChange), other processes' within `reloadMs`.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { CheckOutcome } from '../domain/liveness.js';
import type { Endpoint, LivenessConfig } from '../domain/types.js';
import type { MonitorService, Recorded } from '../services/monitor.js';

export type LivenessProbe = (endpoint: Endpoint, config: LivenessConfig, signal: AbortSignal) => Promise<CheckOutcome>;

export interface LivenessSchedulerDeps {
  monitor: MonitorService;
  onChange(fn: (configId: string) => void): () => void;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  concurrency?: number;
  flushMs?: number;
  reloadMs?: number;
  /** 0..1 random source for jitter (tests may pin it). */
  random?: () => number;
}

const SLOT_MS = 100;

interface Entry {
  config: LivenessConfig;
  endpoint: Endpoint;
  due: number;
  /** Bumped on every reschedule; wheel entries with an older version are stale. */
  version: number;
  running: boolean;
}

export function createLivenessScheduler(deps: LivenessSchedulerDeps) {
  const { monitor, probe, clock, log } = deps;
  const concurrency = deps.concurrency ?? 64;
  const random = deps.random ?? Math.random;
  const entries = new Map<string, Entry>();
  const wheel = new Map<number, { id: string; version: number }[]>();
  const ready: string[] = [];
  let cursor = 0;
  let running = 0;
  let buffer: Recorded[] = [];
  let stopped = true;
  const inflight = new Set<Promise<void>>();
  const aborter = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => void) | undefined;
  let reloading: Promise<void> | undefined;
  const stats = { checks: 0, lateMs: [] as number[] };

  const now = () => clock.now().getTime();

  function place(e: Entry, due: number): void {
    e.due = due;
    e.version++;
    const slot = Math.floor(due / SLOT_MS);
    const list = wheel.get(slot);
    const item = { id: e.config.id, version: e.version };
    if (list) list.push(item);
    else wheel.set(slot, [item]);
  }

  function upsert(config: LivenessConfig, endpoint: Endpoint, firstDue: () => number): void {
    const cur = entries.get(config.id);
    if (!cur) {
      const e: Entry = { config, endpoint, due: 0, version: 0, running: false };
      entries.set(config.id, e);
      place(e, firstDue());
      return;
    }
    const intervalChanged = cur.config.interval_seconds !== config.interval_seconds;
    cur.config = config;
    cur.endpoint = endpoint;
    // A new interval counts from the last run.
    if (intervalChanged && !cur.running) place(cur, Math.max(now(), cur.due - cur.config.interval_seconds * 1000 + config.interval_seconds * 1000));
  }

  async function reload(initial = false): Promise<void> {
    const [targets, last] = await Promise.all([monitor.targets(), initial ? monitor.lastChecks() : Promise.resolve(new Map<string, string>())]);
    const t = now();
    const seen = new Set<string>();
    for (const { config, endpoint } of targets) {
      seen.add(config.id);
      const interval = config.interval_seconds * 1000;
      upsert(config, endpoint, () => {
        const prev = last.get(config.id);
        if (prev) {
          const next = Date.parse(prev) + interval;
          // Overdue after a restart: spread over one interval instead of all at once.
          return next > t ? next : t + random() * interval;
        }
        return t + random() * (initial ? interval : Math.min(interval, 1000));
      });
    }
    for (const id of entries.keys()) if (!seen.has(id)) entries.delete(id);
  }

  function tick(): void {
    if (stopped) return;
    const t = now();
    const target = Math.floor(t / SLOT_MS);
    if (cursor === 0) cursor = target;
    for (; cursor <= target; cursor++) {
      const list = wheel.get(cursor);
      if (!list) continue;
      wheel.delete(cursor);
      for (const { id, version } of list) {
        const e = entries.get(id);
        if (e && e.version === version && !e.running) ready.push(id);
      }
    }
    // Entries scheduled in the past (slot already passed) land in the current slot.
    cursor = target;
    drain();
  }

  function drain(): void {
    while (running < concurrency && ready.length && !stopped) {
      const e = entries.get(ready.shift()!);
      if (!e || e.running) continue;
      run(e);
    }
  }

  function run(e: Entry): void {
    const started = now();
    stats.checks++;
    stats.lateMs.push(started - e.due);
    if (stats.lateMs.length > 10_000) stats.lateMs.splice(0, 5_000);
    e.running = true;
    running++;
    const interval = e.config.interval_seconds * 1000;
    // Next due from the schedule, skipping missed beats rather than bunching them.
    let next = e.due + interval;
    if (next <= started) next += Math.ceil((started - next + 1) / interval) * interval;
    const signal = AbortSignal.any([aborter.signal, AbortSignal.timeout(e.config.timeout_seconds * 1000 + 1000)]);
    const p = probe(e.endpoint, e.config, signal)
      .catch((err): CheckOutcome => ({ ok: false, responseTimeMs: now() - started, statusCode: null, error: `probe error: ${(err as Error).message}` }))
      .then((outcome) => {
        if (!aborter.signal.aborted) buffer.push({ config: e.config, endpoint: e.endpoint, outcome, at: started });
      })
      .finally(() => {
        e.running = false;
        running--;
        inflight.delete(p);
        if (entries.get(e.config.id) === e && !stopped) place(e, next);
        drain();
      });
    inflight.add(p);
  }

  async function flush(): Promise<void> {
    if (!buffer.length) return;
    const batch = buffer;
    buffer = [];
    try {
      await monitor.record(batch);
    } catch (err) {
      log.error({ err: { message: (err as Error).message } }, 'writing liveness results failed');
    }
  }

  function every(ms: number, fn: () => unknown): void {
    const t = setInterval(fn, ms);
    t.unref();
    timers.push(t);
  }

  return {
    stats,
    size: () => entries.size,
    async start(): Promise<void> {
      stopped = false;
      await reload(true);
      unsubscribe = deps.onChange((id) => {
        reloading = reload().catch((err) => log.warn({ err: { message: (err as Error).message } }, 'liveness reload failed'));
      });
      every(SLOT_MS, tick);
      every(deps.flushMs ?? 1000, () => void flush());
      every(deps.reloadMs ?? 30_000, () => void reload().catch(() => undefined));
      tick();
    },
    /** Stops scheduling, gives in-flight probes `graceMs` to finish, then cancels them; flushes what finished. */
    async stop(graceMs = 3000): Promise<void> {
      stopped = true;
      unsubscribe?.();
      timers.forEach(clearInterval);
      await reloading;
      const all = Promise.allSettled([...inflight]);
      const timer = setTimeout(() => aborter.abort(), graceMs);
      await all;
      clearTimeout(timer);
      aborter.abort();
      await flush();
    },
    /** For tests and tooling: writes buffered outcomes now. */
    flush,
  };
}

export type LivenessScheduler = ReturnType<typeof createLivenessScheduler>;
