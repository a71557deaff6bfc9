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
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    try {
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
    } finally {
      await admin.end();
    }
    return name;
  })();
  // A failed build is tried again by the next caller.
  template.catch(() => (template = undefined));
  return template;
}

/**
 * Creates a database, empty or (`migrated`) with every migration applied as dommon would apply them on
 * open; `drop()` removes it (closing its other sessions).
 */
export async function createPgDatabase(
  label = 'test',
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = pgServerUrl();
  if (!server) return null;
  const name = `dommon_${label}_${crypto.randomBytes(4).toString('hex')}`;
  const from = opts.migrated ? ` template ${await migratedTemplate(server)}` : '';
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${from}`);
  } finally {
    await admin.end();
  }
  return {
    url: dbUrl(server, name),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
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
