// Retention deletes in small batches (each one short statement, so probe writes interleave) and
// the incremental vacuum that hands freed pages back to the file system.
import { engineOf } from '../migrations/engine.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { PingKind } from '../../domain/push.js';

/** Delivery states that will never be attempted again. */
const FINAL_DELIVERY_STATES = ['success', 'failed'] as const;

const DAY_MS = 86_400_000;

/** liveness_results_d20261126: the partition of one UTC day (epoch day number -> its date). */
function resultPartitionName(day: number): string {
  return `liveness_results_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

function dayOfPartition(name: string): number | null {
  const m = /^liveness_results_d(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS) : null;
}

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
      table: 'liveness_hourly' | 'liveness_daily' | 'liveness_region_daily',
      before: number,
    ): Promise<number[]> {
      const rows = await db
        .selectFrom('liveness_configs as c')
        .select('c.seq')
        .where(({ exists, selectFrom }) =>
          exists(
            // The same columns in all three (the region table's region aside): typed as the hourly one.
            selectFrom(`${table as 'liveness_hourly'} as a`)
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
      table: 'liveness_hourly' | 'liveness_daily' | 'liveness_region_daily',
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
    /**
     * Push endpoints holding a ping of `kind` older than `before` (epoch ms): one probe of the
     * (endpoint_id, kind, at) index per endpoint, as for results.
     */
    async pushEndpointsWithPingsBefore(kind: PingKind, before: number): Promise<string[]> {
      const rows = await db
        .selectFrom('push_checks as c')
        .select('c.endpoint_id')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('push_pings as p')
              .select('p.id')
              .whereRef('p.endpoint_id', '=', 'c.endpoint_id')
              .where('p.kind', '=', kind)
              .where('p.at', '<', before),
          ),
        )
        .orderBy('c.endpoint_id')
        .execute();
      return rows.map((r) => r.endpoint_id);
    },
    /**
     * Up to `limit` pings of one endpoint and kind older than `before`, oldest first (an index range),
     * except the endpoint's last start and last finish: its check judges by those however old they
     * are (a monthly job's last run is older than a week's results).
     */
    async deletePings(endpointId: string, kind: PingKind, before: number, limit: number): Promise<number> {
      const newest = (kinds: string[]) =>
        sql`coalesce((select id from push_pings where endpoint_id = ${endpointId} and kind in (${sql.join(kinds)})
          order by at desc, id desc limit 1), '')`;
      const r = await sql`delete from push_pings where id in (
        select id from push_pings
        where endpoint_id = ${endpointId} and kind = ${kind} and at < ${before}
          and id <> ${newest(['start'])} and id <> ${newest(['success', 'fail'])}
        order by at limit ${limit})`.execute(db);
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
    /**
     * PostgreSQL: a partition of `liveness_results` per UTC day from `fromDay` to `toDay` (epoch
     * days), made ahead of the rows that go in it. A day whose rows already sit in the default
     * partition (written before its partition existed) keeps them there; range deletes clear those.
     * Returns the days made. SQLite: nothing (one table).
     */
    async ensureResultPartitions(fromDay: number, toDay: number): Promise<number[]> {
      if (engineOf(db) !== 'postgres') return [];
      const made: number[] = [];
      for (let day = fromDay; day <= toDay; day++) {
        const name = resultPartitionName(day);
        const exists = await sql<{ t: string | null }>`select to_regclass(${name})::text as t`.execute(db);
        if (exists.rows[0]?.t) continue;
        try {
          // Appended to, then dropped whole: no insert-driven vacuums (migration 018).
          await sql`create table ${sql.table(name)} partition of liveness_results
            for values from (${sql.lit(day * DAY_MS)}) to (${sql.lit((day + 1) * DAY_MS)})
            with (autovacuum_vacuum_insert_threshold = -1)`.execute(db);
          made.push(day);
        } catch {
          // the default partition already holds rows of that day: they stay there
        }
      }
      return made;
    },
    /** PostgreSQL: drops the day partitions wholly before `beforeTs` and returns the rows they held. */
    async dropResultPartitionsBefore(beforeTs: number): Promise<number> {
      if (engineOf(db) !== 'postgres') return 0;
      const parts = await sql<{ name: string }>`select c.relname as name from pg_inherits i
        join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        where p.relname = 'liveness_results' and c.relname like 'liveness_results_d%'`.execute(db);
      let rows = 0;
      for (const { name } of parts.rows) {
        const day = dayOfPartition(name);
        if (day === null || (day + 1) * DAY_MS > beforeTs) continue;
        const n = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db);
        await sql`drop table ${sql.table(name)}`.execute(db);
        rows += Number(n.rows[0]?.n ?? 0);
      }
      return rows;
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
