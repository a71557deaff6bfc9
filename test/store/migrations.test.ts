// Versioned migrations: a database built by an old migration list is migrated forward on open, keeps
// its rows, records each migration once, and a database newer than the code is refused.
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { sql, type Kysely, type Migration } from 'kysely';
import t from 'tap';
import { openConnection } from '../../src/store/db.js';
import { openStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { tempDir } from '../support/app.js';

const names = Object.keys(MIGRATIONS).sort();
const prefix = (n: number): Record<string, Migration> =>
  Object.fromEntries(names.slice(0, n).map((k) => [k, MIGRATIONS[k]!]));

// A later migration as a future release would ship it: a new column with a backfill.
const m999: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('domains').addColumn('test_label', 'text').execute();
    await sql`update domains set test_label = 'L-' || domain`.execute(db);
  },
};

t.test('an old schema is migrated forward and keeps its rows', async (t) => {
  const dir = tempDir('dommon-migrate-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dommon.db');

  // 1. the oldest schema (first migration only), with data in it
  const old = await openConnection(file, { migrations: prefix(1) });
  await old.close();
  const raw = new Database(file);
  raw
    .prepare(
      "insert into teams (id, name, timezone, created_at) values ('t1', 'ops', 'UTC', '2025-01-01T00:00:00.000Z')",
    )
    .run();
  raw
    .prepare(
      `insert into domains (id, team_id, domain, verification_token, created_at, updated_at)
    values ('d1', 't1', 'example.com', 'dommon-verify-x', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    )
    .run();
  t.same(
    (raw.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name),
    names.slice(0, 1),
  );
  raw.close();

  // 2. the current code opens it: every later migration is applied, rows survive
  const store = await openStore(file);
  const d = await store.domains.get('t1', 'd1');
  t.equal(d?.domain, 'example.com');
  await store.close();
  const check = new Database(file);
  t.same(
    (check.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name),
    names,
  );
  t.equal(check.pragma('journal_mode', { simple: true }), 'wal');
  check.close();

  // 3. a newer release adds a migration: applied once, with its backfill
  const next = { ...MIGRATIONS, '999_test_label': m999 };
  const c1 = await openConnection(file, { migrations: next });
  const row = await sql<{ test_label: string }>`select test_label from domains where id = 'd1'`.execute(c1.db);
  t.equal(row.rows[0]?.test_label, 'L-example.com');
  await c1.close();
  const c2 = await openConnection(file, { migrations: next }); // reopening runs nothing again
  const applied = await sql<{
    n: number;
  }>`select count(*) as n from kysely_migration where name = '999_test_label'`.execute(c2.db);
  t.equal(Number(applied.rows[0]?.n), 1);
  await c2.close();

  // 4. the older code refuses a database that a newer release migrated
  await t.rejects(openConnection(file, { migrations: MIGRATIONS }), /999_test_label|missing/);
});

t.test('every prefix of the migration list migrates forward to the full schema', async (t) => {
  const full = tempDir('dommon-migrate-full-');
  t.teardown(() => fs.rmSync(full, { recursive: true, force: true }));
  const ref = await openConnection(path.join(full, 'a.db'));
  const schemaOf = async (db: Kysely<any>) =>
    (
      await sql<{
        name: string;
        sql: string;
      }>`select name, sql from sqlite_master where name not like 'kysely_%' and sql is not null order by name`.execute(
        db,
      )
    ).rows;
  const want = await schemaOf(ref.db);
  await ref.close();
  t.ok(want.some((r) => r.name === 'domains'));
  for (let n = 0; n < names.length; n++) {
    const file = path.join(full, `p${n}.db`);
    const c = await openConnection(file, { migrations: prefix(n) });
    await c.close();
    const c2 = await openConnection(file);
    t.same(await schemaOf(c2.db), want, `from ${n} migration(s)`);
    await c2.close();
  }
});

t.test('a database with every migration is opened with one read of kysely_migration', async (t) => {
  const dir = tempDir('dommon-migrate-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dommon.db');
  await (await openConnection(file)).close();
  // Every statement prepared while the migrated file is opened again (the pragmas are run, not prepared).
  const prepared: string[] = [];
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (this: Database.Database, source: string) {
    prepared.push(source);
    return prepare.call(this, source);
  } as typeof prepare;
  try {
    const conn = await openConnection(file);
    await conn.close();
  } finally {
    Database.prototype.prepare = prepare;
  }
  const migrationReads = prepared.filter((s) => /kysely_migration/.test(s));
  t.same(migrationReads, ['select name from kysely_migration'], 'one read of the applied migrations');
  t.notOk(
    prepared.some((s) => /sqlite_master|pragma_table_info|kysely_migration_lock/.test(s)),
    `no table list, no column list, no migration lock: ${JSON.stringify(prepared)}`,
  );
});
