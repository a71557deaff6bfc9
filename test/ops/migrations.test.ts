import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { sql, type Migration } from 'kysely';
import { migrationStatus, openConnection } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { inspectDatabase, restoreProblem } from '../../src/store/maintenance.js';
import { tempDir } from '../support/app.js';

function file(t: { teardown(fn: () => unknown): void }): string {
  const dir = tempDir('dommon-migrate-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'dommon.db');
}

t.test('a database made by the first schema migrates forward to the latest, keeping its rows', async (t) => {
  const f = file(t);
  const first = await openConnection(f, { migrations: { '001_initial': MIGRATIONS['001_initial']! } });
  await first.db
    .insertInto('teams')
    .values({ id: 't1', name: 'ops', timezone: 'UTC', created_at: '2026-01-01T00:00:00.000Z' })
    .execute();
  t.same(
    (await migrationStatus(first)).filter((m) => m.applied_at).map((m) => m.name),
    ['001_initial'],
  );
  await first.close();

  const latest = await openConnection(f);
  const status = await migrationStatus(latest);
  t.same(
    status.map((m) => m.name),
    Object.keys(MIGRATIONS).sort(),
  );
  t.ok(
    status.every((m) => m.applied_at),
    'every migration applied',
  );
  t.equal((await latest.db.selectFrom('teams').select('name').executeTakeFirstOrThrow()).name, 'ops');
  await latest.close();
  const info = inspectDatabase(f);
  t.same(info.pending, []);
  t.same(info.unknown, []);
  t.equal(info.integrity.join(), 'ok');
  t.equal(info.auto_vacuum, 'incremental');
});

t.test('migrations only move forward, and a failing one leaves the database as it was', async (t) => {
  const f = file(t);
  const addColumn: Migration = {
    up: async (db) => {
      await db.schema.alterTable('teams').addColumn('ops_note', 'text').execute();
    },
  };
  const failing: Migration = {
    up: async (db) => {
      await db.schema.createTable('half_done').addColumn('x', 'integer').execute();
      throw new Error('boom');
    },
  };
  const base = { ...MIGRATIONS };
  await (await openConnection(f, { migrations: base })).close();
  await t.rejects(
    openConnection(f, { migrations: { ...base, '990_add_note': addColumn, '991_fail': failing } }),
    /boom/,
  );
  const conn = await openConnection(f, { migrations: { ...base, '990_add_note': addColumn } });
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(conn.db);
  t.notOk(
    tables.rows.some((r) => r.name === 'half_done'),
    'the failed migration created nothing (its transaction rolled back)',
  );
  const cols = await sql<{ name: string }>`select name from pragma_table_info('teams')`.execute(conn.db);
  t.ok(
    cols.rows.some((r) => r.name === 'ops_note'),
    'the migration before it committed on its own',
  );
  await conn.close();
  t.same(
    inspectDatabase(f).applied.map((a) => a.name),
    [...Object.keys(base).sort(), '990_add_note'],
  );
  // Fixed, the failed migration applies on the next open.
  const fixed: Migration = {
    up: async (db) => {
      await db.schema.createTable('half_done').addColumn('x', 'integer').execute();
    },
  };
  await (await openConnection(f, { migrations: { ...base, '990_add_note': addColumn, '991_fail': fixed } })).close();
  t.same(inspectDatabase(f).pending, [], 'only known migrations are pending');
  t.ok(inspectDatabase(f).applied.some((a) => a.name === '991_fail'));

  await t.rejects(
    Promise.resolve().then(() => MIGRATIONS['001_initial']!.down!({} as never)),
    /only move forward/,
  );

  // A file migrated by a newer dommon is reported, and refused by restore.
  const info = inspectDatabase(f);
  t.same(info.unknown, ['990_add_note', '991_fail']);
  t.match(restoreProblem(info), /newer dommon/);
});
