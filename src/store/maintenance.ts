// File-level database operations: online backup, integrity and schema inspection, restore by
// replacement, and the writable-directory check. All work on a path, not on an open Store.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';
import { openConnection } from './db.js';
import { restrictFile } from './permissions.js';

/** Tables whose row counts a backup reports (and a test compares). */
const COUNTED_TABLES = [
  'teams',
  'users',
  'api_tokens',
  'portfolios',
  'domains',
  'endpoints',
  'liveness_configs',
  'liveness_results',
  'events',
  'deliveries',
] as const;

export class MaintenanceError extends Error {
  constructor(
    message: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

export interface DatabaseInfo {
  file: string;
  bytes: number;
  integrity: string[];
  applied: { name: string; applied_at: string }[];
  pending: string[];
  /** Applied migrations this version does not know (the file comes from a newer dommon). */
  unknown: string[];
  journal_mode: string;
  auto_vacuum: 'none' | 'full' | 'incremental';
  counts: Record<string, number>;
}

function openReadonly(file: string): Database.Database {
  if (!fs.existsSync(file)) throw new MaintenanceError(`no database at ${file}`, 404);
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (err) {
    throw new MaintenanceError(`cannot open ${file}: ${(err as Error).message}`);
  }
}

function describe(db: Database.Database, file: string, full: boolean): DatabaseInfo {
  let integrity: string[];
  try {
    integrity = (db.pragma(full ? 'integrity_check' : 'quick_check') as Record<string, string>[]).map((r) =>
      String(Object.values(r)[0]),
    );
  } catch (err) {
    integrity = [(err as Error).message];
  }
  const hasTable = (name: string) =>
    Boolean(db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name));
  let applied: { name: string; applied_at: string }[] = [];
  if (hasTable('kysely_migration')) {
    applied = (
      db.prepare('select name, timestamp from kysely_migration order by name').all() as {
        name: string;
        timestamp: string;
      }[]
    ).map((r) => ({ name: r.name, applied_at: r.timestamp }));
  }
  const known = Object.keys(MIGRATIONS).sort();
  const names = new Set(applied.map((a) => a.name));
  const counts: Record<string, number> = {};
  for (const t of COUNTED_TABLES) {
    if (hasTable(t)) counts[t] = Number((db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n);
  }
  const av = Number(db.pragma('auto_vacuum', { simple: true }));
  return {
    file,
    bytes: fs.statSync(file).size,
    integrity,
    applied,
    pending: known.filter((n) => !names.has(n)),
    unknown: applied.map((a) => a.name).filter((n) => !known.includes(n)),
    journal_mode: String(db.pragma('journal_mode', { simple: true })),
    auto_vacuum: av === 2 ? 'incremental' : av === 1 ? 'full' : 'none',
    counts,
  };
}

/** Integrity (full check unless `quick`), applied/pending migrations and row counts of a database file. */
export function inspectDatabase(file: string, opts: { quick?: boolean } = {}): DatabaseInfo {
  const db = openReadonly(file);
  try {
    return describe(db, file, !opts.quick);
  } finally {
    db.close();
  }
}

/** The stored notification configs (sealed or plain) of a SQLite file, read-only (`dommon doctor`). */
export function storedChannelConfigs(file: string): string[] {
  const db = openReadonly(file);
  try {
    const table = db
      .prepare(`select 1 from sqlite_master where type = 'table' and name = 'notification_settings'`)
      .get();
    if (!table) return [];
    return (db.prepare('select config from notification_settings').all() as { config: string }[]).map((r) => r.config);
  } finally {
    db.close();
  }
}

/**
 * Online backup of `source` into `dest` with SQLite's backup API: all pages in one step, so the copy
 * is one consistent snapshot even while the daemon writes (WAL readers do not block writers).
 * Written beside `dest` first and renamed only after its integrity check passes.
 */
export async function backupDatabase(
  source: string,
  dest: string,
  opts: { overwrite?: boolean } = {},
): Promise<DatabaseInfo> {
  const target = path.resolve(dest);
  if (fs.existsSync(target) && !opts.overwrite)
    throw new MaintenanceError(`${target} already exists (use --force to overwrite)`, 409);
  if (!fs.existsSync(path.dirname(target)))
    throw new MaintenanceError(`directory ${path.dirname(target)} does not exist`, 404);
  const tmp = `${target}.tmp-${process.pid}`;
  const src = openReadonly(source);
  try {
    await src.backup(tmp, { progress: () => 0x7fffffff });
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new MaintenanceError(`backup failed: ${(err as Error).message}`);
  } finally {
    src.close();
  }
  try {
    // A backup is one self-contained file: no -wal beside it.
    const copy = new Database(tmp);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    const info = inspectDatabase(tmp);
    if (info.integrity.join() !== 'ok')
      throw new MaintenanceError(`backup copy failed its integrity check: ${info.integrity.slice(0, 3).join('; ')}`);
    restrictFile(tmp);
    fs.renameSync(tmp, target);
    return { ...info, file: target };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Why `file` cannot be restored, or null: integrity, a dommon schema, no migration newer than this version. */
export function restoreProblem(info: DatabaseInfo): string | null {
  if (info.integrity.join() !== 'ok') return `integrity check failed: ${info.integrity.slice(0, 3).join('; ')}`;
  if (!info.applied.some((a) => a.name === '001_initial')) return 'not a dommon database (no applied migrations)';
  if (info.unknown.length) return `made by a newer dommon (unknown migrations: ${info.unknown.join(', ')})`;
  return null;
}

/**
 * Replaces `dbPath` with a copy of `backup` (the caller holds the data directory's lock). The previous
 * database is kept as `<dbPath>.pre-restore`; the restored file is migrated forward.
 */
export async function restoreDatabase(
  backup: string,
  dbPath: string,
): Promise<{ restored: DatabaseInfo; previous: string | null; migrated: string[] }> {
  const info = inspectDatabase(backup);
  const problem = restoreProblem(info);
  if (problem) throw new MaintenanceError(`refusing to restore ${backup}: ${problem}`, 400);
  fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  const tmp = `${dbPath}.restore-tmp`;
  fs.rmSync(tmp, { force: true });
  const src = openReadonly(backup);
  try {
    await src.backup(tmp, { progress: () => 0x7fffffff });
  } finally {
    src.close();
  }
  let previous: string | null = null;
  if (fs.existsSync(dbPath)) {
    // Closing the last connection folds the WAL into the file, so the kept copy is complete.
    const old = new Database(dbPath);
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.close();
    previous = `${dbPath}.pre-restore`;
    fs.renameSync(dbPath, previous);
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
  restrictFile(tmp);
  fs.renameSync(tmp, dbPath);
  const conn = await openConnection(dbPath);
  await conn.close();
  const migrated = info.pending;
  return { restored: inspectDatabase(dbPath, { quick: true }), previous, migrated };
}

/** Null when `dir` exists (or can be created) and a file can be written in it; otherwise why not. */
export function writableDirProblem(dir: string): string | null {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dir);
    if (!st.isDirectory()) return 'not a directory';
    const probe = path.join(dir, `.dommon-write-test-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
    return null;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return e.code ? e.code : e.message;
  }
}

/**
 * Turns on incremental auto-vacuum for a file made without it (a full VACUUM, so only while no
 * daemon runs). Returns true when the file was converted.
 */
export function enableIncrementalVacuum(file: string): boolean {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (Number(db.pragma('auto_vacuum', { simple: true })) === 2) return false;
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    return true;
  } finally {
    db.close();
  }
}

/** Opens the SQLite file (made when missing) with its pending migrations applied, and closes it (`dommon migrate`). */
export async function migrateFile(file: string): Promise<void> {
  const conn = await openConnection(file);
  await conn.close();
}
