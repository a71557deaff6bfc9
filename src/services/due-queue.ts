// The liveness due-queue: the port the one liveness scheduler (scheduler/liveness.ts) takes its runs
// from, with two implementations:
// - shared (PostgreSQL, any number of nodes): the liveness_due tables (store/repos/liveness-due.ts);
// - in memory (SQLite: one process owns the file, so the queue lives in it).
// Both hand out runs under a lease (owner, expiry) with a fencing token: the scheduler sends a probe
// only while its lease reads valid, and a result is written only while its token holds (`fence`,
// called by MonitorService.record inside the results' transaction). A change to a config, its
// endpoint or its domain revokes the lease (`wake`): the holder drops the run unsent, or its write is
// fenced out, and the next claim reads the target afresh.
import FlatQueue from 'flatqueue';
import type { Clock } from '../domain/clock.js';
import { DEFAULT_REGION, dueKey, type LivenessState } from '../domain/liveness.js';
import type { Store } from '../store/index.js';
import type { WorkingSetChange } from './changes.js';
import type { MonitorService, Target } from './monitor.js';

type Repo = Store['livenessDue'];
/** What a claim takes (see the repository's ClaimWindow); `limit` and `share` bind the shared queue only. */
export type ClaimWindow = Omit<Parameters<Repo['claim']>[1], 'marginMs' | 'region'> & { region: string };
export type ClaimResult = Awaited<ReturnType<Repo['claim']>>;
export type ClaimedRun = ClaimResult['runs'][number];
/** The end of a run: its next due time (null: parked, the target is gone), and whether its lease is kept. */
export type DueRelease = Parameters<Repo['release']>[0][number];
export type LeaseNow = Awaited<ReturnType<Repo['leases']>>[number];
type Scope = Parameters<Repo['wake']>[0];

/** How long past a claimed run's due time plus its timeout its lease lasts (ms): the result's write and a spread start fit in it. */
const LEASE_MARGIN_MS = 10_000;

/**
 * A wake-up treats a leased run due before now plus this (ms) as sent already: its holder checks its
 * lease at most 2.5 s before a probe goes out, so it may have seen the lease still valid; the run is
 * then due one interval after that run. (The shared queue's statement uses the same 3 s.)
 */
const WAKE_SENT_MS = 3000;

/**
 * Inside the transaction that writes a batch of results: ends the leased runs (next due time, lease
 * kept or freed) where the token still holds, and answers the dueKeys that did (the others' results
 * are not written) and, when `readStates`, the released configs' states it read with them.
 */
export type Fence = (
  tx: Parameters<Parameters<Store['transaction']>[0]>[0],
  rows: readonly DueRelease[],
  readStates: boolean,
) => Promise<{ live: Set<string>; states: Map<string, LivenessState | null> }>;

/** How the scheduler paces its work on a queue (ms); each is the scheduler's default when absent. */
export interface DuePace {
  /** Claim runs due this far ahead (Infinity: all of them). */
  aheadMs?: number;
  /** Mean time between the cluster's claim rounds. */
  claimMs?: number;
  /** Results batch. */
  flushMs?: number;
}

export interface DueQueue {
  /** The lease owner: this node's name. */
  readonly owner: string;
  readonly pace: DuePace;
  /**
   * Whether a lease's holder may write its next result from the state it wrote last (no read): a state
   * written outside a run (a push endpoint's ping) revokes the lease (`revoke`). Otherwise each results
   * batch reads the states it builds on.
   */
  readonly statesKept: boolean;
  /**
   * Begins (the in-memory queue follows the working set's changes); `stop` ends it. `due` is called
   * when runs became due that the next claim round may be late for (a change made in this process).
   */
  start(due?: () => void): Promise<void>;
  stop(): void;
  /** Runs due by the horizon and leases that ran out, each with its target (none: disabled or gone), under new tokens. */
  claim(w: ClaimWindow): Promise<ClaimResult>;
  /** Ends runs outside a results batch (parked, handed back unrun) where the token holds. */
  release(rows: readonly DueRelease[]): Promise<void>;
  /** Hands back every lease this owner holds (a clean stop). */
  releaseOwned(): Promise<void>;
  /** The leases of these runs as they stand (a run without one is gone). */
  leases(runs: readonly { configId: string; region: string }[]): Promise<LeaseNow[]>;
  /** A change to a config, its endpoint or its domain: leases revoked, parked rows due. */
  wake(scope: Scope, now: number): Promise<void>;
  /**
   * A state written outside a run (a push endpoint's ping): the config's lease is revoked (a new token)
   * and its due time kept, so a result its holder computed from the state before is fenced out (or its
   * probe not sent) and whoever claims the run next reads the state afresh.
   */
  revoke(configId: string): Promise<void>;
  /** Repairs the queue against the working set (at start and every few minutes). */
  sync(now: number): Promise<{ added: number; woken: number }>;
  /** See Fence: MonitorService.record calls it in the results' transaction. */
  fence: Fence;
}

