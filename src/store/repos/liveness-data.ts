// Probe results, hourly/daily aggregates and the current state of each liveness configuration.
import type { Sums } from '../../domain/liveness.js';
import type Database from 'better-sqlite3';
import type { ChangeTracker } from '../change-tracker.js';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type {
  DB,
  LivenessAggregateTable,
  LivenessRegionDailyTable,
  LivenessRegionStateTable,
  LivenessStateTable,
} from '../schema.js';
import {
  DAY_MS,
  DEFAULT_REGION,
  HOUR_MS,
  dayOf,
  hourOf,
  type LivenessState,
  type ResultDetail,
} from '../../domain/liveness.js';
import { fromBool, parseJson, toBool } from './util.js';
import { PREPARED } from '../prepared.js';

interface ResultRow {
  cfg: number;
  ts: number;
  ok: boolean;
  ms: number;
  status: number | null;
  error: string | null;
  /** The checking node's region. */
  region: string;
  /** The check type's own numbers (an icmp check's loss and round trips); null or absent: none. */
  detail?: ResultDetail | null;
}

/** A result as it is written: with its region, and whether its config has regions (per-region sums). */
interface ResultWrite extends ResultRow {
  regional?: boolean;
}

/** Regions as stored in results: `default` (most results, every one before migration 015) as null. */
const encodeRegion = (region: string): string | null => (region === DEFAULT_REGION ? null : region);
const decodeRegion = (stored: string | null): string => stored ?? DEFAULT_REGION;
/** A result's detail as stored: JSON, or null (most results carry none). */
const encodeDetail = (d: ResultDetail | null | undefined): string | null => (d ? JSON.stringify(d) : null);

export type StateRow = Selectable<LivenessStateTable>;

export function toState(r: StateRow): LivenessState {
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
}

function toRegionState(r: Selectable<LivenessRegionStateTable>): LivenessState {
  return toState({ ...r, alerted_down: 0 });
}

const REGION_DAILY_UPSERT = `insert into liveness_region_daily (cfg, region, bucket, total, ok, sum_ms) values (?, ?, ?, ?, ?, ?)
  on conflict (cfg, region, bucket) do update set total = total + excluded.total, ok = ok + excluded.ok, sum_ms = sum_ms + excluded.sum_ms`;

const bucketUpsert = (table: string) => `insert into ${table} (cfg, bucket, total, ok, sum_ms) values (?, ?, ?, ?, ?)
  on conflict (cfg, bucket) do update set total = total + excluded.total, ok = ok + excluded.ok, sum_ms = sum_ms + excluded.sum_ms`;

/**
 * The probe results' write path, per engine. SQLite: prepared better-sqlite3 statements (prepared once
 * per store, on first use): thousands of checks a minute cost one statement run per row, not a Kysely
 * query build and compile per batch; they run on the store's one connection, so inside the caller's
 * transaction, and the change tracker is told which tables they wrote. PostgreSQL: one multi-row
 * statement per table and batch on the repository's executor (the caller's transaction).
 */
export interface LivenessHotPath {
  /** Which of the ids are still configurations (a batch of results skips those deleted while probing). */
  existing(ids: readonly string[]): Promise<Set<string>>;
  state(id: string): Promise<StateRow | undefined>;
  /** The state rows of many configurations (a write batch's). */
  states(ids: readonly string[]): Promise<StateRow[]>;
  /**
   * Raw rows, their sums added to the hourly and daily buckets (UTC hours and days of their times; and
   * per region), and the configurations' new states.
   */
  write(sums: BatchWrite): Promise<void>;
  saveStates(list: { configId: string; state: LivenessState }[]): Promise<void>;
  /**
   * Locks these configs' combined states until the transaction ends (PostgreSQL; rows made first),
   * so that two regions' nodes recording one config at once combine each other's views, not miss
   * them. SQLite has one writer: nothing to do.
   */
  lockStates(ids: readonly string[]): Promise<void>;
}

/** What one batch of results writes. */
interface BatchWrite {
  rows: ResultRow[];
  regionDaily: BucketSum[];
  states: StateWrite[];
}

/** A config's new state; `exists`: its row was read in this transaction (PostgreSQL updates it in place). */
type StateWrite = { configId: string; state: LivenessState; exists?: boolean };

