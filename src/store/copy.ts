// `dommon db copy`: every row of one store into another (SQLite to PostgreSQL and back, or SQLite to
// SQLite). The target is checked empty, then migrated with the same numbered migrations; the tables,
// their columns, primary keys and foreign keys are read from the migrated schema (never a hand list),
// and copied parents first, each in primary-key order, in batches, all inside one transaction on the
// target (a copy that fails leaves the target migrated but empty, so it can simply be run again).
// The source is only read, inside one read-only snapshot, so a daemon writing to it meanwhile does
// not make the copy inconsistent (rows written after the snapshot are not copied).
import fs from 'node:fs';
import path from 'node:path';
import { CompiledQuery, sql, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { DB } from './schema.js';
import { openConnection } from './db.js';
import { openPgConnection } from './pg.js';
import { MIGRATIONS } from './migrations/index.js';
import { engineOf } from './migrations/engine.js';
import { retentionRepo } from './repos/retention.js';
import { redactUrl } from '../config/index.js';

export type StoreLocation = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/** Why a copy did not start: the target holds data, the source has no (current) schema, they are one store. */
export class CopyRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'not_empty' | 'no_source' | 'schema' | 'same',
  ) {
    super(message);
  }
}

/** The counts read back from the target differ from the source's. */
class CopyMismatch extends Error {
  constructor(
    readonly table: string,
    readonly source: number,
    readonly target: number,
  ) {
    super(`table ${table}: the source holds ${source} rows, the target ${target} after the copy`);
  }
}

export interface CopyReport {
  from: string;
  to: string;
  /** Rows per table, in the order they were copied (parents first). */
  tables: { table: string; rows: number }[];
  rows: number;
  ms: number;
}

interface CopyOptions {
  /** Rows per read and per insert (default 5,000; fewer for wide tables, to stay under the engines' parameter limits). */
  batchSize?: number;
  /** After each batch: rows copied so far and in all (the source's counts). */
  onProgress?: (done: number, total: number) => void;
}

/** The store's location with any password hidden (output, errors). */
const describeLocation = (l: StoreLocation): string => (l.engine === 'sqlite' ? l.file : redactUrl(l.url));

interface Opened {
  db: Kysely<DB>;
  close(): Promise<void>;
}

/** Tables the migrations bookkeeping owns: never copied, never counted as data. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);
const DAY_MS = 86_400_000;
/** Stay well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters per statement. */
const MAX_PARAMS = 30_000;

/** Opens a store: read-only to read or inspect it (no migration), migrated to write into it. */
async function open(l: StoreLocation, mode: 'read' | 'write'): Promise<Opened> {
  try {
    const conn =
      l.engine === 'sqlite'
        ? await openConnection(l.file, { readonly: mode === 'read' })
        : await openPgConnection(l.url, { poolSize: 2, migrate: mode === 'write', statementTimeoutMs: 0 });
    return { db: conn.db, close: () => conn.close() };
  } catch (err) {
    throw new Error(`${describeLocation(l)}: ${(err as Error).message}`);
  }
}

/** Every table of the store (PostgreSQL: the current schema's, partitions folded into their parent), bookkeeping left out. */
async function userTables(db: Kysely<DB>): Promise<string[]> {
  const rows =
    engineOf(db) === 'postgres'
      ? await sql<{ name: string }>`select c.relname as name from pg_class c
          where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and not c.relispartition`.execute(
          db,
        )
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite\\_%' escape '\\'`.execute(db);
  return rows.rows
    .map((r) => r.name)
    .filter((n) => !BOOKKEEPING.has(n))
    .sort();
}

async function appliedMigrations(db: Kysely<DB>): Promise<string[] | null> {
  const all =
    engineOf(db) === 'postgres'
      ? await sql<{ t: string | null }>`select to_regclass('kysely_migration')::text as t`.execute(db)
      : await sql<{ t: string }>`select name as t from sqlite_master where name = 'kysely_migration'`.execute(db);
  if (!all.rows[0]?.t) return null;
  const r = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return r.rows.map((x) => x.name);
}

