// The per-team API rate limit (DOMMON_RATE_LIMIT requests per fixed one-minute window).
//
// One process (SQLite): counted in memory. Several nodes on one PostgreSQL database: the window's
// budget is shared through one counter row per team and window (store/repos/rate-limits.ts). A node
// does not ask the database per request: it claims a slice of the budget (one upsert) and spends it
// locally, claiming the next slice when it has none left. A claim never hands out more than what is
// left below the limit, so the nodes together never accept more than the limit; what they can lose is
// the unspent part of the slices they hold when the window ends (at most `nodes x (slice - 1)`).
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/index.js';

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests the team may still make in this window (an estimate across nodes). */
  remaining: number;
  /** Epoch ms at which the window ends. */
  resetAt: number;
}

export interface RateLimiter {
  take(teamId: string): RateDecision | Promise<RateDecision>;
}

const windowOf = (now: number) => now - (now % WINDOW_MS);

/** In memory: one process serves every request. */
export function localRateLimiter(limit: number, clock: Clock): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(teamId) {
      const now = clock.now().getTime();
      let w = windows.get(teamId);
      if (!w || now - w.start >= WINDOW_MS) {
        if (!w && windows.size > 10_000)
          for (const [k, v] of windows) if (now - v.start >= WINDOW_MS) windows.delete(k);
        w = { start: windowOf(now), count: 0 };
        windows.set(teamId, w);
      }
      w.count++;
      return {
        allowed: w.count <= limit,
        limit,
        remaining: Math.max(0, limit - w.count),
        resetAt: w.start + WINDOW_MS,
      };
    },
  };
}

/** The slice a node claims at once: 2 % of the limit (2 of the default 100), at least 1. */
function sliceFor(limit: number): number {
  return Math.max(1, Math.floor(limit / 50));
}

interface TeamWindow {
  start: number;
  /** Requests claimed by this node and not spent yet. */
  left: number;
  /** The team's claimed count in the database after this node's last claim (every node's claims). */
  claimed: number;
  /** The budget is all claimed: no node gets more in this window. */
  exhausted: boolean;
  refill?: Promise<void>;
}

/** Shared by every node on the database (PostgreSQL). */
export function sharedRateLimiter(deps: {
  store: Pick<Store, 'rateLimits'>;
  limit: number;
  clock: Clock;
  log?: Logger;
  /** Requests claimed at once; sliceFor(limit) by default. */
  slice?: number;
}): RateLimiter & { stats(): { claims: number; claimMs: number; fallbacks: number } } {
  const { store, limit, clock } = deps;
  const slice = Math.max(1, Math.min(deps.slice ?? sliceFor(limit), limit));
  const teams = new Map<string, TeamWindow>();
  // While the database does not answer, each node counts on its own (the request itself then
  // answers what the database's outage makes of it).
  const fallback = localRateLimiter(limit, clock);
  let prunedWindow = 0;
  let claims = 0;
  let claimMs = 0;
  let fallbacks = 0;
  let warned = 0;

  async function refill(teamId: string, w: TeamWindow): Promise<void> {
    claims++;
    const t0 = performance.now();
    const after = await store.rateLimits.claim(teamId, w.start, slice);
    claimMs += performance.now() - t0;
    const before = after - slice;
    w.left += Math.max(0, Math.min(slice, limit - before));
    w.claimed = Math.max(w.claimed, after);
    if (after >= limit) w.exhausted = true;
  }

  function current(teamId: string, now: number): TeamWindow {
    const start = windowOf(now);
    let w = teams.get(teamId);
    if (!w || w.start !== start) {
      w = { start, left: 0, claimed: 0, exhausted: false };
      teams.set(teamId, w);
      if (prunedWindow !== start) {
        // Once a window per node: forget older windows here and there.
        prunedWindow = start;
        for (const [k, v] of teams) if (v.start < start) teams.delete(k);
        void store.rateLimits.prune(start - 2 * WINDOW_MS).catch(() => undefined);
      }
    }
    return w;
  }

  const decision = (w: TeamWindow, allowed: boolean): RateDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - (Math.min(w.claimed, limit) - w.left)),
    resetAt: w.start + WINDOW_MS,
  });

  return {
    async take(teamId) {
      for (;;) {
        const w = current(teamId, clock.now().getTime());
        if (w.left > 0) {
          w.left--;
          return decision(w, true);
        }
        if (w.exhausted) return decision(w, false);
        // One claim at a time per team on this node; requests arriving meanwhile wait for it.
        w.refill ??= refill(teamId, w).finally(() => {
          w.refill = undefined;
        });
        try {
          await w.refill;
        } catch (err) {
          fallbacks++;
          if (Date.now() - warned > 60_000) {
            warned = Date.now();
            deps.log?.warn({ err }, 'rate limit: the shared counter is unavailable; counting on this node alone');
          }
          return fallback.take(teamId);
        }
      }
    },
    /** Claims made (database round trips), their total milliseconds, and takes answered without the database. */
    stats: () => ({ claims, claimMs, fallbacks }),
  };
}
