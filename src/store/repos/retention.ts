// Retention deletes in small batches (each one short statement, so probe writes interleave) and
// the incremental vacuum that hands freed pages back to the file system.
import { engineOf } from '../migrations/engine.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

/** Delivery states that will never be attempted again. */
const FINAL_DELIVERY_STATES = ['success', 'failed'] as const;

export function retentionRepo(db: Kysely<DB>) {
  return {
    /** Configurations holding raw results older than `beforeTs`: one query (a primary-key probe per configuration inside SQLite). */
    async livenessSeqsWithResultsBefore(beforeTs: number): Promise<number[]> {
      const rows = await db
        .selectFrom('liveness_configs as c')
        .select('c.seq')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('liveness_results as r')
              .select('r.ts')
              .whereRef('r.cfg', '=', 'c.seq')
              .where('r.ts', '<', beforeTs),
          ),
        )
        .orderBy('c.seq')
        .execute();
      return rows.map((r) => r.seq);
    },
    /** Up to `limit` raw results of one configuration older than `beforeTs` (primary-key range). */
    async deleteResults(cfg: number, beforeTs: number, limit: number): Promise<number> {
      const r = await sql`delete from liveness_results where cfg = ${cfg} and ts in (
        select ts from liveness_results where cfg = ${cfg} and ts < ${beforeTs} order by ts limit ${limit})`.execute(
        db,
      );
      return Number(r.numAffectedRows ?? 0);
    },
    /** Configurations with aggregate rows of `table` older than bucket `before` (one primary-key probe each). */
    async livenessSeqsWithAggregatesBefore(
      table: 'liveness_hourly' | 'liveness_daily',
      before: number,
    ): Promise<number[]> {
      const rows = await db
        .selectFrom('liveness_configs as c')
        .select('c.seq')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom(`${table} as a`)
              .select('a.bucket')
              .whereRef('a.cfg', '=', 'c.seq')
              .where('a.bucket', '<', before),
          ),
        )
        .orderBy('c.seq')
        .execute();
      return rows.map((r) => r.seq);
    },
    /** Up to `limit` aggregate rows of one configuration older than bucket `before` (primary-key range). */
    async deleteAggregates(
      table: 'liveness_hourly' | 'liveness_daily',
      cfg: number,
      before: number,
      limit: number,
    ): Promise<number> {
      const r = await sql`delete from ${sql.table(table)} where cfg = ${cfg} and bucket in (
        select bucket from ${sql.table(table)} where cfg = ${cfg} and bucket < ${before} order by bucket limit ${limit})`.execute(
        db,
      );
      return Number(r.numAffectedRows ?? 0);
    },
    /** Finished deliveries (their attempts cascade) created before `before`. */
    async deleteDeliveries(before: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('deliveries')
        .where('id', 'in', (q) =>
          q
            .selectFrom('deliveries')
            .select('id')
            .where('status', 'in', [...FINAL_DELIVERY_STATES])
            .where('created_at', '<', before)
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /**
     * Events already fanned out, created before `before` (`beforeDeduped` for events holding a
     * dedupe key, which stop a repeated alert), with no delivery still pending.
     */
    async deleteEvents(before: string, beforeDeduped: string, limit: number): Promise<number> {
      const r = await sql`delete from events where id in (
        select ev.id from events ev
        where ev.fanned_out_at is not null
          and ev.created_at < case when ev.dedupe_key is null then ${before} else ${beforeDeduped} end
          and not exists (select 1 from deliveries dl where dl.event_id = ev.id and dl.status not in ('success', 'failed'))
        limit ${limit})`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
    async deleteRegistrationHistory(before: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('registration_history')
        .where('id', 'in', (q) =>
          q.selectFrom('registration_history').select('id').where('observed_at', '<', before).limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Certificates not seen since `before` (the one currently served is seen on every check). */
    async deleteCertificateHistory(before: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('certificate_history')
        .where('id', 'in', (q) =>
          q.selectFrom('certificate_history').select('id').where('last_seen', '<', before).limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async deleteExposureScans(before: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('exposure_scans')
        .where('id', 'in', (q) =>
          q
            .selectFrom('exposure_scans')
            .select('id')
            .where('finished_at', 'is not', null)
            .where('finished_at', '<', before)
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async freePages(): Promise<number> {
      // PostgreSQL's autovacuum gives space back by itself: nothing to hand back here.
      if (engineOf(db) === 'postgres') return 0;
      const r = await sql<{ freelist_count: number }>`select freelist_count from pragma_freelist_count()`.execute(db);
      return Number(r.rows[0]?.freelist_count ?? 0);
    },
    /**
     * Returns up to `pages` free pages to the file system (needs auto_vacuum = INCREMENTAL). The
     * driver steps a statement once and each step frees one page, so it runs once per page, inside
     * one transaction (one commit per slice, not per page).
     */
    async incrementalVacuum(pages: number): Promise<void> {
      if (engineOf(db) === 'postgres') return;
      const step = sql.raw('pragma incremental_vacuum');
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < pages; i++) await step.execute(trx);
      });
    },
    /** Copies the WAL into the file without waiting for readers, so the file shrinks too. */
    async checkpoint(): Promise<void> {
      if (engineOf(db) === 'postgres') return;
      await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
    },
    /** SQLite's auto_vacuum mode (2: incremental); PostgreSQL answers 2 too (its autovacuum frees space the same way). */
    async autoVacuumMode(): Promise<number> {
      if (engineOf(db) === 'postgres') return 2;
      const r = await sql<{ auto_vacuum: number }>`select auto_vacuum from pragma_auto_vacuum()`.execute(db);
      return Number(r.rows[0]?.auto_vacuum ?? 0);
    },
  };
}
