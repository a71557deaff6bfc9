// check_schedule: when each refresh (registration, security, ...) of each target runs next.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { ReusingCompiled } from './util.js';

interface ScheduleRow {
  kind: string;
  target_id: string;
  next_run_at: string;
  last_run_at: string | null;
  last_outcome: string | null;
}

export function scheduleRepo(db: Kysely<DB>, reuse: ReusingCompiled) {
  return {
    /** Rows (due at `now`) of a new domain, one per kind: written in the transaction that creates it. */
    async addTarget(kinds: readonly string[], targetId: string, now: string): Promise<void> {
      await reuse(
        db,
        'check_schedule',
        `schedule.addTarget ${kinds.length}`,
        kinds.flatMap((kind) => [kind, targetId, now]),
        () =>
          db
            .insertInto('check_schedule')
            .values(kinds.map((kind) => ({ kind, target_id: targetId, next_run_at: now })))
            .onConflict((oc) => oc.doNothing()),
      );
    },
    /** Every row of a target (a deleted domain), in the transaction that deletes it. */
    async removeTarget(kinds: readonly string[], targetId: string): Promise<void> {
      await db
        .deleteFrom('check_schedule')
        .where('kind', 'in', [...kinds])
        .where('target_id', '=', targetId)
        .execute();
    },
    /** Adds a row (due now) for every domain that has none of `kind`, and drops rows of deleted domains. */
    async syncDomains(kind: string, now: string): Promise<void> {
      await sql`insert into check_schedule (kind, target_id, next_run_at)
        select ${kind}, d.id, ${now} from domains d
        where not exists (select 1 from check_schedule s where s.kind = ${kind} and s.target_id = d.id)`.execute(db);
      await sql`delete from check_schedule where kind = ${kind}
        and not exists (select 1 from domains d where d.id = check_schedule.target_id)`.execute(db);
    },
    /** Due rows not leased by another run, oldest first; leases them until `leaseUntil`. */
    async claimDue(kind: string, now: string, limit: number, leaseUntil: string): Promise<ScheduleRow[]> {
      const due = (q: typeof db) =>
        q
          .selectFrom('check_schedule')
          .select(['kind', 'target_id', 'next_run_at', 'last_run_at', 'last_outcome'])
          .where('kind', '=', kind)
          .where('next_run_at', '<=', now)
          .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<', now)]))
          .orderBy('next_run_at');
      // Nothing due (most ticks): one indexed read, no write transaction.
      if (!(await due(db).limit(1).executeTakeFirst())) return [];
      return db.transaction().execute(async (trx) => {
        const rows = await due(trx).limit(limit).execute();
        if (rows.length) {
          await trx
            .updateTable('check_schedule')
            .set({ lease_until: leaseUntil })
            .where('kind', '=', kind)
            .where(
              'target_id',
              'in',
              rows.map((r) => r.target_id),
            )
            .execute();
        }
        return rows;
      });
    },
    async finish(kind: string, targetId: string, at: string, nextRunAt: string, outcome: string): Promise<void> {
      await db
        .updateTable('check_schedule')
        .set({ last_run_at: at, next_run_at: nextRunAt, last_outcome: outcome, lease_until: null })
        .where('kind', '=', kind)
        .where('target_id', '=', targetId)
        .execute();
    },
    /** Makes a target due at `at` (e.g. now, after a setting that affects it changed). */
    async dueAt(kind: string, targetId: string, at: string): Promise<void> {
      await db
        .insertInto('check_schedule')
        .values({
          kind,
          target_id: targetId,
          next_run_at: at,
          last_run_at: null,
          last_outcome: null,
          lease_until: null,
        })
        .onConflict((oc) => oc.columns(['kind', 'target_id']).doUpdateSet({ next_run_at: at }))
        .execute();
    },
    async get(kind: string, targetId: string): Promise<ScheduleRow | undefined> {
      return db
        .selectFrom('check_schedule')
        .select(['kind', 'target_id', 'next_run_at', 'last_run_at', 'last_outcome'])
        .where('kind', '=', kind)
        .where('target_id', '=', targetId)
        .executeTakeFirst();
    },
  };
}
