// Failed authentications per client address (docs/security.md): a bad bearer token, `api_key` or
// session cookie, a failed dashboard sign-in or a failed POST /api-auth each count one failure of the
// address in a fixed one-minute window. Once an address has `limit` failures in the window, every
// request from it that carries a credential (a correct one too) is answered 429 with Retry-After until
// the window ends; a success never resets the count.
//
// The counts live in the database (one upsert per failure, never a write for a success), so every
// node on one PostgreSQL database adds to the same count. A node learns that an address is blocked
// from the count its own failure returns and from a look-up of the window's blocked addresses at most
// every REFRESH_MS while it serves credentials; while the database does not answer it counts alone.
import type { Logger } from 'pino';
import { QuotaExceeded } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/index.js';

const WINDOW_MS = 60_000;
const REFRESH_MS = 2_000;

const windowOf = (now: number) => now - (now % WINDOW_MS);

export interface AuthThrottle {
  /** Throws 429 TOO_MANY_FAILURES (with the seconds to wait) when `client` is blocked in this window. */
  check(client: string): Promise<void>;
  /** Counts one failure of `client`; throws 429 if it went past the limit (the 401 would tell nothing more). */
  fail(client: string): Promise<void>;
}

export function createAuthThrottle(deps: {
  store: Pick<Store, 'authFailures'>;
  clock: Clock;
  limit: number;
  log?: Logger;
}): AuthThrottle {
  const { store, clock, limit } = deps;
  /** The counts this node knows in the current window (its own failures' answers and the look-ups). */
  let known = new Map<string, number>();
  let window = 0;
  let refreshedAt = -Infinity;
  let refreshing: Promise<void> | undefined;
  let warned = 0;

  function current(): number {
    const now = clock.now().getTime();
    const w = windowOf(now);
    if (w !== window) {
      window = w;
      known = new Map();
      refreshedAt = -Infinity;
      void store.authFailures.prune(w - WINDOW_MS).catch(() => undefined);
    }
    return now;
  }

  function blocked(client: string, now: number): never {
    const retryAfter = Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000));
    throw new QuotaExceeded(
      `too many failed sign-ins or bad credentials from this address; retry in ${retryAfter} s`,
      retryAfter,
      'TOO_MANY_FAILURES',
    );
  }

  function warn(err: unknown): void {
    if (Date.now() - warned > 60_000) {
      warned = Date.now();
      deps.log?.warn({ err }, 'auth throttle: the shared failure count is unavailable; counting on this node alone');
    }
  }

  async function refresh(): Promise<void> {
    const w = window;
    try {
      for (const c of await store.authFailures.blocked(w, limit))
        if (w === window) known.set(c, Math.max(known.get(c) ?? 0, limit));
    } catch (err) {
      warn(err);
    }
  }

  return {
    async check(client) {
      let now = current();
      if (now - refreshedAt >= REFRESH_MS) {
        refreshedAt = now;
        refreshing ??= refresh().finally(() => {
          refreshing = undefined;
        });
      }
      if (refreshing) await refreshing;
      now = current();
      if ((known.get(client) ?? 0) >= limit) blocked(client, now);
    },
    async fail(client) {
      let now = current();
      let count: number;
      try {
        count = await store.authFailures.add(client, window);
      } catch (err) {
        warn(err);
        count = (known.get(client) ?? 0) + 1;
      }
      now = current();
      known.set(client, Math.max(known.get(client) ?? 0, count));
      if (count > limit) blocked(client, now);
    },
  };
}
