// check_schedule: when each refresh (registration, security, ...) of each target runs next.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { ReusingCompiled } from './util.js';
import { PREPARED } from '../prepared.js';

interface ScheduleRow {
  kind: string;
  target_id: string;
  next_run_at: string;
  last_run_at: string | null;
  last_outcome: string | null;
}

export function scheduleRepo(db: Kysely<DB>, reuse: ReusingCompiled) {
  /**
   * Leases targets of `kind` until `until` for this run, atomically: returns the ids won, those
   * whose row is not leased by another run (several nodes on one database each try; a row's update
   * waits for another node's and then sees its lease). A target without a row gets one (due now).
   */
  async function lease(kind: string, ids: readonly string[], now: string, until: string): Promise<string[]> {
    if (!ids.length) return [];
    const won = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      const inserted = await db
        .insertInto('check_schedule')
        .values(part.map((id) => ({ kind, target_id: id, next_run_at: now, lease_until: until })))
        .onConflict((oc) => oc.doNothing())
        .returning('target_id')
        .execute();
      inserted.forEach((r) => won.add(r.target_id));
      const rest = part.filter((id) => !won.has(id));
      if (!rest.length) continue;
      const updated = await db
        .updateTable('check_schedule')
        .set({ lease_until: until })
        .where('kind', '=', kind)
        .where('target_id', 'in', rest)
        .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<', now)]))
        .returning('target_id')
        .execute();
      updated.forEach((r) => won.add(r.target_id));
    }
    return ids.filter((id) => won.has(id));
  }

  return {
    /** Rows (due at `now`) of a new domain, one per kind: written in the transaction that creates it. */
    async addTarget(kinds: readonly string[], targetId: string, now: string): Promise<void> {
      await reuse(
        db,
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
    lease,
    /**
     * Which of `kinds` have a row due and not leased: one statement (an indexed probe per kind,
     * prepared on PostgreSQL), so that a tick with nothing due (most ticks) costs one round trip
     * whatever the number of kinds.
     */
    async dueKinds<K extends string>(kinds: readonly K[], now: string): Promise<K[]> {
      const listed = sql.join(
        kinds.map((k) => sql`select cast(${k} as text) as kind`),
        sql` union all `,
      );
      const { rows } = await sql<{ kind: K }>`select k.kind from (${listed}) k where exists (
          select 1 from check_schedule s where s.kind = k.kind and s.next_run_at <= ${now}
            and (s.lease_until is null or s.lease_until < ${now})) ${PREPARED}`.execute(db);
      return rows.map((r) => r.kind);
    },
    /** Due rows not leased by another run, oldest first; leases them until `leaseUntil` (only those won). */
    async claimDue(kind: string, now: string, limit: number, leaseUntil: string): Promise<ScheduleRow[]> {
      const rows = await db
        .selectFrom('check_schedule')
        .select(['kind', 'target_id', 'next_run_at', 'last_run_at', 'last_outcome'])
        .where('kind', '=', kind)
        .where('next_run_at', '<=', now)
        .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<', now)]))
        .orderBy('next_run_at')
        .limit(limit)
        .execute();
      const won = new Set(
        await lease(
          kind,
          rows.map((r) => r.target_id),
          now,
          leaseUntil,
        ),
      );
      return rows.filter((r) => won.has(r.target_id));
    },
    /**
     * A run's end, in the transaction that stores its result: when it ran, how it went, when it runs
     * next; frees its lease. The row is made when missing, unless the domain is gone: a run that ends
     * after its domain was deleted leaves no row behind.
     */
    async done(kind: string, targetId: string, o: { at: string; next: string; outcome: string }): Promise<void> {
      const set = { next_run_at: o.next, last_run_at: o.at, last_outcome: o.outcome, lease_until: null };
      const updated = await db
        .updateTable('check_schedule')
        .set(set)
        .where('kind', '=', kind)
        .where('target_id', '=', targetId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return;
      if (!(await db.selectFrom('domains').select('id').where('id', '=', targetId).executeTakeFirst())) return;
      await db
        .insertInto('check_schedule')
        .values({ kind, target_id: targetId, ...set })
        .onConflict((oc) => oc.columns(['kind', 'target_id']).doUpdateSet(set))
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