interface BucketSum extends Sums {
  cfg: number;
  bucket: number;
  /** Per-region sums only: the region's name. */
  region?: string | null;
}

const stateParams = (configId: string, s: LivenessState) =>
  [
    configId,
    s.status,
    s.consecutive_failures,
    s.last_check,
    s.last_check_successful === null ? null : fromBool(s.last_check_successful),
    s.response_time_ms,
    s.status_code,
    s.last_error,
    fromBool(s.alerted_down),
  ] as const;

/** A state row's columns, in stateParams' order. */
const STATE_COLUMN_NAMES = [
  'config_id',
  'status',
  'consecutive_failures',
  'last_check',
  'last_check_successful',
  'response_time_ms',
  'status_code',
  'last_error',
  'alerted_down',
] as const;
export const STATE_COLUMNS = STATE_COLUMN_NAMES.join(', ');
/** The state columns of the row named `alias` (`s.config_id, s.status, ...`). */
export const stateColumnsOf = (alias: string) => STATE_COLUMN_NAMES.map((c) => `${alias}.${c}`).join(', ');

const SAVE_STATE_UPDATE = `on conflict (config_id) do update set status = excluded.status, consecutive_failures = excluded.consecutive_failures,
        last_check = excluded.last_check, last_check_successful = excluded.last_check_successful,
        response_time_ms = excluded.response_time_ms, status_code = excluded.status_code, last_error = excluded.last_error,
        alerted_down = excluded.alerted_down`;

export function livenessStatements(
  sqlite: Database.Database,
  changes: Pick<ChangeTracker, 'prepareWrite'>,
): LivenessHotPath {
  const prepare = () => ({
    configExists: sqlite.prepare('select 1 from liveness_configs where id = ?').pluck(),
    state: sqlite.prepare('select * from liveness_state where config_id = ?'),
    // Writes through the change tracker: each run marks the table its SQL writes.
    insertResult: changes.prepareWrite(
      sqlite,
      'insert into liveness_results (cfg, ts, ok, ms, status, error, region, detail) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing',
    ),
    addHourly: changes.prepareWrite(sqlite, bucketUpsert('liveness_hourly')),
    addDaily: changes.prepareWrite(sqlite, bucketUpsert('liveness_daily')),
    addRegionDaily: changes.prepareWrite(sqlite, REGION_DAILY_UPSERT),
    saveState: changes.prepareWrite(
      sqlite,
      `insert into liveness_state (${STATE_COLUMNS})
      values (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ${SAVE_STATE_UPDATE}`,
    ),
  });
  let statements: ReturnType<typeof prepare> | undefined;
  const get = () => (statements ??= prepare());
  return {
    async existing(ids) {
      const { configExists } = get();
      return new Set(ids.filter((id) => configExists.get(id) !== undefined));
    },
    async state(id) {
      return get().state.get(id) as StateRow | undefined;
    },
    async states(ids) {
      const { state } = get();
      const out: StateRow[] = [];
      for (const id of ids) {
        const r = state.get(id) as StateRow | undefined;
        if (r) out.push(r);
      }
      return out;
    },
    async write({ rows, regionDaily, states }) {
      const { insertResult, addHourly, addDaily, addRegionDaily, saveState } = get();
      for (const r of rows)
        insertResult.run(
          r.cfg,
          r.ts,
          fromBool(r.ok),
          r.ms,
          r.status,
          r.error,
          encodeRegion(r.region),
          encodeDetail(r.detail),
        );
      // Pre-aggregated per (cfg, bucket): a batch usually holds one run per config, sometimes more.
      for (const b of bucketSums(rows, hourOf)) addHourly.run(b.cfg, b.bucket, b.total, b.ok, b.sum_ms);
      for (const b of bucketSums(rows, dayOf)) addDaily.run(b.cfg, b.bucket, b.total, b.ok, b.sum_ms);
      for (const b of regionDaily) addRegionDaily.run(b.cfg, b.region ?? '', b.bucket, b.total, b.ok, b.sum_ms);
      for (const { configId, state } of states) saveState.run(...stateParams(configId, state));
    },
    async lockStates() {},
    async saveStates(list) {
      const { saveState } = get();
      for (const { configId, state } of list) saveState.run(...stateParams(configId, state));
    },
  };
}

