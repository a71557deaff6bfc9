// Opens the SQLite file (WAL, foreign keys, busy timeout) and applies pending migrations.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  sql,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from 'kysely';
import type { DB } from './schema.js';
import { StaticMigrationProvider, MIGRATIONS } from './migrations/index.js';
import { ChangeTracker } from './change-tracker.js';
import { restrictFile } from './permissions.js';
import { mappingStoreErrors } from './unique.js';
import type { Migration } from 'kysely';

// Transactions start with BEGIN IMMEDIATE: a deferred BEGIN that reads and then writes after another
// process (the CLI beside the daemon) committed fails with SQLITE_BUSY at once, past the busy timeout.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

export interface OpenOptions {
  /** Migrations to apply (tests pass a prefix of the list to build an old schema). */
  migrations?: Record<string, Migration>;
  readonly?: boolean;
}

export interface Connection {
  db: Kysely<DB>;
  changes: ChangeTracker;
  sqlite: Database.Database;
  file: string;
  close(): Promise<void>;
}

/** Runs `fn` again while it fails with SQLITE_BUSY, every 50 ms for at most `ms`. */
async function untilNotBusy(fn: () => void, ms: number): Promise<void> {
  const until = performance.now() + ms;
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function openConnection(file: string, opts: OpenOptions = {}): Promise<Connection> {
  // A PostgreSQL URL is never a file name (it would become a directory named `postgres:`).
  if (/^postgres(ql)?:\/\//i.test(file))
    throw new Error('a PostgreSQL URL is not a SQLite file: open it with openPgStore');
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const sqlite = new Database(file, { readonly: opts.readonly ?? false });
  // SQLite gives the -wal and -shm files the database file's mode: 0600 here makes all three private.
  if (file !== ':memory:' && !opts.readonly) restrictFile(file);
  // The busy handler first, so that every pragma below waits out a writer's lock (up to 5 s each).
  sqlite.pragma('busy_timeout = 5000');
  // The pragmas below take a lock to read the header. SQLite answers SQLITE_BUSY without waiting where
  // waiting could deadlock, and a busy process can hold the file past one busy timeout: a command or a
  // second connection opening a busy daemon's file tries again (the pragmas are safe to repeat), for 10 s.
  await untilNotBusy(() => {
    // Before anything writes the header (switching to WAL does): auto_vacuum only applies to a new file.
    if (!opts.readonly) sqlite.pragma('auto_vacuum = INCREMENTAL');
    sqlite.pragma('journal_mode = WAL');
    // NORMAL in WAL mode survives a killed process (kill -9) without losing a committed transaction.
    sqlite.pragma('synchronous = NORMAL');
    // A WAL that grew during a burst is cut back to 64 MB when it restarts after a checkpoint.
    sqlite.pragma('journal_size_limit = 67108864');
    // Statement and savepoint journals (the group commit's SAVEPOINT per unit) in memory, not temp files.
    sqlite.pragma('temp_store = MEMORY');
    sqlite.pragma('foreign_keys = ON');
  }, 10_000);
  const changes = new ChangeTracker();
  changes.attach(sqlite);
  const db = new Kysely<DB>({
    dialect: mappingStoreErrors(new ImmediateSqliteDialect({ database: cachingStatements(sqlite) })),
    plugins: [changes],
  });
  const conn: Connection = {
    db,
    changes,
    sqlite,
    file,
    async close() {
      await db.destroy();
    },
  };
  if (!opts.readonly) await migrate(conn, opts.migrations ?? MIGRATIONS);
  return conn;
}

/**
 * What Kysely's SqliteDialect needs of a database (prepare, close), with prepared statements kept
 * by SQL text: the same query shape is compiled by SQLite once, not on every request.
 */
function cachingStatements(sqlite: Database.Database): Database.Database {
  const cache = new Map<string, Database.Statement>();
  const wrapper = {
    prepare(sqlText: string): Database.Statement {
      let stmt = cache.get(sqlText);
      if (!stmt) {
        stmt = sqlite.prepare(sqlText);
        // DDL (migrations) changes the schema: never keep statements across it.
        if (/^\s*(create|alter|drop)\b/i.test(sqlText)) return stmt;
        if (cache.size >= 500) cache.clear();
        cache.set(sqlText, stmt);
      }
      return stmt;
    },
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };
  return wrapper as unknown as Database.Database;
}

async function migrate(conn: Connection, migrations: Record<string, Migration> = MIGRATIONS): Promise<string[]> {
  return migrateDb(conn.db, migrations);
}

/**
 * Migrations in the order of their names (a number first), compared by code unit. Kysely's default
 * compares with `localeCompare`, whose first call builds ICU's collator: 9 ms of every command's start.
 */
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Applies pending migrations on either engine; returns the names applied. A database that has every
 * migration is left alone after one read of `kysely_migration`: Kysely's migrator would first read the
 * columns of every table to find its own two (about 3 ms of every app and command start on SQLite, a
 * catalog walk of the server's on PostgreSQL), then take its lock to find nothing to do.
 *
 * `allowNewer`: a rolling upgrade (several nodes on one PostgreSQL database) where a newer node has
 * already applied migrations this build does not know. Migrations only add tables, columns with
 * defaults and indexes, so an older node runs on that schema as it is. A database that lacks some of
 * this build's migrations as well is refused.
 */
export async function migrateDb(
  db: Kysely<DB>,
  migrations: Record<string, Migration> = MIGRATIONS,
  opts: { allowNewer?: boolean } = {},
): Promise<string[]> {
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db).then(
    (r) => r.rows.map((x) => x.name),
    // No such table: a new database.
    () => null,
  );
  if (applied) {
    const pending = Object.keys(migrations).filter((name) => !applied.includes(name));
    const newer = applied.filter((name) => !(name in migrations));
    if (newer.length && opts.allowNewer) {
      if (pending.length)
        throw new Error(
          `the database has migrations this version does not know (${newer.join(', ')}) and lacks some it needs (${pending.join(', ')})`,
        );
      return [];
    }
    if (!pending.length && !newer.length) return [];
  }
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(migrations), nameComparator: byName });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function migrationStatus(
  conn: Pick<Connection, 'db'>,
): Promise<{ name: string; applied_at: string | null }[]> {
  const migrator = new Migrator({ db: conn.db, provider: new StaticMigrationProvider(), nameComparator: byName });
  const list = await migrator.getMigrations();
  return list.map((m) => ({ name: m.name, applied_at: m.executedAt ? m.executedAt.toISOString() : null }));
}
