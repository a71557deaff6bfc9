// A fresh PostgreSQL database per test on the server DOMMON_TEST_DATABASE_URL names (.ci/run starts one
// on 127.0.0.1 with scripts/pg-cluster.sh); null where it is unset, and the caller skips with a reason.
import crypto from 'node:crypto';
import pg from 'pg';

export const PG_SKIP = 'DOMMON_TEST_DATABASE_URL is unset (.ci/run starts PostgreSQL and sets it)';

export function pgServerUrl(): string | null {
  return process.env.DOMMON_TEST_DATABASE_URL || null;
}

/** Creates an empty database; `drop()` removes it (closing its other sessions). */
export async function createPgDatabase(label = 'test'): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = pgServerUrl();
  if (!server) return null;
  const name = `dommon_${label}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(server);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
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
