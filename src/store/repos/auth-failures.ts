// Failed authentications per client address and one-minute window (services/auth-throttle.ts),
// shared by every node on one PostgreSQL database as the per-team rate limit's counters are.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export function authFailuresRepo(db: Kysely<DB>) {
  return {
    /** Adds one failure of `client` in the window starting at `windowStart`; returns the window's count after it. */
    async add(client: string, windowStart: number): Promise<number> {
      const r = await db
        .insertInto('auth_failures')
        .values({ client, window_start: windowStart, failures: 1 })
        .onConflict((oc) =>
          oc.columns(['window_start', 'client']).doUpdateSet((eb) => ({
            failures: eb('auth_failures.failures', '+', 1),
          })),
        )
        .returning('failures')
        .executeTakeFirstOrThrow();
      return Number(r.failures);
    },
    /** The clients with at least `min` failures in the window starting at `windowStart`. */
    async blocked(windowStart: number, min: number): Promise<string[]> {
      const rows = await db
        .selectFrom('auth_failures')
        .select('client')
        .where('window_start', '=', windowStart)
        .where('failures', '>=', min)
        .execute();
      return rows.map((r) => r.client);
    },
    /** Removes the counts of windows that started before `before` (epoch ms); returns how many. */
    async prune(before: number): Promise<number> {
      const r = await db.deleteFrom('auth_failures').where('window_start', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