/** The due-queue of a node sharing its PostgreSQL database: the liveness_due tables. */
export function sharedDueQueue({ store, owner }: { store: Store; owner: string }): DueQueue {
  const repo = store.livenessDue;
  return {
    owner,
    // A round of the cluster every 1.5 s, claiming 4 s ahead, a results batch every 3 s: each statement
    // a node sends costs PostgreSQL a fixed share besides its rows (docs/benchmarks.md).
    pace: { aheadMs: 4000, claimMs: 1500, flushMs: 3000 },
    // A ping's state revokes the lease (`revoke`): the holder's next result is fenced out.
    statesKept: true,
    start: async () => undefined,
    stop: () => undefined,
    claim: (w) => repo.claim(owner, { ...w, marginMs: LEASE_MARGIN_MS }),
    release: async (rows) => {
      await repo.release(rows, LEASE_MARGIN_MS, false);
    },
    releaseOwned: async () => {
      await repo.releaseOwned(owner);
    },
    leases: (runs) => repo.leases(runs),
    wake: (scope, now) => repo.wake(scope, now),
    revoke: (configId) => repo.revoke(configId),
    sync: (now) => repo.sync(now),
    fence: (tx, rows, readStates) => tx.livenessDue.release(rows, LEASE_MARGIN_MS, readStates),
  };
}

interface Row {
  configId: string;
  /** '' for a config checked from anywhere, else this node's region (the only one it checks). */
  region: string;
  target: Target;
  due: number;
  fresh: boolean;
  owner: string | null;
  leaseUntil: number | null;
  token: number;
}

interface MemoryDeps {
  monitor: Pick<MonitorService, 'targetsIn' | 'targetPages' | 'lastChecks'>;
  /** The working set's changes made in this process (the liveness service's onChange). */
  onChange(fn: (change: WorkingSetChange) => void): () => void;
  clock: Clock;
  /** A value that moves when another process (the CLI) may have changed the working set: it is read again. */
  stamp?: () => string;
  /** This node's region: configs with regions that do not list it are not its to check. */
  region?: string;
  random?: () => number;
  owner?: string;
}

/**
 * The due-queue of the one process that owns a SQLite file: a row per configuration this process
 * checks, in memory, read from the working set at start and kept by its changes (one config, endpoint
 * or domain re-read per change; a write by another process, seen through the store's stamp, and the
 * scheduler's sync every few minutes re-read the whole set a page at a time). Unleased rows wait in a
 * heap by due time and leases in one by their end, so a claim costs what it takes, not the set's size.
 */
