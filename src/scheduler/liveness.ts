// The one liveness scheduler, on either store: it takes its runs from a due-queue (services/due-queue.ts:
// in memory on SQLite, the liveness_due tables on PostgreSQL) and each run is probed once, by one node.
//
// - Claim: each round (on PostgreSQL 1.5 s on average for the whole cluster: n nodes each n times less
//   often, jittered so that their rounds drift apart; in memory every quarter second) takes a share of the
//   runs due soon into a lease (a new fencing token), with their configs and endpoints, onto this node's
//   own timing wheel of 250 ms slots.
// - Send only under a valid lease: right before a run's probe goes out its lease is read (in one call
//   for the runs of the next two seconds): still this node's, under the token it was claimed with, and
//   lasting past the probe's timeout. A run whose lease was revoked or ran out is dropped unsent.
// - Write fenced: the result and the next due time are written in one transaction, only under the token
//   (the queue's fence, called by MonitorService.record); a run whose lease moved on writes nothing and
//   is dropped.
// - Keep: the lease of a finished run is kept for the config's next run (no claim) while this node holds
//   no more than its fair part (the queued runs over the live workers); past that runs are let go and
//   nodes under their part claim them.
// - Change: a change to a config, its endpoint or domain revokes the lease (a new token); the holder learns
//   it at its check before sending, or its write is fenced out. A run that may be out already (due within
//   3 s) is due again only an interval later, so it is not probed twice.
// - Crash (PostgreSQL): a dead node's leases run out (the run's due time plus the config's timeout plus
//   LEASE_MARGIN_MS) and a takeover claim hands them to a live node: a probe the dead node sent just
//   before it died may be repeated (at-least-once across a crash), nothing else.
// - The next run is the previous *due* time plus the interval, so slow probes never make the schedule drift.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { askedDue, DEFAULT_REGION, dueKey, type CheckOutcome, type LivenessState } from '../domain/liveness.js';
import type { Endpoint, LivenessConfig } from '../domain/types.js';
import { STALE_AFTER_MS } from '../services/nodes.js';
import type { MonitorService, Recorded } from '../services/monitor.js';
import type { ClaimedRun, DueQueue } from '../services/due-queue.js';

export type LivenessProbe = (endpoint: Endpoint, config: LivenessConfig, signal: AbortSignal) => Promise<CheckOutcome>;

// A quarter second: lateness stays far under a second while probes due together start in one wake-up
// (batched starts and replies cost markedly less CPU per check than one wake-up per 100 ms).
export const SLOT_MS = 250;

/** The run statistics the scheduler keeps. */
interface RunStats {
  checks: number;
  lateMs: number[];
  firstRun: Map<string, number>;
  runs: { configId: string; due: number; started: number }[];
}

/** Counts a run as it starts, in bounded windows (lateness, the recent schedule). */
function noteStart(stats: RunStats, configId: string, due: number, started: number): void {
  stats.checks++;
  stats.lateMs.push(started - due);
  if (stats.lateMs.length > 20_000) stats.lateMs.splice(0, 10_000);
  stats.runs.push({ configId, due, started });
  if (stats.runs.length > 2_000) stats.runs.splice(0, 1_000);
  if (!stats.firstRun.has(configId)) stats.firstRun.set(configId, started);
}