/** The first table holding a row, or null. */
async function firstNonEmpty(db: Kysely<DB>, tables: string[]): Promise<string | null> {
  for (const t of tables) {
    const r = await sql<{ one: number }>`select 1 as one from ${sql.table(t)} limit 1`.execute(db);
    if (r.rows.length) return t;
  }
  return null;
}

interface TableShape {
  name: string;
  columns: string[];
  /** Columns of the primary key, in key order (every column when a table has none). */
  key: string[];
  /** Tables this one references. */
  parents: Set<string>;
}

async function shapeOf(db: Kysely<DB>, name: string): Promise<TableShape> {
  if (engineOf(db) === 'postgres') {
    const cols = await sql<{ name: string; type: string }>`select column_name as name, data_type as type
      from information_schema.columns where table_schema = current_schema() and table_name = ${name}
      order by ordinal_position`.execute(db);
    const key = await sql<{ name: string }>`select a.attname as name from pg_index i
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = ${name}::regclass and i.indisprimary
      order by array_position(i.indkey::int2[], a.attnum)`.execute(db);
    const parents = await sql<{ name: string }>`select distinct p.relname as name from pg_constraint c
      join pg_class p on p.oid = c.confrelid where c.contype = 'f' and c.conrelid = ${name}::regclass`.execute(db);
    const columns = cols.rows.map((c) => c.name);
    return {
      name,
      columns,
      key: key.rows.length ? key.rows.map((k) => k.name) : columns,
      parents: new Set(parents.rows.map((p) => p.name)),
    };
  }
  const cols = await sql<{
    name: string;
    pk: number;
  }>`select name, pk from pragma_table_info(${name}) order by cid`.execute(db);
  const parents = await sql<{
    name: string;
  }>`select distinct "table" as name from pragma_foreign_key_list(${name})`.execute(db);
  const columns = cols.rows.map((c) => c.name);
  const key = cols.rows
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  return {
    name,
    columns,
    key: key.length ? key : columns,
    parents: new Set(parents.rows.map((p) => p.name)),
  };
}

/** Parents before children (ties by name); a table referencing itself or a cycle falls back to name order. */
function parentsFirst(shapes: TableShape[]): TableShape[] {
  const left = new Map(shapes.map((s) => [s.name, s]));
  const out: TableShape[] = [];
  while (left.size) {
    const ready = [...left.values()].filter((s) => [...s.parents].every((p) => p === s.name || !left.has(p)));
    const next = ready.length ? ready : [...left.values()];
    next.sort((a, b) => (a.name < b.name ? -1 : 1));
    const first = next[0]!;
    out.push(first);
    left.delete(first.name);
  }
  return out;
}

/** Refuses a source without a dommon schema, or one whose migrations differ from this version's. */
function checkSourceSchema(where: string, applied: string[] | null): void {
  const known = Object.keys(MIGRATIONS).sort();
  if (!applied || applied.length === 0) throw new CopyRefused(`${where} holds no dommon database`, 'no_source');
  const unknown = applied.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new CopyRefused(
      `${where} was migrated by a newer dommon (unknown: ${unknown.join(', ')}): copy it with that version`,
      'schema',
    );
  const pending = known.filter((n) => !applied.includes(n));
  if (pending.length)
    throw new CopyRefused(
      `${where} has pending migrations (${pending.join(', ')}): run \`dommon migrate\` on it first`,
      'schema',
    );
}

/** One UTC day partition per day the source holds raw results of (PostgreSQL target), made before the rows go in. */
async function ensureDays(source: Kysely<DB>, target: Kysely<DB>): Promise<void> {
  if (engineOf(target) !== 'postgres') return;
  const days = await sql<{
    day: number;
  }>`select distinct ts / ${sql.lit(DAY_MS)} as day from liveness_results order by 1`.execute(source);
  const retention = retentionRepo(target);
  // A literal divisor: better-sqlite3 binds a number as a float, and ts / 86400000.0 is no day number.
  for (const { day } of days.rows) await retention.ensureResultPartitions(Number(day), Number(day));
}