export function memoryDueQueue(deps: MemoryDeps): DueQueue & {
  /** Working-set entries read from the store, and full reads (start-up included): what changes cost. */
  stats: { targetsRead: number; fullLoads: number };
  /** Rows held (tests). */
  size(): number;
  /** Resolves once every change and reload queued so far is applied (tests and tooling). */
  settled(): Promise<void>;
} {
  const owner = deps.owner ?? 'local';
  const random = deps.random ?? Math.random;
  const region = deps.region ?? DEFAULT_REGION;
  const now = () => deps.clock.now().getTime();
  const rows = new Map<string, Row>();
  let regionalRows = 0;
  // Lazily cleaned: an entry whose row moved on (claimed, due again, deleted) is skipped when it surfaces.
  const dueHeap = new FlatQueue<Row>();
  const leaseHeap = new FlatQueue<Row>();
  const byEndpoint = new Map<string, string>();
  const byDomain = new Map<string, Set<string>>();
  const stats = { targetsRead: 0, fullLoads: 0 };
  let lastStamp = '';
  let unsubscribe: (() => void) | undefined;
  let nudge: (() => void) | undefined;
  const mine = (x: Target): boolean => !x.config.regions.length || x.config.regions.includes(region);
  const regionOf = (x: Target) => (x.config.regions.length ? region : '');

  function queueDue(row: Row): void {
    row.owner = null;
    row.leaseUntil = null;
    dueHeap.push(row, row.due);
  }

  function add(target: Target, due: number, fresh: boolean): void {
    const row: Row = {
      configId: target.config.id,
      region: regionOf(target),
      target,
      due,
      fresh,
      owner: null,
      leaseUntil: null,
      token: 0,
    };
    rows.set(row.configId, row);
    if (row.region) regionalRows++;
    index(row);
    queueDue(row);
  }

  function remove(id: string): void {
    const row = rows.get(id);
    if (!row) return;
    unindex(row);
    rows.delete(id);
    if (row.region) regionalRows--;
  }

  function index(row: Row): void {
    const { endpoint } = row.target;
    byEndpoint.set(endpoint.id, row.configId);
    let set = byDomain.get(endpoint.domain_id);
    if (!set) byDomain.set(endpoint.domain_id, (set = new Set()));
    set.add(row.configId);
  }

  function unindex(row: Row): void {
    const { endpoint } = row.target;
    if (byEndpoint.get(endpoint.id) === row.configId) byEndpoint.delete(endpoint.id);
    const set = byDomain.get(endpoint.domain_id);
    set?.delete(row.configId);
    if (set?.size === 0) byDomain.delete(endpoint.domain_id);
  }

  /** A changed target: its lease revoked (a new token), due no later than a (new) interval from now. */
  function revise(row: Row, target: Target, t: number): void {
    if (row.region !== regionOf(target)) {
      // Its regions changed: a new row, as the shared queue's setRegions makes.
      remove(row.configId);
      add(target, t, true);
      return;
    }
    unindex(row);
    row.target = target;
    index(row);
    const interval = target.config.interval_seconds * 1000;
    if (row.owner !== null) {
      row.token++;
      // Leased and due within WAKE_SENT_MS (or past): it may be out already; the next run one interval on.
      row.due = row.due <= t + WAKE_SENT_MS ? row.due + interval : Math.min(row.due, t + interval);
    } else row.due = Math.min(row.due, t + interval);
    queueDue(row);
  }

  /** Re-reads one config, an endpoint's or a domain's configs (a change made in this process). */
  async function apply(change: WorkingSetChange): Promise<void> {
    let before: (string | undefined)[];
    let found: Target[];
    if ('config' in change) {
      before = [change.config];
      found = await deps.monitor.targetsIn({ id: change.config });
    } else if ('endpoint' in change) {
      before = [byEndpoint.get(change.endpoint)];
      found = await deps.monitor.targetsIn({ endpoint_id: change.endpoint });
    } else {
      before = [...(byDomain.get(change.domain) ?? [])];
      found = await deps.monitor.targetsIn({ domain_id: change.domain });
    }
    found = found.filter(mine);
    stats.targetsRead += found.length;
    const keep = new Set(found.map((x) => x.config.id));
    for (const id of before) if (id !== undefined && !keep.has(id)) remove(id);
    const t = now();
    for (const target of found) {
      const row = rows.get(target.config.id);
      // A new config (or one enabled again): due now, its first run spread by the scheduler.
      if (!row) add(target, t, true);
      else revise(row, target, t);
    }
  }

  /** The whole working set, a page at a time; at start each config resumes from its last check. */
  async function load(initial: boolean): Promise<number> {
    if (deps.stamp) lastStamp = deps.stamp();
    stats.fullLoads++;
    const seen = new Set<string>();
    let added = 0;
    for await (const all of deps.monitor.targetPages()) {
      const page = all.filter(mine);
      stats.targetsRead += page.length;
      const fresh = page.filter((x) => !rows.has(x.config.id));
      const last = initial && fresh.length ? await deps.monitor.lastChecks(fresh.map((x) => x.config.id)) : null;
      const t = now();
      for (const target of page) {
        seen.add(target.config.id);
        const row = rows.get(target.config.id);
        const interval = target.config.interval_seconds * 1000;
        if (!row) {
          added++;
          if (!last) {
            add(target, t, true);
            continue;
          }
          const prev = last.get(target.config.id);
          const next = prev ? Date.parse(prev) + interval : 0;
          // Overdue (or never run) at start: spread over one interval instead of all at once.
          add(target, next > t ? next : Math.floor(t + random() * interval), false);
        } else if (
          row.target.config.updated_at !== target.config.updated_at ||
          row.target.endpoint.updated_at !== target.endpoint.updated_at ||
          row.target.endpoint.domain !== target.endpoint.domain
        )
          revise(row, target, t);
      }
      await new Promise((r) => setImmediate(r));
    }
    for (const id of [...rows.keys()]) if (!seen.has(id)) remove(id);
    return added;
  }

  // Changes and reloads run one at a time, in order (a reload never undoes a later change); a claim
  // waits for those queued before it.
  let chain: Promise<unknown> = Promise.resolve();
  let failed: unknown;
  function enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const p = chain.then(fn);
    chain = p.catch((err: unknown) => {
      failed = err;
    });
    return p;
  }

  function take(row: Row, t: number, taken: boolean): ClaimedRun {
    row.owner = owner;
    row.token++;
    row.leaseUntil = Math.max(row.due, t) + row.target.config.timeout_seconds * 1000 + LEASE_MARGIN_MS;
    leaseHeap.push(row, row.leaseUntil);
    return {
      configId: row.configId,
      region: row.region,
      ...(taken ? { taken: true } : {}),
      due: row.due,
      fresh: row.fresh,
      token: row.token,
      target: row.target,
    };
  }

  /** Ends a run under its token: next due (null: the row goes), the lease kept or freed. */
  function end(r: DueRelease): boolean {
    const row = rows.get(r.configId);
    // The token alone fences: a claim and a revoke move it on; ending a run twice (a retried
    // transaction) ends it the same way.
    if (!row || row.region !== (r.region ?? '') || row.token !== r.token) return false;
    if (r.next === null) {
      remove(row.configId);
      return true;
    }
    row.due = r.next;
    row.fresh = false;
    if (r.keep) {
      row.leaseUntil = r.next + (r.timeout ?? row.target.config.timeout_seconds) * 1000 + LEASE_MARGIN_MS;
      leaseHeap.push(row, row.leaseUntil);
    } else queueDue(row);
    return true;
  }

  return {
    owner,
    // A claim is a look at the heads of two heaps, and a change in this process asks for one at once
    // (start's `due`): a lone process claims every second or so and holds its whole queue.
    pace: { aheadMs: Infinity, claimMs: 1000, flushMs: 1000 },
    // A ping's state revokes the lease (`revoke`), a change re-reads the target under a new token: a kept
    // run's holder knows the state its last result led to, and its next batch need not read it.
    statesKept: true,
    stats,
    size: () => rows.size,
    settled: async () => {
      await chain;
    },
    async start(due) {
      unsubscribe?.();
      nudge = due;
      unsubscribe = deps.onChange(
        (change) =>
          void enqueue(() => apply(change))
            .then(() => nudge?.())
            .catch(() => undefined),
      );
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      nudge = undefined;
    },
    async claim(w) {
      await chain;
      if (failed) {
        const err = failed;
        failed = undefined;
        throw err instanceof Error ? err : new Error(String(err));
      }
      if (deps.stamp && deps.stamp() !== lastStamp) await enqueue(() => load(false));
      const runs: ClaimedRun[] = [];
      if (w.takeover !== false)
        while (leaseHeap.length && leaseHeap.peekValue()! < w.now) {
          const value = leaseHeap.peekValue();
          const row = leaseHeap.pop()!;
          if (rows.get(row.configId) === row && row.owner !== null && row.leaseUntil === value)
            runs.push(take(row, w.now, true));
        }
      while (dueHeap.length && dueHeap.peekValue()! <= w.horizon) {
        const value = dueHeap.peekValue();
        const row = dueHeap.pop()!;
        if (rows.get(row.configId) === row && row.owner === null && row.due === value)
          runs.push(take(row, w.now, false));
      }
      // The one process holds the whole queue: its size is the rows (parked ones are removed).
      return {
        runs,
        workers: 1,
        regionWorkers: 1,
        queued: { plain: rows.size - regionalRows, regional: regionalRows },
      };
    },
    async release(list) {
      for (const r of list) end(r);
    },
    async releaseOwned() {
      for (const row of rows.values()) if (row.owner === owner) queueDue(row);
    },
    async leases(runs) {
      const out: LeaseNow[] = [];
      for (const r of runs) {
        const row = rows.get(r.configId);
        if (row && row.region === r.region)
          out.push({
            configId: row.configId,
            region: row.region,
            token: row.token,
            owner: row.owner,
            leaseUntil: row.leaseUntil,
          });
      }
      return out;
    },
    wake: (scope, _now) => enqueue(() => apply(scope)),
    async revoke(configId) {
      const row = rows.get(configId);
      if (!row || row.owner === null) return;
      // A new token: the holder's run is not sent, or its result is fenced out; due as it was.
      row.token++;
      queueDue(row);
      nudge?.();
    },
    sync: (_now) =>
      enqueue(async () => {
        const initial = stats.fullLoads === 0;
        const added = await load(initial);
        return { added: initial ? 0 : added, woken: 0 };
      }),
    async fence(tx, list) {
      // A config deleted meanwhile may still have its row (its change is applied after the commit).
      const existing = await tx.livenessData.existing([...new Set(list.map((r) => r.configId))]);
      const live = new Set<string>();
      for (const r of list) if (existing.has(r.configId) && end(r)) live.add(dueKey(r.configId, r.region));
      return { live, states: new Map() };
    },
  };
}