/** One probe's outcome: a probe that throws is a failed check with the error's message. */
async function probeOnce(
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
const FRESH_FROM = 0.7;
/**
 * A run is never sent less than this fraction of an interval after the probe before it went out. The
 * promise is half an interval as the target sees it: the target stamps each probe when it arrives and
 * is handled, later than it was sent by the connection's latency and its own delays, which vary from
 * probe to probe; the fifth of an interval above a half is that margin (a tenth was too little: a burst
 * of a hundred first runs on a machine whose test suite filled both cores reached a target 0.62 s late
 * at 5 s, and the next probe, 0.6 of an interval on, 2.38 s after it as the target saw them).
 */
const MIN_GAP = 0.7;

/**
 * The next due time (epoch ms, whole) after a run due at `due` that was sent at `sent` and ended at
 * `now`: one interval later, or for a fresh config a random point of the later part of the next
 * interval (configs created together do not probe together forever; FRESH_FROM); missed beats are
 * skipped rather than bunched, and never less than MIN_GAP of an interval after the probe went out (a
 * run started late does not catch up on its old phase with a second probe right after; one taken over
 * from a dead node passes its own sending time as `due`: its phase starts again from it).
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
  // the slot could send it up to SLOT_MS before MIN_GAP of an interval has passed.
  const earliest = Math.max(now + 1, Math.ceil((sent + Math.ceil(intervalMs * MIN_GAP)) / SLOT_MS) * SLOT_MS);
  if (next < earliest) next += Math.ceil((earliest - next) / intervalMs) * intervalMs;
  return next;
}

interface LivenessSchedulerDeps {
  monitor: MonitorService;
  /** Where the runs come from, and where their leases are kept. */
  queue: DueQueue;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  concurrency?: number;
  /** Claim runs due this far ahead (ms): they start on time from this node's own wheel. Default: the queue's pace. */
  aheadMs?: number;
  /**
   * Mean time between claim rounds of the whole cluster (ms): a node alone claims this often, each of
   * n live worker nodes n times less often (at most every ROUND_MAX_MS); each wait is 0.5x-1.5x of it.
   */
  claimMs?: number;
  flushMs?: number;
  /** How often the queue is repaired (rows for configs without one, parked rows woken): ms. */
  syncMs?: number;
  /** Most runs taken in one claim. */
  batch?: number;
  /** 0..1 random source for jitter (tests may pin it). */
  random?: () => number;
  /** This node's region: it also claims the regional runs of configs that list it (default `default`). */
  region?: string;
}

/**
 * How often a node looks for leases that ran out (a dead node's runs): every few rounds, not each
 * one (that scan steps over every version released since the queue's last vacuum). With several
 * nodes someone looks every second or two; a dead node's runs are taken within max(30 s, interval).
 */
const TAKEOVER_MS = 5000;

/**
 * The longest mean time between one node's claim rounds, however many nodes share the work: it bounds
 * how far ahead a node claims (1.5 rounds), so how late a config change reaches a run already claimed.
 */
const ROUND_MAX_MS = 6000;

/**
 * How far past its fair part a node still keeps leases (a fraction of the part, and at least a few runs):
 * a node just over it neither lets runs go nor claims more than the urgent ones, so small differences
 * between the nodes' counts do not move runs back and forth.
 */
const KEEP_SLACK = 0.01;
const KEEP_SLACK_MIN = 2;

/** How far short of its part a node claims at the fastest pace (roundMs): a tenth of it, at least a few runs. */
const SHORT_OF_PART = 0.1;

/** Held runs whose targets one statement reads again (refreshHeld). */
const REFRESH_CHUNK = 1000;

/**
 * No probe goes out for a run whose lease is not this node's at that moment (revoked by a change, run
 * out): the leases of the runs due within CHECK_AHEAD_MS are read in one statement once one of them is
 * due within CHECK_LEAD_MS (about one statement a second, not one per probe), and a run starts only
 * while that reading is under CHECK_FRESH_MS old. A wake-up treats a leased run due within its
 * WAKE_SENT_MS (store/repos/liveness-due.ts: 3 s, above CHECK_FRESH_MS) as sent already.
 */
const CHECK_AHEAD_MS = 2000;
const CHECK_LEAD_MS = 500;
const CHECK_FRESH_MS = 2500;

interface Run {
  claim: ClaimedRun;
  config: LivenessConfig;
  endpoint: Endpoint;
  /** When it starts (epoch ms): its due time, or a spread point for a run long overdue. */
  at: number;
  /** Dropped before it started (its target was disabled or deleted meanwhile). */
  cancelled?: boolean;
  /**
   * The config's state as this node last wrote it under this lease (null: none yet; absent: not known,
   * the write reads it): the run before this one's, once its batch is written.
   */
  state?: LivenessState | null;
  /** Finished (its result is in a batch): a state learned later is not its own. */
  done?: boolean;
  /** When its lease was last read valid (performance.now()): it starts only while that is recent. */
  checkedAt?: number;
}