/** Values as the target engine takes them: PostgreSQL refuses a NUL character in text (SQLite keeps it), so it is dropped. */
function fitter(target: Kysely<DB>): (v: unknown) => unknown {
  if (engineOf(target) !== 'postgres') return (v) => v;
  return (v) => (typeof v === 'string' && v.includes('\u0000') ? v.replaceAll('\u0000', '') : v);
}

/** Identity and serial columns continue after the copied values (PostgreSQL; SQLite's rowids follow by themselves). */
async function resetSequences(db: Kysely<DB>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  const seqs = await sql<{ tbl: string; col: string; seq: string }>`select table_name as tbl, column_name as col,
      pg_get_serial_sequence(quote_ident(table_name), column_name) as seq
    from information_schema.columns where table_schema = current_schema()
      and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(db);
  for (const s of seqs.rows)
    if (s.seq && !BOOKKEEPING.has(s.tbl))
      await sql`select setval(${s.seq}, coalesce((select max(${sql.ref(s.col)}) from ${sql.table(s.tbl)}), 0) + 1, false)`.execute(
        db,
      );
}

async function counts(db: Kysely<DB>, tables: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of tables) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(db);
    out.set(t, Number(r.rows[0]?.n ?? 0));
  }
  return out;
}

function sameStore(a: StoreLocation, b: StoreLocation): boolean {
  if (a.engine === 'sqlite' && b.engine === 'sqlite') return path.resolve(a.file) === path.resolve(b.file);
  if (a.engine === 'postgres' && b.engine === 'postgres') {
    const [x, y] = [new URL(a.url), new URL(b.url)];
    return x.host === y.host && x.pathname === y.pathname;
  }
  return false;
}

export async function copyStore(from: StoreLocation, to: StoreLocation, opts: CopyOptions = {}): Promise<CopyReport> {
  const started = Date.now();
  const [src, dst] = [describeLocation(from), describeLocation(to)];
  if (sameStore(from, to)) throw new CopyRefused(`the target ${dst} is the source`, 'same');
  if (from.engine === 'sqlite' && !fs.existsSync(from.file))
    throw new CopyRefused(`${src} holds no dommon database (no such file)`, 'no_source');

  const source = await open(from, 'read');
  try {
    checkSourceSchema(src, await appliedMigrations(source.db));

    // The target: refused when any table holds a row (looked at before migrating, so a refused target is not touched).
    if (to.engine === 'postgres' || fs.existsSync(to.file)) {
      const look = await open(to, 'read');
      try {
        const full = await firstNonEmpty(look.db, await userTables(look.db));
        if (full)
          throw new CopyRefused(
            `the target ${dst} already holds data (table ${full}): copy into an empty database`,
            'not_empty',
          );
      } finally {
        await look.close();
      }
    }
    const target = await open(to, 'write');
    try {
      // The source is at this version's migrations (checked above), so it has every dommon table; a
      // table only the target has (another application's, empty) is not dommon's to fill.
      const have = new Set(await userTables(source.db));
      const tables = (await userTables(target.db)).filter((t) => have.has(t));
      const shapes = parentsFirst(await Promise.all(tables.map((t) => shapeOf(target.db, t))));
      return await copyTables(source.db, target.db, shapes, { ...opts, src, dst, started });
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyTables(
  sourceDb: Kysely<DB>,
  target: Kysely<DB>,
  shapes: TableShape[],
  o: CopyOptions & { src: string; dst: string; started: number },
): Promise<CopyReport> {
  const names = shapes.map((s) => s.name);
  // One connection, one read-only snapshot of the source for the whole copy (and its counts).
  return sourceDb.connection().execute(async (source) => {
    await sql
      .raw(engineOf(source) === 'postgres' ? 'begin isolation level repeatable read, read only' : 'begin')
      .execute(source);
    try {
      const before = await counts(source, names);
      const total = [...before.values()].reduce((a, b) => a + b, 0);
      await ensureDays(source, target);
      let done = 0;
      o.onProgress?.(0, total);
      const copied = new Map<string, number>();
      await target.transaction().execute(async (trx) => {
        for (const shape of shapes) {
          const n = await copyTable(source, trx, shape, o.batchSize ?? 5000, (k) => {
            done += k;
            o.onProgress?.(done, total);
          }).catch((err: Error) => {
            throw new Error(`copying table ${shape.name}: ${err.message}; nothing was written to ${o.dst}`);
          });
          copied.set(shape.name, n);
        }
        await resetSequences(trx);
      });
      const after = await counts(target, names);
      for (const t of names) {
        const want = before.get(t) ?? 0;
        if (after.get(t) !== want || copied.get(t) !== want) throw new CopyMismatch(t, want, after.get(t) ?? 0);
      }
      return {
        from: o.src,
        to: o.dst,
        tables: names.map((t) => ({ table: t, rows: after.get(t) ?? 0 })),
        rows: total,
        ms: Date.now() - o.started,
      };
    } finally {
      await sql
        .raw('rollback')
        .execute(source)
        .catch(() => undefined);
    }
  });
}

/** One table, in primary-key order: read a batch, insert it, repeat. */
async function copyTable(
  source: Kysely<DB>,
  target: Kysely<DB>,
  shape: TableShape,
  batchSize: number,
  progress: (rows: number) => void,
): Promise<number> {
  const limit = Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMS / shape.columns.length)));
  const fit = fitter(target);
  const pg = engineOf(target) === 'postgres';
  // The statement's text is written here, not built through Kysely's query tree: for millions of
  // values, building and compiling that tree took most of the copy's CPU.
  const ident = (id: string) => `"${id.replaceAll('"', '""')}"`;
  const head = `insert into ${ident(shape.name)} (${shape.columns.map(ident).join(', ')}) values `;
  const width = shape.columns.length;
  const texts = new Map<number, string>();
  const text = (rows: number) => {
    let t = texts.get(rows);
    if (!t) {
      const tuple = (r: number) => `(${shape.columns.map((_, j) => (pg ? `$${r * width + j + 1}` : '?')).join(', ')})`;
      t = head + Array.from({ length: rows }, (_, r) => tuple(r)).join(', ');
      texts.set(rows, t);
    }
    return t;
  };
  let n = 0;
  for await (const rows of batches(source, shape, limit)) {
    const params = rows.flatMap((row) => shape.columns.map((c) => fit(row[c])));
    await target.executeQuery(CompiledQuery.raw(text(rows.length), params));
    n += rows.length;
    progress(rows.length);
  }
  return n;
}

