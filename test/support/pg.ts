// A fresh PostgreSQL database per test on the server DOMMON_TEST_DATABASE_URL names (.ci/run starts one
// on 127.0.0.1 with scripts/pg-cluster.sh); null where it is unset, and the caller skips with a reason.
// A migrated one (what startApp() asks for) is a copy of a template database migrated once per server
// and migration set: `create database ... template ...` copies files in ~0.1 s where running the
// migrations took ~1 s per database (docs/testing.md, keeping the suite fast).
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { openPgConnection } from '../../src/store/pg.js';

export const PG_SKIP = 'DOMMON_TEST_DATABASE_URL is unset (.ci/run starts PostgreSQL and sets it)';

export function pgServerUrl(): string | null {
  return process.env.DOMMON_TEST_DATABASE_URL || null;
}

const dbUrl = (server: string, name: string): string => {
  const u = new URL(server);
  u.pathname = `/${name}`;
  return u.toString();
};

/** The migration sources: a change to any of them names (and so builds) a new template. */
function migrationsHash(): string {
  const h = crypto.createHash('sha256');
  const dir = new URL('../../src/store/migrations/', import.meta.url);
  for (const f of fs.readdirSync(dir).sort()) h.update(f).update(fs.readFileSync(new URL(f, dir)));
  h.update(fs.readFileSync(new URL('../../src/store/db.ts', import.meta.url)));
  return h.digest('hex').slice(0, 12);
}

let template: Promise<string> | undefined;

/**
 * The name of a database holding every migration and nothing else, built once per server and migration
 * set (an advisory lock keeps test processes running at once from building it twice; it is built under
 * another name and renamed, so a half-built one is never copied).
 */
function migratedTemplate(server: string): Promise<string> {
  template ??= (async () => {
    const name = `dommon_template_${migrationsHash()}`;
    await withPgClient(server, async (admin) => {
      await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
      const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (!found.rowCount) {
        const building = `${name}_${crypto.randomBytes(4).toString('hex')}`;
        await admin.query(`create database ${building}`);
        const conn = await openPgConnection(dbUrl(server, building), { poolSize: 1 });
        await conn.close();
        await admin.query(`alter database ${building} rename to ${name}`);
      }
      await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    });
    await dropOrphans(server);
    return name;
  })();
  // A failed build is tried again by the next caller.
  template.catch(() => (template = undefined));
  return template;
}

/** Runs `fn` on a connection of its own to `url`, closed afterwards whatever `fn` does. */
export async function withPgClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, application_name: 'dommon-test' });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** withPgClient on the server's own database, or (`db`) on one of its databases. */
const onServer = <T>(server: string, db: string | null, fn: (c: pg.Client) => Promise<T>): Promise<T> =>
  withPgClient(db ? dbUrl(server, db) : server, fn);

/**
 * Migrated databases this process's apps have finished with, emptied for the next one. A database made
 * and dropped costs the server about 0.27 s of CPU (copying the template's system catalogs in and out),
 * an emptied one about 15 ms, and a run of the suite takes a few hundred (docs/testing.md). Named after
 * the process, so one that outlives its process (a crash) is dropped by the next process to start.
 */
const spare: string[] = [];

/** What an emptied database must still be to be used again: its tables, columns and applied migrations. */
const SHAPE = `select md5(coalesce(string_agg(c.relname || '.' || a.attname || ':' || a.atttypid::text || c.relkind::text, ','
    order by c.relname, a.attnum), '') || (select count(*) from kysely_migration)::text
    || coalesce((select string_agg(extname, ',' order by extname) from pg_extension), '')) as shape
  from pg_class c join pg_attribute a on a.attrelid = c.oid
  where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped`;
let expectedShape: string | undefined;

/**
 * Empties a database an app has finished with, in one statement: the day partitions retention made
 * dropped, every row deleted (foreign keys and triggers off meanwhile: `session_replication_role`), the
 * migration lock released. A delete of a test's few rows costs the server far less than a truncate,
 * which gives each table new files (about 15 ms a table here).
 */