export function createLivenessScheduler(deps: LivenessSchedulerDeps) {
  const { monitor, queue, probe, clock, log } = deps;
  const { owner } = queue;
  const concurrency = deps.concurrency ?? 64;
  // The queue sets the pace (services/due-queue.ts): on PostgreSQL a round of the cluster every 1.5 s (a
  // lone node's: 0.75-2.25 s, claiming 4 s ahead; see roundMs) and a results batch every 3 s, since each
  // statement costs PostgreSQL a fixed share besides its rows; in memory a claim costs next to nothing.
  // A round takes a fair share of what is due, not all of it: at short intervals a whole batch's configs
  // fall due together, and one round taking them all made the nodes' shares drift apart.
  const aheadMs = deps.aheadMs ?? queue.pace.aheadMs ?? 4000;
  const claimMs = deps.claimMs ?? queue.pace.claimMs ?? 1500;
  const flushMs = deps.flushMs ?? queue.pace.flushMs ?? 3000;
  const batch = deps.batch ?? 1000;
  const random = deps.random ?? Math.random;
  const region = deps.region ?? DEFAULT_REGION;
  const now = () => clock.now().getTime();
  /** Live worker nodes, as the last claim round counted them (the nodes table's heartbeats), and of this region. */
  let workers = 1;
  let regionWorkers = 1;
  /** The queued runs as the last claim round counted them (the queue's ClaimResult.queued). */
  let queued: { plain: number; regional: number } | null = null;
  /** This node's fair part of the queue: the queued runs over the live workers (null: not counted yet). */
  const fair = () =>
    queued && Math.ceil(queued.plain / Math.max(1, workers) + queued.regional / Math.max(1, regionWorkers));
  /**
   * Whether this node holds clearly fewer runs than its part (short by over SHORT_OF_PART of it): the
   * parts are estimates from heartbeats, and a few runs short must not keep a node at the faster pace.
   */
  const lacking = () => {
    const part = fair();
    return part !== null && held.size + Math.max(KEEP_SLACK_MIN, Math.ceil(part * SHORT_OF_PART)) < part;
  };
  /** Whether a finished run's lease is kept for its next run: while this node holds no more than its part. */
  const withinPart = () => {
    const part = fair();
    return part !== null && held.size <= part + Math.max(KEEP_SLACK_MIN, Math.ceil(part * KEEP_SLACK));
  };
  /**
   * The shortest interval of the runs this node holds (ms; Infinity: none), kept as runs come and go
   * (a count of held runs per interval: no pass over them).
   */
  let shortest = Infinity;
  const intervals = new Map<number, number>();
  /** Of the held runs, the regional ones (of this region's runs of configs checked from several). */
  let regionalHeld = 0;
  function count(run: Run | undefined, by: 1 | -1): void {
    if (!run) return;
    if (run.claim.region) regionalHeld += by;
    const ms = run.config.interval_seconds * 1000;
    const n = (intervals.get(ms) ?? 0) + by;
    if (n > 0) intervals.set(ms, n);
    else intervals.delete(ms);
    if (by > 0 && ms < shortest) shortest = ms;
    else if (n <= 0 && ms === shortest) shortest = intervals.size ? Math.min(...intervals.keys()) : Infinity;
  }
  /** Holds `run` under `key` (in place of the one held there before, if any). */
  function hold(key: string, run: Run): void {
    count(held.get(key), -1);
    held.set(key, run);
    count(run, 1);
  }
  function unhold(key: string): void {
    count(held.get(key), -1);
    held.delete(key);
  }
  /**
   * The mean time between this node's rounds: the cluster's rounds come every `claimMs` whatever the node
   * count, each node's n times less often (each statement costs PostgreSQL a fixed share besides its rows:
   * three nodes send 36 claims in 50 s instead of 104, and the claim, release and write statements execute in
   * what one node's take per check; docs/benchmarks.md). But never so rarely that a run this node released
   * (in a batch, up to `flushMs` after it ran) could fall due before its next round (at most 1.5 rounds away)
   * takes it back: short intervals keep the lone node's pace, and their leases move between nodes.
   * A node short of its part keeps that pace too until it has it: the runs the others let go are taken by
   * whoever claims first, and a node holding short intervals claims every `claimMs`, so one holding none
   * at the slower pace found them gone (after a burst of new configurations taken by one node, a third
   * node held nothing for four intervals of 5 s while the second took its runs).
   */
  const roundMs = () =>
    lacking() ? claimMs : Math.max(claimMs, Math.min(claimMs * workers, ROUND_MAX_MS, (shortest - flushMs) / 1.5));
  /** When this node last looked for leases that ran out (performance.now()): every TAKEOVER_MS, not every round. */
  let lookedForTakeover = -Infinity;
  /** When this node's next claim round is due (performance.now()). */
  let nextRoundAt = -Infinity;
  /** A held run's key: its config, and the region of a regional run. */
  const keyOf = (c: { configId: string; region: string }) => dueKey(c.configId, c.region);
  /** Runs this node holds a lease on, by dueKey (config id, region): on the wheel, ready, running, or written soon. */
  const held = new Map<string, Run>();
  const wheel = new Map<number, Run[]>();
  /** The next wheel slot to visit: a run placed in a slot already passed lands in it. */
  let cursor = 0;
  let ready: Run[] = [];
  let readyHead = 0;
  /** Runs due whose lease is not read valid recently enough: they start once it is (checkLeases). */
  let waiting: Run[] = [];
  let checking: Promise<void> | null = null;
  /** Probes cut short by a stop: they went out, so their runs are handed back due one interval on. */
  let cut: { run: Run; started: number }[] = [];
  let running = 0;
  let buffer: Recorded[] = [];
  /** The kept run that follows a result in the buffer: it learns the state that result leads to. */
  const follows = new WeakMap<Recorded, Run>();
  let flushing: Promise<void> = Promise.resolve();
  let claiming: Promise<void> | null = null;
  let stopped = true;
  let aborter = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  const idle: (() => void)[] = [];
  const stats = {
    checks: 0,
    lateMs: [] as number[],
    firstRun: new Map<string, number>(),
    runs: [] as { configId: string; due: number; started: number }[],
    startedAt: 0,
    /** Runs claimed (takeovers included), runs taken over from an expired lease, rounds, claim time. */
    claimed: 0,
    takenOver: 0,
    rounds: 0,
    claimMs: [] as number[],
    /** Results dropped because the lease had been taken over (or the config deleted) before the write. */
    fencedOut: 0,
    /** Runs not started because their lease was revoked or ran out before the probe was due. */
    notSent: 0,
  };

  // While the database is unreachable every round and flush fails: one line per kind a minute.
  const lastLogged = new Map<string, number>();
  function logFailure(what: string, err: unknown, extra: object = {}): void {
    const t = performance.now();
    if (t - (lastLogged.get(what) ?? -Infinity) < 60_000) return;
    lastLogged.set(what, t);
    log.warn({ err: { message: (err as Error).message }, ...extra }, `${what} failed (logged once a minute)`);
  }

  function place(run: Run): void {
    const slot = Math.max(Math.floor(run.at / SLOT_MS), cursor);
    const list = wheel.get(slot);
    if (list) list.push(run);
    else wheel.set(slot, [run]);
  }

  /** One claim round: runs due soon, then leases that ran out; each with its config and endpoint. */
  async function claimRound(): Promise<void> {
    // A node that cannot keep up claims nothing more: the others take what falls due.
    if (ready.length - readyHead >= concurrency) return;
    const t0 = performance.now();
    const t = now();
    const period = roundMs();
    const takeover = t0 - lookedForTakeover >= TAKEOVER_MS;
    if (takeover) lookedForTakeover = t0;
    // Runs due soon and leases that ran out: of configs checked from anywhere, and this region's runs
    // of configs checked from several.
    const part = fair();
    const claimed = await queue.claim({
      now: t,
      // Rounds further apart claim further ahead: as far past the urgent ones as a lone node does.
      horizon: t + aheadMs + Math.ceil((period - claimMs) * 1.5),
      limit: batch,
      region,
      // A fair share of what is due (the rest is left to the other nodes' rounds), no more than this node
      // lacks of its part of the queue, and every run this node's next round (set already: nextRound runs
      // before round) could be late for.
      share: {
        urgent: t + Math.ceil(nextRoundAt > t0 ? nextRoundAt - t0 : period * 1.5) + 2 * SLOT_MS,
        // (Not in a first round: the live workers are not counted yet, and the part is all of it.)
        ...(part === null || !stats.rounds ? {} : { fair: true }),
      },
      liveSince: new Date(t - STALE_AFTER_MS).toISOString(),
      takeover,
      held: { plain: held.size - regionalHeld, regional: regionalHeld },
    });
    const claims = claimed.runs;
    workers = claimed.workers;
    regionWorkers = claimed.regionWorkers;
    queued = claimed.queued;
    stats.rounds++;
    stats.claimMs.push(performance.now() - t0);
    if (stats.claimMs.length > 2000) stats.claimMs.splice(0, 1000);
    // Taken over from a dead node: due already, run at once (they are late by the lease's length).
    const taken = new Set(claims.filter((c) => c.taken));
    if (taken.size) log.info({ runs: taken.size }, 'took over liveness runs whose lease ran out');
    stats.claimed += claims.length;
    stats.takenOver += taken.size;
    if (!claims.length) return;
    const parked = [];
    const t1 = now();
    for (const claim of claims) {
      const { target } = claim;
      if (!target) {
        // Disabled (the config, its endpoint) or deleted: parked until a change wakes it.
        parked.push({ configId: claim.configId, region: claim.region, token: claim.token, next: null });
        continue;
      }
      const interval = target.config.interval_seconds * 1000;
      let at = claim.due;
      // Long overdue (every node was down, a copy from SQLite): spread over a few seconds, not all at once.
      if (!taken.has(claim) && at < t1 - Math.max(interval, 5000))
        at = Math.floor(t1 + random() * Math.min(interval, 5000));
      // A new config's first run: within a second, so a bulk create does not start in one instant.
      else if (claim.fresh && at <= t1) at = Math.floor(t1 + random() * Math.min(interval, 1000));
      const run: Run = { claim, config: target.config, endpoint: target.endpoint, at };
      // This node held it under an older token (revoked by a change): that run is not started.
      const before = held.get(keyOf(claim));
      if (before) before.cancelled = true;
      hold(keyOf(claim), run);
      if (stopped) continue;
      place(run);
    }
    if (parked.length) await queue.release(parked);
    if (stopped) await queue.releaseOwned();
    tick();
  }

  const checkedRecently = (run: Run, t: number) => run.checkedAt !== undefined && t - run.checkedAt < CHECK_FRESH_MS;
  /** Moves the waiting runs whose lease was confirmed lately to the ready queue; returns those still waiting. */
  const startChecked = (t: number): Run[] => {
    const still: Run[] = [];
    for (const run of waiting) {
      if (run.cancelled) continue;
      if (checkedRecently(run, t)) ready.push(run);
      else still.push(run);
    }
    waiting = still;
    return still;
  };

  function tick(): void {
    if (stopped) return;
    const t = performance.now();
    const until = Math.floor(now() / SLOT_MS);
    const lead = Math.floor((now() + CHECK_LEAD_MS) / SLOT_MS);
    const ahead = Math.floor((now() + CHECK_AHEAD_MS) / SLOT_MS);
    const unchecked: Run[] = [];
    let urgent = false;
    if (waiting.length) {
      const still = startChecked(t);
      unchecked.push(...still);
      urgent = still.length > 0;
    }
    // The slots due now (from the cursor on; after a long pause, the occupied ones only), then those
    // of the next CHECK_AHEAD_MS, whose leases are read ahead: a tick visits a few slots, not the wheel.
    const passed =
      until - cursor > 10_000
        ? [...wheel.keys()].filter((k) => k <= until).sort((x, y) => x - y)
        : Array.from({ length: Math.max(0, until - cursor + 1) }, (_, i) => cursor + i);
    for (const slot of passed) {
      const list = wheel.get(slot);
      if (!list) continue;
      wheel.delete(slot);
      for (const run of list) {
        if (run.cancelled) continue;
        if (checkedRecently(run, t)) ready.push(run);
        else {
          waiting.push(run);
          unchecked.push(run);
          urgent = true;
        }
      }
    }
    cursor = Math.max(cursor, until + 1);
    for (let slot = until + 1; slot <= ahead; slot++) {
      for (const run of wheel.get(slot) ?? []) {
        if (run.cancelled || checkedRecently(run, t)) continue;
        unchecked.push(run);
        if (slot <= lead) urgent = true;
      }
    }
    if (urgent && !checking) checkLeases(unchecked);
    drain();
  }

  /**
   * Reads the leases of runs about to start (one statement): a run whose lease is this node's, under its
   * token, and lasts past its probe's timeout may start for CHECK_FRESH_MS; one whose lease was revoked
   * or ran out is dropped (another node runs it); one whose lease is this node's but ends too soon (its
   * predecessor's batch, which extends it, is not written yet) is read again at the next tick.
   */
  function checkLeases(runs: Run[]): void {
    const t = performance.now();
    checking = queue
      .leases(runs.map((r) => ({ configId: r.claim.configId, region: r.claim.region })))
      .then((leases) => {
        const byKey = new Map(leases.map((l) => [dueKey(l.configId, l.region), l]));
        const at = now();
        for (const run of runs) {
          const lease = byKey.get(keyOf(run.claim));
          const ours = lease && lease.owner === owner && lease.token === run.claim.token && lease.leaseUntil !== null;
          if (!ours || lease.leaseUntil! < at) {
            stats.notSent++;
            letGo(keyOf(run.claim), run.claim.token);
            run.cancelled = true;
          } else if (lease.leaseUntil! >= Math.max(run.at, at) + run.config.timeout_seconds * 1000) run.checkedAt = t;
        }
        // The runs due meanwhile start now, not at the next tick.
        startChecked(t);
        drain();
      })
      .catch((err) => logFailure('reading liveness leases', err))
      .finally(() => {
        checking = null;
      });
  }

  function drain(): void {
    const t = performance.now();
    while (running < concurrency && readyHead < ready.length && !stopped) {
      const run = ready[readyHead++]!;
      if (run.cancelled) continue;
      // Held back past its check (the node was busy): its lease is read again first.
      if (!checkedRecently(run, t)) waiting.push(run);
      else start(run);
    }
    if (readyHead > 1024 && readyHead * 2 > ready.length) {
      ready = ready.slice(readyHead);
      readyHead = 0;
    }
  }

  function start(run: Run): void {
    const started = now();
    noteStart(stats, run.config.id, run.at, started);
    running++;
    void check(run, started, aborter.signal);
  }

  async function check(run: Run, started: number, signal: AbortSignal): Promise<void> {
    const outcome = await probeOnce(probe, run, signal, () => now() - started);
    running--;
    if (!signal.aborted) {
      const t = now();
      // A check may ask for its next run (a push endpoint's deadline); else one interval on.
      // Spaced from when the probe went out: after the name's resolution, which a cold cache makes slow.
      const sent = started + (outcome.sentAfterMs ?? 0);
      const interval = run.config.interval_seconds * 1000;
      // A run taken over from a dead node went out late, in a burst with the dead node's other runs that
      // the targets may handle late: its next run is one whole interval after it, not its old phase's
      // next point (which may come 0.7 of an interval after it, and less as such a target saw it).
      const next = askedDue(outcome, t, () =>
        run.claim.taken
          ? nextDue(Math.ceil(sent), interval, false, random, t, sent)
          : nextDue(run.at, interval, run.claim.fresh, random, t, sent),
      );
      // Keep the lease and run it from here: while this node holds no more than its part of the queue, and
      // whenever it is due again before the next claim round could take it.
      // (Not a run this node claimed again meanwhile under a new token: that one goes on instead.)
      const mine = held.get(keyOf(run.claim)) === run;
      const keep = !stopped && mine && (withinPart() || next - t < roundMs() + flushMs);
      run.done = true;
      const recorded: Recorded = {
        config: run.config,
        endpoint: run.endpoint,
        outcome,
        at: started,
        region,
        lease: { token: run.claim.token, next, keep, region: run.claim.region },
        ...(run.state === undefined ? {} : { prev: run.state }),
      };
      buffer.push(recorded);
      if (keep) {
        const again: Run = {
          ...run,
          claim: { ...run.claim, due: next, fresh: false, taken: false },
          at: next,
          state: undefined,
          done: false,
          checkedAt: undefined,
        };
        follows.set(recorded, again);
        hold(keyOf(run.claim), again);
        place(again);
      } else if (mine) unhold(keyOf(run.claim));
    } else cut.push({ run, started });
    if (running === 0) for (const wake of idle.splice(0)) wake();
    drain();
  }

  /**
   * A batch every `flushMs` of the scheduler's clock or of real time, whichever passes first: the
   * leases the results are fenced by run on the clock, so a clock that jumps ahead (a step of the
   * system clock; tests that move it) must not outrun the batch that writes under them.
   */
  let flushedAt = { clock: 0, real: 0 };
  function flushWhenDue(): void {
    const real = performance.now();
    if (now() - flushedAt.clock < flushMs && real - flushedAt.real < flushMs) return;
    flushedAt = { clock: now(), real };
    void flush();
  }

  /** Drops the run held under `key` if it is still the one under `token` (one claimed again meanwhile has a newer token). */
  function letGo(key: string, token: number | undefined): void {
    const run = held.get(key);
    if (run && run.claim.token === token) {
      run.cancelled = true;
      unhold(key);
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      if (!buffer.length) return;
      const out = buffer;
      buffer = [];
      try {
        const { written, fenced, states } = await monitor.record(out, queue.fence);
        stats.fencedOut += out.length - written;
        const lost = new Set(fenced);
        for (const r of out) {
          const key = dueKey(r.config.id, r.lease?.region);
          // Leases taken over or revoked (a change to the target), configs deleted: the runs kept under
          // them are not this node's any more.
          if (lost.has(key)) letGo(key, r.lease?.token);
          else {
            // A kept run not finished yet starts from the state its predecessor's result led to (its
            // batch is written now, under the same lease): its own write need not read it.
            // (Only where nobody else writes a state while the lease holds: see DueQueue.statesKept.)
            const next = follows.get(r);
            const state = states.get(r.config.id);
            if (next && !next.done && state && queue.statesKept) next.state = state;
          }
        }
      } catch (err) {
        // Not written: the leases run out and another node (or this one) runs them again.
        logFailure('writing liveness results', err, { results: out.length });
        for (const r of out) letGo(dueKey(r.config.id, r.lease?.region), r.lease?.token);
      }
    });
    return flushing;
  }

  async function sync(): Promise<void> {
    const r = await queue.sync(now());
    if (r.added || r.woken) log.info(r, 'liveness due-queue repaired');
  }

  /**
   * Reads the targets of the runs this node holds again (with the queue's repair, every few minutes): a
   * change made where no wake-up revoked the leases (SQL typed by hand, a node killed between its commit
   * and the wake-up) reaches the runs held here, and a target disabled or deleted meanwhile is parked.
   */
  async function refreshHeld(): Promise<void> {
    const runs = [...held.values()].filter((r) => !r.cancelled);
    for (let i = 0; i < runs.length; i += REFRESH_CHUNK) {
      const chunk = runs.slice(i, i + REFRESH_CHUNK);
      const byId = new Map(
        (await monitor.targetsIn({ ids: [...new Set(chunk.map((r) => r.config.id))] })).map((x) => [x.config.id, x]),
      );
      const parked = [];
      for (const run of chunk) {
        if (held.get(keyOf(run.claim)) !== run) continue; // it ran meanwhile: the next run is read next time
        const target = byId.get(run.config.id);
        if (target) {
          count(run, -1);
          run.config = target.config;
          run.endpoint = target.endpoint;
          count(run, 1);
        } else {
          letGo(keyOf(run.claim), run.claim.token);
          parked.push({ configId: run.config.id, region: run.claim.region, token: run.claim.token, next: null });
        }
      }
      if (parked.length) await queue.release(parked);
    }
  }

  /** Asked for while a round was under way (the queue's `due`): one more round follows it. */
  let roundAgain = false;
  function round(asked = false): void {
    if (stopped) return;
    if (claiming) {
      roundAgain ||= asked;
      return;
    }
    claiming = claimRound()
      .catch((err) => logFailure('claiming liveness runs', err))
      .finally(() => {
        claiming = null;
        if (roundAgain) {
          roundAgain = false;
          round();
        }
      });
  }

  /**
   * Schedules the next claim round at a jittered delay (nodes' rounds drift apart and share the work),
   * before the round it follows starts: that round takes every run due before it (`nextRoundAt`).
   */
  function nextRound(): void {
    if (stopped) return;
    const delay = roundMs() * (0.5 + random());
    nextRoundAt = performance.now() + delay;
    const timer = setTimeout(() => {
      timers.splice(timers.indexOf(timer), 1);
      nextRound();
      round();
    }, delay);
    timer.unref();
    timers.push(timer);
  }

  function every(ms: number, fn: () => void): void {
    const timer = setInterval(fn, ms);
    timer.unref();
    timers.push(timer);
  }

  return {
    stats,
    /** Runs this node holds a lease on now (the node list's "work claimed"). */
    size: () => held.size,
    /** Of them, the regional runs (its heartbeat's count, which the other nodes' claims add up). */
    regional: () => regionalHeld,
    /** When a configuration this node holds runs next (epoch ms), for tests and tooling. */
    dueOf: (configId: string, inRegion = ''): number | undefined => held.get(dueKey(configId, inRegion))?.at,
    async start(): Promise<void> {
      stopped = false;
      aborter = new AbortController();
      setMaxListeners(concurrency + 16, aborter.signal);
      stats.startedAt = now();
      stats.firstRun.clear();
      // The cursor starts at the current slot before anything is placed: nothing lands behind it.
      cursor = Math.floor(now() / SLOT_MS);
      // A change in this process (the in-memory queue) makes runs due: a round now, not at the next one.
      await queue.start(() => round(true));
      await sync().catch((err) => log.warn({ err: { message: (err as Error).message } }, 'liveness queue sync failed'));
      every(SLOT_MS, () => {
        tick();
        flushWhenDue();
      });
      every(
        deps.syncMs ?? 600_000,
        () =>
          void sync()
            .then(refreshHeld)
            .catch(() => undefined),
      );
      nextRound();
      round();
    },
    /** Stops claiming, gives in-flight probes `graceMs`, writes what finished and hands back the rest. */
    async stop(graceMs = 3000): Promise<void> {
      if (stopped) return;
      stopped = true;
      for (const t of timers.splice(0)) clearTimeout(t);
      queue.stop();
      await claiming;
      const cancel = setTimeout(() => aborter.abort(), graceMs);
      await (running === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r)));
      clearTimeout(cancel);
      aborter.abort();
      await flush();
      // A probe cut short went out all the same: its row is not due again at once (another node would probe
      // the target a second time right after) but one interval on, as after a result.
      const out = cut.splice(0).map(({ run, started }) => ({
        configId: run.claim.configId,
        region: run.claim.region,
        token: run.claim.token,
        next: nextDue(run.at, run.config.interval_seconds * 1000, run.claim.fresh, random, now(), started),
      }));
      if (out.length)
        await queue
          .release(out)
          .catch((err: Error) => log.warn({ err: err.message }, 'handing back runs cut short failed'));
      await queue.releaseOwned().catch((err: Error) => log.warn({ err: err.message }, 'handing back leases failed'));
      await checking;
      held.clear();
      intervals.clear();
      regionalHeld = 0;
      shortest = Infinity;
      wheel.clear();
      waiting = [];
      cut = [];
      ready = [];
      readyHead = 0;
    },
    /** Resolves once the claim round in progress is done (tests). */
    settled: async (): Promise<void> => {
      await claiming;
    },
    flush,
    /** Runs the next claim round now (tests and tooling). */
    reload: async (): Promise<void> => {
      round();
      await claiming;
    },
  };
}
