// Keeping one installation healthy, for the command line: `dommon backup`, `restore` and `migrate`
// on the configured database, and the data directory a daemon claims before it starts. The store
// does the work (store/maintenance.ts on the SQLite file, store/pg.ts on PostgreSQL, store/lock.ts
// for the directory's lock); the CLI prints what these return and never opens the store itself.
import type { Config } from '../config/index.js';
import { acquireLock, LockedError, lockHolder } from '../store/lock.js';
import {
  backupDatabase,
  enableIncrementalVacuum,
  inspectDatabase,
  MaintenanceError,
  migrateFile,
  restoreDatabase,
  writableDirProblem,
  type DatabaseInfo,
} from '../store/maintenance.js';
import { MIGRATIONS } from '../store/migrations/index.js';

/** A failure with the contract's exit code carried as an HTTP-like status (409 -> 4, 404 -> 3, 400 -> 2). */
export class OpsError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const fromMaintenance = (err: unknown): never => {
  if (err instanceof MaintenanceError) throw new OpsError(err.message, err.status);
  throw err;
};

/** Applied (with when), pending and unknown (applied by a newer dommon) migrations, on either engine. */
export type MigrationState = Pick<DatabaseInfo, 'applied' | 'pending' | 'unknown'>;

/** `dommon backup` on the SQLite file: a consistent copy (online backup), checked, with its schema and counts. */
export async function backupSqlite(config: Readonly<Config>, file: string, overwrite: boolean | undefined) {
  const info = await backupDatabase(config.dbPath, file, { overwrite }).catch(fromMaintenance);
  return {
    file: info.file,
    bytes: info.bytes,
    integrity: info.integrity.join(),
    schema: info.applied.at(-1)?.name ?? null,
    counts: info.counts,
  };
}

/** `dommon restore`: replaces the SQLite file with `file`, refused (409) while a daemon serves the data directory. */
export async function restoreSqlite(config: Readonly<Config>, file: string) {
  const dir = config.dataDir;
  const holder = lockHolder(dir);
  if (holder) throw new OpsError(`a dommon daemon (pid ${holder}) is serving ${dir}: stop it before restoring`, 409);
  let release: () => void;
  try {
    // Held for the whole replacement, so a daemon cannot start on a half-restored directory.
    release = acquireLock(dir);
  } catch (err) {
    if (err instanceof LockedError)
      throw new OpsError(`a dommon daemon (pid ${err.pid}) is serving ${dir}: stop it before restoring`, 409);
    throw err;
  }
  try {
    const r = await restoreDatabase(file, config.dbPath).catch(fromMaintenance);
    return {
      file,
      database: config.dbPath,
      previous: r.previous,
      migrated: r.migrated,
      schema: r.restored.applied.at(-1)?.name ?? null,
      counts: r.restored.counts,
    };
  } finally {
    release();
  }
}

/**
 * `dommon migrate` on the SQLite file: applies pending migrations (unless `statusOnly`) and reads the
 * state; `vacuumEnabled` when a file made before incremental auto-vacuum was converted.
 */
export async function migrateSqlite(
  config: Readonly<Config>,
  statusOnly: boolean,
): Promise<{ info: MigrationState; vacuumEnabled: boolean }> {
  const file = config.dbPath;
  let vacuumEnabled = false;
  if (!statusOnly) {
    await migrateFile(file);
    // Files made before incremental auto-vacuum was on cannot shrink; converting needs a full VACUUM.
    if (!lockHolder(config.dataDir)) vacuumEnabled = enableIncrementalVacuum(file);
  }
  let info: MigrationState;
  try {
    info = inspectDatabase(file, { quick: true });
  } catch (err) {
    if (err instanceof MaintenanceError && err.status === 404) {
      info = { applied: [], pending: Object.keys(MIGRATIONS).sort(), unknown: [] };
    } else throw err;
  }
  return { info, vacuumEnabled };
}

/** `dommon migrate` on PostgreSQL (DOMMON_DATABASE_URL): the same sequence; a server out of reach is a 503. */
export async function migratePostgres(config: Readonly<Config>, statusOnly: boolean): Promise<MigrationState> {
  const db = config.database!;
  const { openPgConnection, pgMigrationInfo } = await import('../store/pg.js');
  let conn;
  try {
    conn = await openPgConnection(db.url, {
      poolSize: 1,
      statementTimeoutMs: db.statementTimeoutMs,
      migrate: !statusOnly,
    });
  } catch (err) {
    throw new OpsError(`${db.redacted}: ${(err as Error).message}`, 503);
  }
  try {
    return await pgMigrationInfo(conn.db);
  } finally {
    await conn.close();
  }
}

/**
 * What `dommon serve` does before it opens the database: the data directory must be writable, and
 * one daemon serves it at a time (`dommon restore` checks the same lock). Returns the lock's release.
 */
export function claimDataDir(config: Readonly<Config>): () => void {
  const problem = writableDirProblem(config.dataDir);
  if (problem) throw new Error(`data directory ${config.dataDir} is not writable (${problem})`);
  return acquireLock(config.dataDir);
}