/**
 * The same write path on PostgreSQL through the repository's executor (the caller's transaction):
 * one statement per table and batch whose rows travel as one array per column (`unnest`), so the
 * statement's text is the same whatever the batch's size: no query building per row, no statement
 * of thousands of parameters to parse.
 */
export function livenessStatementsVia(db: Kysely<DB>): LivenessHotPath {
  /**
   * The raw rows as one array per column, read once (a CTE) by their insert and by both sums: each
   * value crosses the wire and is parsed once, and the sums are grouped by the server.
   */
  const rawPart = (rows: ResultRow[]) =>
    sql`select * from unnest(${rows.map((r) => r.cfg)}::integer[], ${rows.map((r) => r.ts)}::bigint[],
        ${rows.map((r) => fromBool(r.ok))}::integer[], ${rows.map((r) => r.ms)}::integer[],
        ${rows.map((r) => r.status)}::integer[], ${rows.map((r) => r.error)}::text[],
        ${rows.map((r) => encodeRegion(r.region))}::text[], ${rows.map((r) => encodeDetail(r.detail))}::text[])
        as x(cfg, ts, ok, ms, status, error, region, detail)`;
  const resultsPart = sql`insert into liveness_results (cfg, ts, ok, ms, status, error, region, detail)
      select * from raw on conflict do nothing`;
  /** A table's sums per (cfg, bucket) of the raw rows: the bucket is the UTC hour or day (domain/liveness.ts hourOf, dayOf). */
  const bucketsPart = (table: 'liveness_hourly' | 'liveness_daily', ms: number) =>
    sql`insert into ${sql.table(table)} (cfg, bucket, total, ok, sum_ms)
      select cfg, (ts / ${sql.lit(ms)})::integer, count(*), sum(ok), sum(ms) from raw group by 1, 2
      on conflict (cfg, bucket) do update set total = ${sql.table(table)}.total + excluded.total,
        ok = ${sql.table(table)}.ok + excluded.ok, sum_ms = ${sql.table(table)}.sum_ms + excluded.sum_ms`;
  const regionDailyPart = (list: BucketSum[]) =>
    sql`insert into liveness_region_daily (cfg, region, bucket, total, ok, sum_ms)
      select * from unnest(${list.map((b) => b.cfg)}::integer[], ${list.map((b) => b.region ?? '')}::text[],
        ${list.map((b) => b.bucket)}::integer[], ${list.map((b) => b.total)}::integer[],
        ${list.map((b) => b.ok)}::integer[], ${list.map((b) => b.sum_ms)}::bigint[])
      on conflict (cfg, region, bucket) do update set total = liveness_region_daily.total + excluded.total,
        ok = liveness_region_daily.ok + excluded.ok, sum_ms = liveness_region_daily.sum_ms + excluded.sum_ms`;
  /**
   * States as an unnest() of one array per column (STATE_COLUMNS' order), one row per config: a batch
   * may carry two states of one config, the last one wins.
   */
  const stateArrays = (list: StateWrite[]) => {
    const last = [...new Map(list.map((x) => [x.configId, x.state]))].map(([id, s]) => stateParams(id, s));
    const col = <I extends number>(i: I) => last.map((p) => p[i]);
    return sql`unnest(${col(0)}::text[], ${col(1)}::text[], ${col(2)}::integer[], ${col(3)}::text[],
      ${col(4)}::integer[], ${col(5)}::integer[], ${col(6)}::integer[], ${col(7)}::text[], ${col(8)}::integer[])`;
  };
  /**
   * States whose rows exist (read in this transaction) as a plain update: no insert attempt, no
   * conflict check and no row lock before it, only the update in place.
   */
  const stateUpdatePart = (list: StateWrite[]) =>
    sql`update liveness_state s set status = u.status, consecutive_failures = u.consecutive_failures,
        last_check = u.last_check, last_check_successful = u.last_check_successful,
        response_time_ms = u.response_time_ms, status_code = u.status_code, last_error = u.last_error,
        alerted_down = u.alerted_down
      from ${stateArrays(list)} as u(${sql.raw(STATE_COLUMNS)})
      where s.config_id = u.config_id`;
  const statesPart = (list: StateWrite[]) =>
    sql`insert into liveness_state (${sql.raw(STATE_COLUMNS)})
      select * from ${stateArrays(list)}
      ${sql.raw(SAVE_STATE_UPDATE)}`;
  /**
   * Several writes as one statement (one round trip): all but the last as data-modifying parts of a
   * WITH (each writes a different table, or other rows of it: none needs to see another's rows),
   * after the batch's raw rows (`raw`, which they read) when it has some.
   */
  const runAll = async (parts: RawBuilder<unknown>[], raw?: RawBuilder<unknown>) => {
    if (!parts.length) return;
    const last = parts[parts.length - 1]!;
    const lead = [
      ...(raw ? [sql`raw as (${raw})`] : []),
      ...parts.slice(0, -1).map((p, i) => sql`${sql.raw(`w${i}`)} as (${p})`),
    ];
    await (lead.length ? sql`with ${sql.join(lead)} ${last} ${PREPARED}` : sql`${last} ${PREPARED}`).execute(db);
  };
  return {
    // One statement per batch, its ids one array parameter: the same statement text whatever the batch's size.
    async existing(ids) {
      const out = new Set<string>();
      if (!ids.length) return out;
      const rows = await db
        .selectFrom('liveness_configs')
        .select('id')
        .where(sql<boolean>`id = any(${[...ids]})`)
        .execute();
      for (const r of rows) out.add(r.id);
      return out;
    },
    async state(id) {
      return db.selectFrom('liveness_state').selectAll().where('config_id', '=', id).executeTakeFirst();
    },
    async states(ids) {
      if (!ids.length) return [];
      const r = await sql<StateRow>`select ${sql.raw(STATE_COLUMNS)} from liveness_state
        where config_id = any(${[...ids]}::text[]) ${PREPARED}`.execute(db);
      return r.rows;
    },
    // A batch's raw rows, sums and states: one statement (the text changes only with which parts it has).
    async write({ rows, regionDaily, states }) {
      // Rows read in this transaction are updated; others inserted (or, made meanwhile by another node, upserted).
      const known = states.filter((x) => x.exists);
      const fresh = states.filter((x) => !x.exists);
      await runAll(
        [
          ...(rows.length
            ? [resultsPart, bucketsPart('liveness_hourly', HOUR_MS), bucketsPart('liveness_daily', DAY_MS)]
            : []),
          ...(regionDaily.length ? [regionDailyPart(regionDaily)] : []),
          ...(known.length ? [stateUpdatePart(known)] : []),
          ...(fresh.length ? [statesPart(fresh)] : []),
        ],
        rows.length ? rawPart(rows) : undefined,
      );
    },
    async lockStates(ids) {
      if (!ids.length) return;
      const sorted = [...ids].sort();
      await sql`insert into liveness_state (config_id) select unnest(${sorted}::text[]) on conflict do nothing ${PREPARED}`.execute(
        db,
      );
      await sql`select config_id from liveness_state where config_id = any(${sorted}::text[])
        order by config_id for update ${PREPARED}`.execute(db);
    },
    async saveStates(list) {
      if (list.length) await sql`${statesPart(list)} ${PREPARED}`.execute(db);
    },
  };
}

