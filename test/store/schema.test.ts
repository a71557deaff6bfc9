// One numbered migration sequence for both engines: an empty database migrated on SQLite (file and
// :memory:) and on a real PostgreSQL has the tables, columns and indexes of the checked-in snapshots
// (test/store/schema.*.json; `UPDATE_SCHEMA_SNAPSHOT=1` rewrites them after a reviewed migration),
// and both engines have the same tables with the same columns.
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { sql, type Kysely } from 'kysely';
import { openConnection } from '../../src/store/db.js';
import { openPgConnection, pgMigrationInfo } from '../../src/store/pg.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { tempDir } from '../support/app.js';
import { freshPgDatabase, PG_SKIP } from '../support/pg.js';

interface Column {
  name: string;
  type: string;
  notnull: boolean;
  default: string | null;
  pk: boolean;
}
interface Index {
  name: string;
  table: string;
  unique: boolean;
  columns: string[];
  partial: boolean;
}
interface Schema {
  tables: Record<string, Column[]>;
  indexes: Index[];
}

const here = path.dirname(new URL(import.meta.url).pathname);
const snapshotFile = (engine: string) => path.join(here, `schema.${engine}.json`);

/** The tables a migration made (not the migrator's own bookkeeping, not PostgreSQL's partitions). */
const OWN = (name: string) =>
  !name.startsWith('kysely_') && !name.startsWith('sqlite_') && !/^liveness_results_/.test(name);

async function sqliteSchema(db: Kysely<any>): Promise<Schema> {
  const names = (
    await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db)
  ).rows
    .map((r) => r.name)
    .filter(OWN);
  const tables: Schema['tables'] = {};
  const indexes: Index[] = [];
  for (const name of names) {
    const cols = (
      await sql<{
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }>`select * from pragma_table_info(${name})`.execute(db)
    ).rows;
    tables[name] = cols.map((c) => ({
      name: c.name,
      type: c.type.toLowerCase(),
      notnull: c.notnull === 1 || c.pk > 0,
      default: c.dflt_value,
      pk: c.pk > 0,
    }));
    const list = (
      await sql<{
        name: string;
        unique: number;
        origin: string;
        partial: number;
      }>`select * from pragma_index_list(${name})`.execute(db)
    ).rows;
    for (const ix of list) {
      const cols = (
        await sql<{ name: string; seqno: number }>`select * from pragma_index_info(${ix.name})`.execute(db)
      ).rows.sort((a, b) => a.seqno - b.seqno);
      indexes.push({
        name: ix.origin === 'c' ? ix.name : `(${ix.origin}) ${name}`,
        table: name,
        unique: ix.unique === 1,
        columns: cols.map((c) => c.name),
        partial: ix.partial === 1,
      });
    }
  }
  return {
    tables,
    indexes: indexes.sort((a, b) =>
      `${a.table} ${a.name} ${a.columns.join(',')}`.localeCompare(`${b.table} ${b.name} ${b.columns.join(',')}`),
    ),
  };
}

async function pgSchema(db: Kysely<any>): Promise<Schema> {
  const cols = (
    await sql<{
      table_name: string;
      column_name: string;
      data_type: string;
      collation_name: string | null;
      is_nullable: string;
      column_default: string | null;
      pk: boolean;
    }>`
      select c.table_name, c.column_name, c.data_type, c.collation_name, c.is_nullable, c.column_default,
             exists (select 1 from information_schema.key_column_usage k join information_schema.table_constraints tc
                       on tc.constraint_name = k.constraint_name and tc.table_name = k.table_name
                      where tc.constraint_type = 'PRIMARY KEY' and k.table_name = c.table_name and k.column_name = c.column_name) as pk
        from information_schema.columns c
       where c.table_schema = current_schema()
       order by c.table_name, c.ordinal_position`.execute(db)
  ).rows;
  const tables: Schema['tables'] = {};
  for (const c of cols.filter((c) => OWN(c.table_name))) {
    (tables[c.table_name] ??= []).push({
      name: c.column_name,
      type: c.collation_name ? `${c.data_type} collate ${c.collation_name}` : c.data_type,
      notnull: c.is_nullable === 'NO',
      default: c.column_default,
      pk: c.pk,
    });
  }
  const ixRows = (
    await sql<{ name: string; table: string; unique: boolean; columns: string[]; partial: boolean }>`
      select i.relname as name, t.relname as table, x.indisunique as unique, x.indpred is not null as partial,
             array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, n) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n) as columns
        from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
        join pg_namespace ns on ns.oid = t.relnamespace
       where ns.nspname = current_schema()`.execute(db)
  ).rows;
  const indexes = ixRows
    .filter((r) => OWN(r.table))
    .map((r) => ({ ...r, columns: [...r.columns] }))
    .sort((a, b) =>
      `${a.table} ${a.name} ${a.columns.join(',')}`.localeCompare(`${b.table} ${b.name} ${b.columns.join(',')}`),
    );
  return { tables, indexes };
}