const EMPTY = `do $$
declare r record;
begin
  set local session_replication_role = replica;
  for r in select inhrelid::regclass::text as part from pg_inherits
      where inhparent = 'liveness_results'::regclass and inhrelid <> 'liveness_results_default'::regclass loop
    execute 'drop table ' || r.part;
  end loop;
  for r in select format('%I', tablename) as t from pg_tables
      where schemaname = 'public' and tablename not like 'kysely_migration%' loop
    execute 'delete from ' || r.t;
  end loop;
  update kysely_migration_lock set is_locked = 0;
end $$`;

/** Drops the spare databases of test processes that are gone (they ended without handing them back). */
async function dropOrphans(server: string): Promise<void> {
  await onServer(server, null, async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      `select datname from pg_database where datname ~ '^dommon_app_p[0-9]+_'`,
    );
    for (const { datname } of rows) {
      const pid = Number(/^dommon_app_p(\d+)_/.exec(datname)![1]);
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
      if (!alive) await c.query(`drop database if exists ${datname} with (force)`);
    }
  });
}

/**
 * Hands a migrated database back: emptied and kept for this process's next app when nothing else is
 * connected to it and its shape is the template's; dropped otherwise (a test that changed its schema,
 * a daemon child still connected).
 */
async function release(server: string, name: string, drop: () => Promise<void>): Promise<void> {
  const kept = await onServer(server, name, async (c) => {
    const others = await c.query(
      'select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    if (others.rowCount) return false;
    await c.query(EMPTY);
    return (await c.query<{ shape: string }>(SHAPE)).rows[0]!.shape === expectedShape;
  }).catch(() => false);
  if (kept) spare.push(name);
  else await drop();
}

let spareSetUp = false;
function dropSparesOnExit(server: string): void {
  if (spareSetUp) return;
  spareSetUp = true;
  process.once('beforeExit', () => {
    const names = spare.splice(0);
    if (names.length)
      void onServer(server, null, async (c) => {
        for (const n of names) await c.query(`drop database if exists ${n} with (force)`);
      }).catch(() => undefined);
  });
}

/**
 * Creates a database, empty or (`migrated`) with every migration applied as dommon would apply them on
 * open; `drop()` removes it (closing its other sessions). A migrated one may be a database an earlier
 * app of this process used, emptied (`spare` above): `drop()` then empties it and keeps it for the next.
 */
export async function createPgDatabase(
  label = 'test',
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = pgServerUrl();
  if (!server) return null;
  const reused = opts.migrated ? spare.pop() : undefined;
  const name =
    reused ??
    (opts.migrated ? `dommon_app_p${process.pid}_` : `dommon_${label}_`) + crypto.randomBytes(4).toString('hex');
  const drop = () =>
    onServer(server, null, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined);
  if (!reused) {
    const from = opts.migrated ? ` template ${await migratedTemplate(server)}` : '';
    await onServer(server, null, (c) => c.query(`create database ${name}${from}`));
    if (opts.migrated) {
      dropSparesOnExit(server);
      expectedShape ??= await onServer(
        server,
        name,
        async (c) => (await c.query<{ shape: string }>(SHAPE)).rows[0]!.shape,
      );
    }
  }
  return {
    url: dbUrl(server, name),
    drop: opts.migrated ? () => release(server, name, drop) : drop,
  };
}

/** Whether startApp() runs on PostgreSQL (test/pg/*.test.ts set it before importing the API tests). */
export const onPostgres = (): boolean => process.env.DOMMON_TEST_ENGINE === 'postgres' && pgServerUrl() !== null;

/** Creates an empty database and returns its URL; the teardown drops it (closing its other sessions). */
export async function freshPgDatabase(
  t: { teardown(fn: () => unknown): void },
  label = 'test',
): Promise<string | null> {
  const db = await createPgDatabase(label);
  if (!db) return null;
  t.teardown(() => db.drop());
  return db.url;
}