/**
 * Pre-aggregates a batch per (config, bucket), or per (config, region, bucket): a batch usually holds
 * one run per config, sometimes more.
 */
function bucketSums(rows: ResultRow[], bucketOf: (ts: number) => number, byRegion = false): BucketSum[] {
  const sums = new Map<string, BucketSum>();
  for (const r of rows) {
    const bucket = bucketOf(r.ts);
    const key = byRegion ? `${r.cfg}:${r.region}:${bucket}` : `${r.cfg}:${bucket}`;
    const cur = sums.get(key);
    if (cur) {
      cur.total++;
      cur.ok += r.ok ? 1 : 0;
      cur.sum_ms += r.ms;
    } else
      sums.set(key, {
        cfg: r.cfg,
        bucket,
        total: 1,
        ok: r.ok ? 1 : 0,
        sum_ms: r.ms,
        ...(byRegion ? { region: r.region } : {}),
      });
  }
  return [...sums.values()];
}

async function writeResults(hot: LivenessHotPath, rows: ResultWrite[], states: StateWrite[] = []): Promise<void> {
  if (!rows.length && !states.length) return;
  const regional = rows.filter((r) => r.regional);
  await hot.write({
    rows,
    regionDaily: regional.length ? bucketSums(regional, dayOf, true) : [],
    states,
  });
}

