// Per-server politeness for RDAP and WHOIS: queries to one server are spaced out, and a server that
// said "slow down" (HTTP 429, Retry-After, a WHOIS rate-limit text) is left alone until its back-off ends.
import type { Clock } from '../domain/clock.js';

export interface ServerLimiter {
  /** Epoch ms until which the server is backed off, or null. */
  blockedUntil(server: string): number | null;
  /** Waits for the server's spacing slot; false when the wait would exceed `budgetMs` or the signal aborts. */
  acquire(server: string, budgetMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Records a rate-limit answer: Retry-After when given, else exponential back-off. Returns the back-off (ms). */
  penalize(server: string, retryAfterMs: number | null): number;
  /** A normal answer resets the back-off. */
  success(server: string): void;
}

interface LimiterOptions {
  clock: Clock;
  /** Minimum time between two queries to one server. */
  spacingMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

interface ServerState {
  nextSlot: number;
  strikes: number;
  blockedUntil: number;
}

export function createServerLimiter(opts: LimiterOptions): ServerLimiter {
  const spacing = opts.spacingMs ?? 500;
  const base = opts.baseBackoffMs ?? 60_000;
  const max = opts.maxBackoffMs ?? 6 * 3_600_000;
  const servers = new Map<string, ServerState>();
  const state = (s: string) => {
    let st = servers.get(s);
    if (!st) servers.set(s, (st = { nextSlot: 0, strikes: 0, blockedUntil: 0 }));
    return st;
  };
  return {
    blockedUntil(server) {
      const st = servers.get(server);
      return st && st.blockedUntil > opts.clock.now().getTime() ? st.blockedUntil : null;
    },
    async acquire(server, budgetMs, signal) {
      // An aborted signal never fires 'abort' again: without this check a shutdown would wait out every slot.
      if (signal?.aborted) return false;
      const st = state(server);
      // Spacing uses the monotonic clock: it is about real request rate, not about dates.
      const now = performance.now();
      const wait = Math.max(0, st.nextSlot - now);
      if (wait > budgetMs) return false;
      st.nextSlot = Math.max(now, st.nextSlot) + spacing;
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const onAbort = () => {
            clearTimeout(t);
            resolve();
          };
          const t = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, wait);
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      }
      return !signal?.aborted;
    },
    penalize(server, retryAfterMs) {
      const st = state(server);
      st.strikes++;
      const ms = Math.min(max, retryAfterMs ?? base * 2 ** (st.strikes - 1));
      st.blockedUntil = opts.clock.now().getTime() + ms;
      return ms;
    },
    success(server) {
      const st = state(server);
      st.strikes = 0;
      st.blockedUntil = 0;
    },
  };
}