type Row = Record<string, unknown>;

/**
 * A table's rows in primary-key order, `limit` at a time. PostgreSQL: a cursor in the snapshot's
 * transaction (the query is planned once; planning a keyset query over every day partition of
 * liveness_results took ~25 ms, more than reading its rows). SQLite: keyset pages, each a
 * primary-key range read after the last key seen.
 */
async function* batches(source: Kysely<DB>, shape: TableShape, limit: number): AsyncGenerator<Row[]> {
  const cols = sql.join(shape.columns.map((c) => sql.ref(c)));
  const order = sql.join(shape.key.map((c) => sql.ref(c)));
  if (engineOf(source) === 'postgres') {
    await sql`declare dommon_copy no scroll cursor for select ${cols} from ${sql.table(shape.name)} order by ${order}`.execute(
      source,
    );
    try {
      for (;;) {
        const r = await sql<Row>`fetch forward ${sql.lit(limit)} from dommon_copy`.execute(source);
        if (r.rows.length) yield r.rows;
        if (r.rows.length < limit) return;
      }
    } finally {
      await sql`close dommon_copy`.execute(source);
    }
  }
  let last: unknown[] | null = null;
  for (;;) {
    const after: RawBuilder<unknown> = last ? sql`where (${order}) > (${sql.join(last)})` : sql``;
    const r: QueryResult<Row> = await sql<Row>`select ${cols} from ${sql.table(shape.name)} ${after}
      order by ${order} limit ${limit}`.execute(source);
    if (r.rows.length) yield r.rows;
    if (r.rows.length < limit) return;
    const end: Row = r.rows[r.rows.length - 1]!;
    last = shape.key.map((c) => end[c]);
  }
}