const NO_SUMS: Sums = { total: 0, ok: 0, sum_ms: 0 };
/** Ids per `in (...)` list: far below SQLite's 32,766 parameters. */
const CHUNK = 500;

export function livenessDataRepo(db: Kysely<DB>, hot: LivenessHotPath) {
  /** Sums of each configuration's buckets from `from` on, one grouped query per 500 configurations (none summed: zeros). */
  const sums = async (
    table: 'liveness_hourly' | 'liveness_daily',
    cfgs: readonly number[],
    from: number,
  ): Promise<(cfg: number) => Sums> => {
    const out = new Map<number, Sums>();
    for (let i = 0; i < cfgs.length; i += CHUNK) {
      const rows = await db
        .selectFrom(table)
        .select((e) => [
          'cfg',
          e.fn.sum<number>('total').as('total'),
          e.fn.sum<number>('ok').as('ok'),
          e.fn.sum<number>('sum_ms').as('sum_ms'),
        ])
        .where('cfg', 'in', cfgs.slice(i, i + CHUNK))
        .where('bucket', '>=', from)
        .groupBy('cfg')
        .execute();
      for (const r of rows) out.set(r.cfg, { total: Number(r.total), ok: Number(r.ok), sum_ms: Number(r.sum_ms) });
    }
    return (cfg) => out.get(cfg) ?? NO_SUMS;
  };
  const buckets = (table: 'liveness_hourly' | 'liveness_daily', cfg: number, from: number) =>
    db.selectFrom(table).selectAll().where('cfg', '=', cfg).where('bucket', '>=', from).orderBy('bucket').execute();
  return {
    /** One result: the raw row plus both aggregates (caller wraps a batch in one transaction). */
    async addResult(r: ResultWrite): Promise<void> {
      await writeResults(hot, [r]);
    },
    /**
     * A whole batch of results, and the configurations' new states: SQLite runs one prepared statement
     * per raw row, per hourly and daily bucket (pre-aggregated) and per state; PostgreSQL writes them
     * all in one statement. No query building and no statement compiling per check.
     */
    async addResults(rows: ResultWrite[], states: StateWrite[] = []): Promise<void> {
      await writeResults(hot, rows, states);
    },
    /** Which of `configIds` still exist (a batch of results skips configs deleted while probing). */
    async existing(configIds: string[]): Promise<Set<string>> {
      return hot.existing(configIds);
    },
    /**
     * The liveness input of domain health in one query: per enabled configuration on an enabled
     * endpoint (of one domain, of several (at most 500), or of every domain), its domain, status and
     * hourly sums since `fromHour`.
     */
    async healthInputs(
      fromHour: number,
      domainIds?: string | readonly string[],
    ): Promise<{ domain_id: string; status: string | null; total: number; ok: number }[]> {
      let q = db
        .selectFrom('liveness_configs as c')
        .innerJoin('endpoints as e', 'e.id', 'c.endpoint_id')
        .leftJoin('liveness_state as s', 's.config_id', 'c.id')
        .leftJoin('liveness_hourly as h', (j) => j.onRef('h.cfg', '=', 'c.seq').on('h.bucket', '>=', fromHour))
        .select((x) => [
          'e.domain_id',
          's.status',
          x.fn.sum<number>('h.total').as('total'),
          x.fn.sum<number>('h.ok').as('ok'),
        ])
        .where('c.is_enabled', '=', 1)
        .where('e.is_enabled', '=', 1);
      if (typeof domainIds === 'string') q = q.where('e.domain_id', '=', domainIds);
      else if (domainIds) q = q.where('e.domain_id', 'in', domainIds.length ? domainIds : ['']);
      // Every selected column grouped (PostgreSQL requires it; one row per configuration either way).
      const rows = await q.groupBy(['c.seq', 'e.domain_id', 's.status']).execute();
      return rows.map((r) => ({
        domain_id: r.domain_id,
        status: r.status,
        total: Number(r.total ?? 0),
        ok: Number(r.ok ?? 0),
      }));
    },
    /** Current states of many configurations at once. */
    async states(configIds: string[]): Promise<Map<string, LivenessState>> {
      return new Map((await hot.states(configIds)).map((r) => [r.config_id, toState(r)]));
    },
    /** Current states of many configurations for a read view: one query per 500 (the write path's states() runs its prepared statement per id). */
    async statesIn(configIds: readonly string[]): Promise<Map<string, LivenessState>> {
      const out = new Map<string, LivenessState>();
      for (let i = 0; i < configIds.length; i += CHUNK) {
        const rows = await db
          .selectFrom('liveness_state')
          .selectAll()
          .where('config_id', 'in', configIds.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) out.set(r.config_id, toState(r));
      }
      return out;
    },
    async saveStates(list: { configId: string; state: LivenessState }[]): Promise<void> {
      if (list.length) await hot.saveStates(list);
    },
    async state(configId: string): Promise<LivenessState | undefined> {
      const r = await hot.state(configId);
      return r && toState(r);
    },
    /** Last check time of every configuration (the scheduler resumes from these). */
    /** When each of these configs was last checked (those never checked are absent). */
    async lastChecks(configIds: readonly string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (let i = 0; i < configIds.length; i += 500) {
        const rows = await db
          .selectFrom('liveness_state')
          .select(['config_id', 'last_check'])
          .where('config_id', 'in', configIds.slice(i, i + 500))
          .where('last_check', 'is not', null)
          .execute();
        for (const r of rows) out.set(r.config_id, r.last_check!);
      }
      return out;
    },
    async saveState(configId: string, s: LivenessState): Promise<void> {
      await hot.saveStates([{ configId, state: s }]);
    },
    /** A config's results since `sinceTs`, newest first; `region`: only those checked from there. */
    async results(
      cfg: number,
      sinceTs: number,
      limit: number,
      offset: number,
      region?: string,
    ): Promise<{ items: ResultRow[]; total: number }> {
      const base = () => {
        const q = db.selectFrom('liveness_results').where('cfg', '=', cfg).where('ts', '>=', sinceTs);
        if (region === undefined) return q;
        const stored = encodeRegion(region);
        return stored === null ? q.where('region', 'is', null) : q.where('region', '=', stored);
      };
      const { n } = await base()
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const rows = await base().selectAll().orderBy('ts', 'desc').limit(limit).offset(offset).execute();
      return {
        items: rows.map((r) => ({
          ...r,
          ok: toBool(r.ok),
          region: decodeRegion(r.region),
          detail: r.detail === null ? null : parseJson<ResultDetail | null>(r.detail, null),
        })),
        total: Number(n),
      };
    },
    /**
     * Daily sums from `fromDay` on, oldest first, and (`withRegions`: configs with regions) the
     * per-region ones by region then day: one statement, so one snapshot (a batch written between two
     * reads would make the regions add up to more than the total).
     */
    async dailyWithRegions(
      cfg: number,
      fromDay: number,
      withRegions: boolean,
    ): Promise<{
      daily: Selectable<LivenessAggregateTable>[];
      regions: (Sums & { region: string; bucket: number })[];
    }> {
      const rows = (
        await sql<Selectable<LivenessRegionDailyTable> & { region: string | null }>`select cfg, null as region, bucket,
            total, ok, sum_ms from liveness_daily where cfg = ${cfg} and bucket >= ${fromDay}
          ${
            withRegions
              ? sql`union all select cfg, region, bucket, total, ok, sum_ms from liveness_region_daily
            where cfg = ${cfg} and bucket >= ${fromDay}`
              : sql``
          }
          order by region, bucket`.execute(db)
      ).rows;
      const sums = (r: (typeof rows)[number]) => ({ total: r.total, ok: r.ok, sum_ms: Number(r.sum_ms) });
      return {
        daily: rows.filter((r) => r.region === null).map((r) => ({ cfg: r.cfg, bucket: r.bucket, ...sums(r) })),
        regions: rows.flatMap((r) => (r.region === null ? [] : [{ region: r.region, bucket: r.bucket, ...sums(r) }])),
      };
    },
    /** Each region's own state of these configs (configs with regions). */
    async regionStates(configIds: readonly string[]): Promise<Map<string, Map<string, LivenessState>>> {
      const out = new Map<string, Map<string, LivenessState>>();
      for (let i = 0; i < configIds.length; i += CHUNK) {
        const rows = await db
          .selectFrom('liveness_region_state')
          .selectAll()
          .where('config_id', 'in', configIds.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) {
          let views = out.get(r.config_id);
          if (!views) out.set(r.config_id, (views = new Map<string, LivenessState>()));
          views.set(r.region, toRegionState(r));
        }
      }
      return out;
    },
    /** Each region's new view, one multi-row upsert per 500 (the batch holds each (config, region) once). */
    async saveRegionStates(list: { configId: string; region: string; state: LivenessState }[]): Promise<void> {
      const rows = list.map(({ configId, region, state: s }) => ({
        config_id: configId,
        region,
        status: s.status,
        consecutive_failures: s.consecutive_failures,
        last_check: s.last_check,
        last_check_successful: s.last_check_successful === null ? null : fromBool(s.last_check_successful),
        response_time_ms: s.response_time_ms,
        status_code: s.status_code,
        last_error: s.last_error,
      }));
      for (let i = 0; i < rows.length; i += CHUNK)
        await db
          .insertInto('liveness_region_state')
          .values(rows.slice(i, i + CHUNK))
          .onConflict((oc) =>
            oc.columns(['config_id', 'region']).doUpdateSet((eb) => ({
              status: eb.ref('excluded.status'),
              consecutive_failures: eb.ref('excluded.consecutive_failures'),
              last_check: eb.ref('excluded.last_check'),
              last_check_successful: eb.ref('excluded.last_check_successful'),
              response_time_ms: eb.ref('excluded.response_time_ms'),
              status_code: eb.ref('excluded.status_code'),
              last_error: eb.ref('excluded.last_error'),
            })),
          )
          .execute();
    },
    /** Locks the combined states of these configs for the transaction (PostgreSQL; see LivenessHotPath). */
    lockStates: (ids: readonly string[]) => hot.lockStates(ids),
    /** Per-hour aggregates from `fromHour` on, oldest first. */
    hourly: (cfg: number, fromHour: number) => buckets('liveness_hourly', cfg, fromHour),
    hourlySums: (cfgs: readonly number[], fromHour: number) => sums('liveness_hourly', cfgs, fromHour),
    dailySums: (cfgs: readonly number[], fromDay: number) => sums('liveness_daily', cfgs, fromDay),
    /**
     * Sums of a config's raw results whose time lies in one of `spans` ([start, end) epoch ms, sorted,
     * not overlapping): what an uptime leaving maintenance windows out subtracts from the aggregates.
     */
    async rawSumsIn(cfg: number, spans: readonly { start: number; end: number }[]): Promise<Sums> {
      const out = { total: 0, ok: 0, sum_ms: 0 };
      for (let i = 0; i < spans.length; i += 100) {
        const part = spans.slice(i, i + 100);
        const r = await db
          .selectFrom('liveness_results')
          .select((e) => [
            e.fn.countAll<number>().as('total'),
            e.fn.sum<number>('ok').as('ok'),
            e.fn.sum<number>('ms').as('sum_ms'),
          ])
          .where('cfg', '=', cfg)
          .where('ts', '>=', part[0]!.start)
          .where('ts', '<', part.at(-1)!.end)
          .where((w) => w.or(part.map((p) => w.and([w('ts', '>=', p.start), w('ts', '<', p.end)]))))
          .executeTakeFirstOrThrow();
        out.total += Number(r.total ?? 0);
        out.ok += Number(r.ok ?? 0);
        out.sum_ms += Number(r.sum_ms ?? 0);
      }
      return out;
    },
    /** Recent response times, newest last (dashboard sparklines). */
    async recent(cfg: number, n: number): Promise<number[]> {
      const rows = await db
        .selectFrom('liveness_results')
        .select('ms')
        .where('cfg', '=', cfg)
        .orderBy('ts', 'desc')
        .limit(n)
        .execute();
      return rows.map((r) => r.ms).reverse();
    },
    async countResults(cfg?: number): Promise<number> {
      let q = db.selectFrom('liveness_results').select((e) => e.fn.countAll<number>().as('n'));
      if (cfg !== undefined) q = q.where('cfg', '=', cfg);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
  };
}
