// The per-team request counters several nodes share (PostgreSQL): one row per team and one-minute
// window, counting the requests the nodes have claimed (not necessarily spent yet).
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export function rateLimitsRepo(db: Kysely<DB>) {
  return {
    /**
     * Adds `n` to the team's claimed count of the window starting at `windowStart` (epoch ms) and
     * returns the count after it, in one statement: the caller's share is what lay below the limit of
     * `after - n .. after`. Concurrent claims queue on the row, so no two get the same share.
     */
    async claim(teamId: string, windowStart: number, n: number): Promise<number> {
      const r = await db
        .insertInto('rate_limits')
        .values({ team_id: teamId, window_start: windowStart, claimed: n })
        .onConflict((oc) =>
          oc.columns(['team_id', 'window_start']).doUpdateSet((eb) => ({
            claimed: eb('rate_limits.claimed', '+', eb.ref('excluded.claimed')),
          })),
        )
        .returning('claimed')
        .executeTakeFirstOrThrow();
      return Number(r.claimed);
    },
    /** Removes the counters of windows that started before `before` (epoch ms); returns how many. */
    async prune(before: number): Promise<number> {
      const r = await db.deleteFrom('rate_limits').where('window_start', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
