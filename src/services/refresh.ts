// What the registration and DNS-security refreshes share: one run per domain at a time, and the
// team-scoped domain look-up their API calls start from.
import { NotFound } from '../domain/errors.js';
import type { Domain } from '../domain/types.js';
import type { Store } from '../store/index.js';

export interface RefreshOptions {
  /** A person asked for it now (after something changed). */
  fresh?: boolean;
  /**
   * The caller recomputes the domain's health itself once its round is over (the intel scheduler,
   * which coalesces a round's refreshes of a domain), so the refresh's transaction does not.
   */
  deferHealth?: boolean;
}

type Refresh<T> = (d: Domain, opts?: RefreshOptions) => Promise<T>;

/**
 * Wraps `run` so a second caller joins the refresh already running for the domain; `fresh`: a
 * caller that asks after something changed waits for the running one and then starts its own.
 */
export function singleFlight<T>(run: (d: Domain, opts: RefreshOptions) => Promise<T>): Refresh<T> {
  const inflight = new Map<string, Promise<T>>();
  const refresh: Refresh<T> = (d, opts = {}) => {
    const running = inflight.get(d.id);
    if (running && opts.fresh) return running.catch(() => undefined).then(() => refresh(d, opts));
    let p = running;
    if (!p) {
      p = run(d, opts).finally(() => inflight.delete(d.id));
      inflight.set(d.id, p);
    }
    return p;
  };
  return refresh;
}

/** The team's domain, or NotFound. */
export async function teamDomain(store: Pick<Store, 'domains'>, teamId: string, id: string): Promise<Domain> {
  const d = await store.domains.get(teamId, id);
  if (!d) throw new NotFound('Domain');
  return d;
}
