// Opens a PostgreSQL database (DOMMON_DATABASE_URL) through Kysely's PostgresDialect over node-postgres,
// and applies pending migrations: the same numbered sequence as SQLite (migrations/engine.ts).
import type pg from 'pg';
import { Kysely, PostgresDialect, sql, type Migration } from 'kysely';
import type { DB } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';
import { migrateDb } from './db.js';
import { ChangeTracker } from './change-tracker.js';
import { redactUrl } from '../config/index.js';
import { mappingStoreErrors } from './unique.js';
import { preparingStatements } from './prepared.js';
import { pgDriver } from './pg-driver.js';

export interface PgOptions {
  poolSize?: number;
  /** Milliseconds a statement may run before the server cancels it (0: no limit). */
  statementTimeoutMs?: number;
  migrations?: Record<string, Migration>;
  /** Milliseconds to wait for a new connection (0: no limit, node-postgres's default). */
  connectTimeoutMs?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** Milliseconds an idle pooled connection stays open (default IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/**
 * How long an idle pooled connection stays open: five minutes, not node-postgres's ten seconds. The
 * schedulers' work comes in bursts (a claim round, a results batch) a second or two apart, so a short
 * timeout closed and reopened connections all the time, and each new one costs the server a process,
 * its catalog caches and every prepared statement planned again, all of it PostgreSQL's own CPU per check.
 */
const IDLE_TIMEOUT_MS = 300_000;

export interface PgConnection {
  engine: 'postgres';
  db: Kysely<DB>;
  pool: pg.Pool;
  /** Per-table write counters of this process (a Kysely plugin, as on SQLite). */
  changes: ChangeTracker;
  /** The URL with its password hidden (logs, output). */
  label: string;
  /** The URL as given (a second, dedicated connection: the singleton locks). */
  url: string;
  close(): Promise<void>;
}

// Values as the SQLite store gives them: int8 (counts, sums, epoch ms) and numeric (averages) as
// numbers, not strings; epoch ms and ids stay far below 2^53.
const INT8 = 20;
const NUMERIC = 1700;
const typesOf = (driver: typeof pg) => ({
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => (v === null ? null : Number(v));
    return driver.types.getTypeParser(oid, format as 'text') as (v: string) => unknown;
  },
});

export async function openPgConnection(url: string, opts: PgOptions = {}): Promise<PgConnection> {
  const driver = await pgDriver();
  const pool = new driver.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
    idleTimeoutMillis: opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    application_name: 'dommon',
    types: typesOf(driver),
  });
  // An idle client that loses its server (a restart) reports here; the pool drops it and the next query reconnects.
  pool.on('error', () => undefined);
  // A client checked out when the server goes away also reports there (node-postgres leaves that to
  // the caller); its query fails with the same error, and the pool drops it on release.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    preparingStatements(client);
  });
  const changes = new ChangeTracker();
  const db = new Kysely<DB>({ dialect: mappingStoreErrors(new PostgresDialect({ pool })), plugins: [changes] });
  const conn: PgConnection = {
    engine: 'postgres',
    db,
    pool,
    changes,
    label: redactUrl(url),
    url,
    async close() {
      await db.destroy();
    },
  };
  try {
    // An older node in a rolling upgrade runs on the newer (additive) schema: docs/scale-out.md.
    if (opts.migrate !== false) await migrateDb(db, opts.migrations ?? MIGRATIONS, { allowNewer: true });
  } catch (err) {
    await conn.close();
    throw err;
  }
  return conn;
}

/** Applied (with when), pending and unknown (applied by a newer dommon) migrations of a PostgreSQL database. */
export async function pgMigrationInfo(db: Kysely<DB>, known: readonly string[] = Object.keys(MIGRATIONS).sort()) {
  const exists = await sql<{ t: string | null }>`select to_regclass('kysely_migration')::text as t`.execute(db);
  const applied = exists.rows[0]?.t
    ? (
        await sql<{
          name: string;
          timestamp: string;
        }>`select name, timestamp from kysely_migration order by name`.execute(db)
      ).rows.map((r) => ({ name: r.name, applied_at: r.timestamp }))
    : [];
  const names = new Set(applied.map((a) => a.name));
  return {
    applied,
    pending: known.filter((n) => !names.has(n)),
    unknown: applied.map((a) => a.name).filter((n) => !known.includes(n)),
  };
}

/** Runs `select 1`: throws when the server does not answer (`dommon doctor`). */
export async function pgPing(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** The server's version: `num` as server_version_num (130000 for 13.0) and the name it gives itself. */
export async function pgServerVersion(db: Kysely<DB>): Promise<{ num: number; version: string }> {
  const r = await sql<{
    num: string;
    version: string;
  }>`select current_setting('server_version_num') as num, current_setting('server_version') as version`.execute(db);
  const row = r.rows[0]!;
  return { num: Number(row.num), version: row.version };
}