function compareWithSnapshot(t: Test, engine: string, schema: Schema) {
  const file = snapshotFile(engine);
  if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') fs.writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
  const want = JSON.parse(fs.readFileSync(file, 'utf8')) as Schema;
  t.same(Object.keys(schema.tables).sort(), Object.keys(want.tables).sort(), `${engine}: the tables of the snapshot`);
  for (const [name, columns] of Object.entries(want.tables))
    t.same(schema.tables[name], columns, `${engine}: ${name}'s columns`);
  t.same(schema.indexes, want.indexes, `${engine}: the indexes of the snapshot`);
}

const schemas: Partial<Record<'sqlite' | 'postgres', Schema>> = {};

t.test('SQLite: an empty file and :memory: migrate to the snapshot', async (t) => {
  const dir = tempDir('dommon-schema-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const where of [path.join(dir, 'dommon.db'), ':memory:']) {
    const conn = await openConnection(where);
    const schema = await sqliteSchema(conn.db);
    await conn.close();
    compareWithSnapshot(t, 'sqlite', schema);
    schemas.sqlite = schema;
  }
});

t.test(
  'PostgreSQL: an empty database migrates to the snapshot, and again is a no-op',
  { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'schema'))!;
    const conn = await openPgConnection(url);
    t.teardown(() => conn.close());
    const info = await pgMigrationInfo(conn.db);
    t.same(
      info.applied.map((a) => a.name),
      Object.keys(MIGRATIONS).sort(),
      'every migration applied, in order',
    );
    t.same(info.pending, []);
    const schema = await pgSchema(conn.db);
    compareWithSnapshot(t, 'postgres', schema);
    schemas.postgres = schema;
    // Opening again applies nothing.
    const again = await openPgConnection(url);
    t.same((await pgMigrationInfo(again.db)).applied, info.applied);
    await again.close();
    // Raw results are partitioned by time on PostgreSQL (retention drops partitions).
    const part = await sql<{
      strategy: string;
    }>`select partstrat as strategy from pg_partitioned_table p join pg_class c on c.oid = p.partrelid where c.relname = 'liveness_results'`.execute(
      conn.db,
    );
    t.same(part.rows, [{ strategy: 'r' }], 'liveness_results is range-partitioned');
    // Epoch milliseconds need 8 bytes; text compares bytewise as on SQLite.
    t.match(
      schema.tables.liveness_results!.find((c) => c.name === 'ts'),
      { type: 'bigint' },
    );
    t.match(
      schema.tables.domains!.find((c) => c.name === 'domain'),
      { type: 'text collate C' },
    );
  },
);

t.test(
  'both engines: the same tables with the same columns and indexes',
  { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP },
  async (t) => {
    const a = schemas.sqlite;
    const b = schemas.postgres;
    if (!a || !b) return t.fail('both schemas were read above');
    t.same(Object.keys(b.tables).sort(), Object.keys(a.tables).sort());
    for (const name of Object.keys(a.tables)) {
      t.same(
        b.tables[name]!.map((c) => [c.name, c.notnull, c.pk]),
        a.tables[name]!.map((c) => [c.name, c.notnull, c.pk]),
        `${name}: columns, NOT NULL and key alike`,
      );
    }
    // Indexes by their columns (SQLite names the automatic ones, PostgreSQL names constraints' its own way).
    const shape = (s: Schema) =>
      s.indexes
        .map((i) => `${i.table}(${i.columns.join(',')})${i.unique ? ' unique' : ''}${i.partial ? ' partial' : ''}`)
        .sort();
    t.same(shape(b), shape(a));
  },
);
