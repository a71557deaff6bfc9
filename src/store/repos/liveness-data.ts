// Probe results, hourly/daily aggregates and the current state of each liveness configuration.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { LivenessState } from '../../domain/liveness.js';
import { fromBool, toBool } from './util.js';

export interface ResultRow {
  cfg: number;
  ts: number;
  ok: boolean;
  ms: number;
  status: number | null;
  error: string | null;
}

export interface Sums {
  total: number;
  ok: number;
  sum_ms: number;
}

export function livenessDataRepo(db: Kysely<DB>) {
  const sums = async (table: 'liveness_hourly' | 'liveness_daily', cfg: number, from: number): Promise<Sums> => {
    const r = await db
      .selectFrom(table)
      .select((e) => [e.fn.sum<number>('total').as('total'), e.fn.sum<number>('ok').as('ok'), e.fn.sum<number>('sum_ms').as('sum_ms')])
      .where('cfg', '=', cfg)
      .where('bucket', '>=', from)
      .executeTakeFirst();
    return { total: Number(r?.total ?? 0), ok: Number(r?.ok ?? 0), sum_ms: Number(r?.sum_ms ?? 0) };
  };
  return {
    /** One result: the raw row plus both aggregates (caller wraps a batch in one transaction). */
    async addResult(r: ResultRow, hour: number, day: number): Promise<void> {
      await db
        .insertInto('liveness_results')
        .values({ cfg: r.cfg, ts: r.ts, ok: fromBool(r.ok), ms: r.ms, status: r.status, error: r.error })
        .onConflict((oc) => oc.doNothing())
        .execute();
      const ok = r.ok ? 1 : 0;
      for (const [table, bucket] of [['liveness_hourly', hour], ['liveness_daily', day]] as const) {
        await db
          .insertInto(table)
          .values({ cfg: r.cfg, bucket, total: 1, ok, sum_ms: r.ms })
          .onConflict((oc) =>
            oc.columns(['cfg', 'bucket']).doUpdateSet({
              total: sql`total + 1`,
              ok: sql`ok + ${ok}`,
              sum_ms: sql`sum_ms + ${r.ms}`,
            }),
          )
          .execute();
      }
    },
    /**
     * A whole batch of results in a few multi-row statements (raw rows, then hourly and daily sums
     * pre-aggregated per bucket): the write cost per check stays a fraction of a millisecond.
     */
    async addResults(rows: ResultRow[], hourOf: (ts: number) => number, dayOf: (ts: number) => number): Promise<void> {
      if (!rows.length) return;
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insertInto('liveness_results')
          .values(rows.slice(i, i + 500).map((r) => ({ cfg: r.cfg, ts: r.ts, ok: fromBool(r.ok), ms: r.ms, status: r.status, error: r.error })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      for (const [table, bucketOf] of [['liveness_hourly', hourOf], ['liveness_daily', dayOf]] as const) {
        const sums = new Map<string, { cfg: number; bucket: number; total: number; ok: number; sum_ms: number }>();
        for (const r of rows) {
          const bucket = bucketOf(r.ts);
          const key = `${r.cfg}:${bucket}`;
          const cur = sums.get(key);
          if (cur) {
            cur.total++;
            cur.ok += r.ok ? 1 : 0;
            cur.sum_ms += r.ms;
          } else sums.set(key, { cfg: r.cfg, bucket, total: 1, ok: r.ok ? 1 : 0, sum_ms: r.ms });
        }
        const values = [...sums.values()];
        for (let i = 0; i < values.length; i += 500) {
          await db
            .insertInto(table)
            .values(values.slice(i, i + 500))
            .onConflict((oc) =>
              oc.columns(['cfg', 'bucket']).doUpdateSet({
                total: sql`total + excluded.total`,
                ok: sql`ok + excluded.ok`,
                sum_ms: sql`sum_ms + excluded.sum_ms`,
              }),
            )
            .execute();
        }
      }
    },
    /** Current states of many configurations at once. */
    async states(configIds: string[]): Promise<Map<string, LivenessState>> {
      const out = new Map<string, LivenessState>();
      for (let i = 0; i < configIds.length; i += 500) {
        const rows = await db.selectFrom('liveness_state').selectAll().where('config_id', 'in', configIds.slice(i, i + 500)).execute();
        for (const r of rows) {
          out.set(r.config_id, {
            status: r.status as LivenessState['status'],
            consecutive_failures: r.consecutive_failures,
            last_check: r.last_check,
            last_check_successful: r.last_check_successful === null ? null : toBool(r.last_check_successful),
            response_time_ms: r.response_time_ms,
            status_code: r.status_code,
            last_error: r.last_error,
            alerted_down: toBool(r.alerted_down),
          });
        }
      }
      return out;
    },
    async saveStates(list: { configId: string; state: LivenessState }[]): Promise<void> {
      for (let i = 0; i < list.length; i += 500) {
        const values = list.slice(i, i + 500).map(({ configId, state: s }) => ({
          config_id: configId, status: s.status, consecutive_failures: s.consecutive_failures, last_check: s.last_check,
          last_check_successful: s.last_check_successful === null ? null : fromBool(s.last_check_successful),
          response_time_ms: s.response_time_ms, status_code: s.status_code, last_error: s.last_error, alerted_down: fromBool(s.alerted_down),
        }));
        await db
          .insertInto('liveness_state')
          .values(values)
          .onConflict((oc) =>
            oc.column('config_id').doUpdateSet((eb) => ({
              status: eb.ref('excluded.status'),
              consecutive_failures: eb.ref('excluded.consecutive_failures'),
              last_check: eb.ref('excluded.last_check'),
              last_check_successful: eb.ref('excluded.last_check_successful'),
              response_time_ms: eb.ref('excluded.response_time_ms'),
              status_code: eb.ref('excluded.status_code'),
              last_error: eb.ref('excluded.last_error'),
              alerted_down: eb.ref('excluded.alerted_down'),
            })),
          )
          .execute();
      }
    },
    async state(configId: string): Promise<LivenessState | undefined> {
      const r = await db.selectFrom('liveness_state').selectAll().where('config_id', '=', configId).executeTakeFirst();
      if (!r) return undefined;
      return {
        status: r.status as LivenessState['status'],
        consecutive_failures: r.consecutive_failures,
        last_check: r.last_check,
        last_check_successful: r.last_check_successful === null ? null : toBool(r.last_check_successful),
        response_time_ms: r.response_time_ms,
        status_code: r.status_code,
        last_error: r.last_error,
        alerted_down: toBool(r.alerted_down),
      };
    },
    /** Last check time of every configuration (the scheduler resumes from these). */
    async lastChecks(): Promise<Map<string, string>> {
      const rows = await db.selectFrom('liveness_state').select(['config_id', 'last_check']).where('last_check', 'is not', null).execute();
      return new Map(rows.map((r) => [r.config_id, r.last_check!]));
    },
    async saveState(configId: string, s: LivenessState): Promise<void> {
      const row = {
        status: s.status, consecutive_failures: s.consecutive_failures, last_check: s.last_check,
        last_check_successful: s.last_check_successful === null ? null : fromBool(s.last_check_successful),
        response_time_ms: s.response_time_ms, status_code: s.status_code, last_error: s.last_error, alerted_down: fromBool(s.alerted_down),
      };
      await db.insertInto('liveness_state').values({ config_id: configId, ...row }).onConflict((oc) => oc.column('config_id').doUpdateSet(row)).execute();
    },
    async results(cfg: number, sinceTs: number, limit: number, offset: number): Promise<{ items: ResultRow[]; total: number }> {
      const { n } = await db
        .selectFrom('liveness_results')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('cfg', '=', cfg)
        .where('ts', '>=', sinceTs)
        .executeTakeFirstOrThrow();
      const rows = await db
        .selectFrom('liveness_results')
        .selectAll()
        .where('cfg', '=', cfg)
        .where('ts', '>=', sinceTs)
        .orderBy('ts', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return { items: rows.map((r) => ({ ...r, ok: toBool(r.ok) })), total: Number(n) };
    },
    /** Per-day aggregates from `fromDay` on, oldest first. */
    async daily(cfg: number, fromDay: number) {
      return db.selectFrom('liveness_daily').selectAll().where('cfg', '=', cfg).where('bucket', '>=', fromDay).orderBy('bucket').execute();
    },
    hourlySums: (cfg: number, fromHour: number) => sums('liveness_hourly', cfg, fromHour),
    /** Checks and successes per config since `fromHour`, for many configs at once (500 per query). */
    async hourlyTotals(cfgs: number[], fromHour: number): Promise<Map<number, { total: number; ok: number }>> {
      const out = new Map<number, { total: number; ok: number }>();
      for (let i = 0; i < cfgs.length; i += 500) {
        const rows = await db.selectFrom('liveness_hourly')
          .select((e) => ['cfg', e.fn.sum<number>('total').as('total'), e.fn.sum<number>('ok').as('ok')])
          .where('cfg', 'in', cfgs.slice(i, i + 500)).where('bucket', '>=', fromHour).groupBy('cfg').execute();
        for (const r of rows) out.set(r.cfg, { total: Number(r.total), ok: Number(r.ok) });
      }
      return out;
    },
    dailySums: (cfg: number, fromDay: number) => sums('liveness_daily', cfg, fromDay),
    /** Recent response times, newest last (dashboard sparklines). */
    async recent(cfg: number, n: number): Promise<number[]> {
      const rows = await db.selectFrom('liveness_results').select('ms').where('cfg', '=', cfg).orderBy('ts', 'desc').limit(n).execute();
      return rows.map((r) => r.ms).reverse();
    },
    /** Retention of one configuration's raw rows (a primary-key range: cheap, never a table scan). */
    async pruneResults(cfg: number, beforeTs: number): Promise<number> {
      const r = await db.deleteFrom('liveness_results').where('cfg', '=', cfg).where('ts', '<', beforeTs).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Retention of aggregates: hourly before `hour`, daily before `day`. */
    async pruneAggregates(beforeHour: number, beforeDay: number): Promise<void> {
      await db.deleteFrom('liveness_hourly').where('bucket', '<', beforeHour).execute();
      await db.deleteFrom('liveness_daily').where('bucket', '<', beforeDay).execute();
    },
    /** Every configuration's result key (retention walks them one by one). */
    async seqs(): Promise<number[]> {
      return (await db.selectFrom('liveness_configs').select('seq').orderBy('seq').execute()).map((r) => r.seq);
    },
    async countResults(cfg?: number): Promise<number> {
      let q = db.selectFrom('liveness_results').select((e) => e.fn.countAll<number>().as('n'));
      if (cfg !== undefined) q = q.where('cfg', '=', cfg);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
  };
}
