// `dommon db copy --to TARGET`: the configured store (DIR/dommon.db, or DOMMON_DATABASE_URL) copied
// row for row into an empty one (store/copy.ts does the copy). TARGET is what a user would type:
//   postgres://user:password@host:port/db (or postgresql://)   a PostgreSQL database
//   sqlite:PATH, sqlite://PATH, sqlite:///abs/path               the SQLite file or data directory PATH
//   PATH                                                         the same without the prefix
// A PATH naming a directory (one that exists, one ending in `/`, or a name without an extension such
// as `./.dommon` or `/var/lib/dommon`) is a data directory: its `dommon.db`; any other PATH is the
// file itself (`./copy.db`).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { Conflict, Invalid, ServiceError } from '../domain/errors.js';
import { CopyRefused, copyStore, type CopyReport, type StoreLocation } from '../store/copy.js';
import { acquireLock, LockedError, lockHolder } from '../store/lock.js';

interface CopyTarget {
  location: StoreLocation;
  /** The data directory the target file sits in, when TARGET named a directory (locked during the copy). */
  dataDir: string | null;
}

const DB_FILE = 'dommon.db';

/** Parses `--to`: a PostgreSQL URL, a `sqlite:` URL, or a path (see the top of this file). */
function parseCopyTarget(raw: string): CopyTarget {
  const value = raw.trim();
  if (!value) throw new Invalid('--to needs a postgres:// URL, a sqlite: URL or a path');
  if (/^postgres(ql)?:\/\//i.test(value)) {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new Invalid('--to is not a valid postgres:// URL');
    }
    if (!u.hostname && !u.searchParams.get('host')) throw new Invalid('--to needs a host');
    return { location: { engine: 'postgres', url: value }, dataDir: null };
  }
  let p = value;
  if (/^sqlite:/i.test(p)) p = p.slice('sqlite:'.length).replace(/^\/\//, '');
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p))
    throw new Invalid(`--to must be a postgres:// URL, a sqlite: URL or a path, got ${p.split(':')[0]}://...`);
  if (!p || p === ':memory:') throw new Invalid('--to needs a file or data directory for SQLite');
  const abs = path.resolve(p);
  const isDir = fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory() ?? (/[\\/]$/.test(p) || !path.extname(abs));
  return isDir
    ? { location: { engine: 'sqlite', file: path.join(abs, DB_FILE) }, dataDir: abs }
    : { location: { engine: 'sqlite', file: abs }, dataDir: null };
}

/** The store the commands use: DOMMON_DATABASE_URL / --database-url, else DIR/dommon.db. */
const sourceOf = (config: Readonly<Config>): StoreLocation =>
  config.database ? { engine: 'postgres', url: config.database.url } : { engine: 'sqlite', file: config.dbPath };

/**
 * Channel secrets are copied as they are stored: sealed (store/sealing.ts). A target data directory
 * without a key file gets a copy of this one (0600); for any other target the report says its nodes need it.
 */
function carrySecretKey(config: Readonly<Config>, target: CopyTarget): string | null {
  const key = config.secretKey;
  if (key.keys) return 'channel secrets were copied sealed: run the target with the same DOMMON_SECRET_KEY';
  if (!fs.existsSync(key.file)) return null; // nothing was ever sealed here
  const dest = target.dataDir ? path.join(target.dataDir, path.basename(key.file)) : null;
  if (dest && path.resolve(dest) !== path.resolve(key.file) && !fs.existsSync(dest)) {
    fs.copyFileSync(key.file, dest, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(dest, 0o600);
    return `channel secrets were copied sealed; the key that opens them was copied to ${dest}`;
  }
  return `channel secrets were copied sealed: every node of the target needs the key ${key.file} (copy it, or give its value as DOMMON_SECRET_KEY)`;
}

interface DbCopyResult extends CopyReport {
  engines: { from: StoreLocation['engine']; to: StoreLocation['engine'] };
  /** Where the key of the sealed channel secrets went, or what the target needs (null: nothing sealed). */
  secret_key: string | null;
}

export async function copyDatabase(
  config: Readonly<Config>,
  to: string,
  opts: { onProgress?: (done: number, total: number) => void; warn?: (line: string) => void; batchSize?: number } = {},
): Promise<DbCopyResult> {
  const from = sourceOf(config);
  const target = parseCopyTarget(to);
  if (from.engine === 'sqlite') {
    // Reading beside a running daemon is safe (one snapshot), but rows it writes later are not copied.
    const holder = lockHolder(config.dataDir);
    if (holder)
      opts.warn?.(
        `a dommon daemon (pid ${holder}) is serving ${config.dataDir}: what it writes from now on is not copied; stop it first to move everything`,
      );
  }
  // A target data directory stays locked during the copy: no daemon starts on a half-copied store.
  let release = () => {};
  if (target.dataDir) {
    try {
      release = acquireLock(target.dataDir);
    } catch (err) {
      if (err instanceof LockedError)
        throw new Conflict(
          `a dommon daemon (pid ${err.pid}) is serving ${target.dataDir}: stop it before copying into it`,
          'TARGET_IN_USE',
        );
      throw err;
    }
  }
  try {
    const report = await copyStore(from, target.location, opts);
    const secretKey = carrySecretKey(config, target);
    return { ...report, engines: { from: from.engine, to: target.location.engine }, secret_key: secretKey };
  } catch (err) {
    if (!(err instanceof CopyRefused)) throw err;
    if (err.reason === 'not_empty') throw new Conflict(err.message, 'TARGET_NOT_EMPTY');
    if (err.reason === 'schema') throw new Conflict(err.message, 'SCHEMA_MISMATCH');
    if (err.reason === 'no_source') throw new ServiceError('not_found', err.message, 'NOT_FOUND');
    throw new Invalid(err.message);
  } finally {
    release();
  }
}
