// Vantage points: a liveness configuration may ask to be checked from several
// regions (`regions`, a JSON array; null: by any one node, as before) and to count as down only when
// `confirm_from` of them agree. Additive only, so that a node of the previous version keeps running
// on this schema during a rolling upgrade (docs/scale-out.md):
// - liveness_results.region: the region of the node that checked (null: `default`);
// - liveness_region_due: the due-queue of regional runs, one row per (config, region), claimed only by
//   nodes of that region (liveness_due keeps the configs checked from anywhere);
// - liveness_region_state: each region's own view (failures in a row, last check); liveness_state stays
//   the combined one that events, health and every list read;
// - liveness_region_daily: per-region daily sums (the stats' breakdown); liveness_hourly and
//   liveness_daily stay the sums over every region.
import { sql, type Kysely } from 'kysely';
import { columnTypes, engineOf } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema.alterTable('liveness_configs').addColumn('regions', T.text).execute();
  await db.schema
    .alterTable('liveness_configs')
    .addColumn('confirm_from', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('liveness_results').addColumn('region', T.text).execute();

  await db.schema
    .createTable('liveness_region_due')
    .addColumn('config_id', T.text, (c) => c.notNull().references('liveness_configs.id').onDelete('cascade'))
    .addColumn('region', T.text, (c) => c.notNull())
    .addColumn('due_at', T.ms)
    .addColumn('fresh', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('owner', T.text)
    .addColumn('lease_until', T.ms)
    .addColumn('token', T.ms, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('liveness_region_due_pk', ['config_id', 'region'])
    .execute();
  await db.schema
    .createIndex('liveness_region_due_free')
    .on('liveness_region_due')
    .columns(['region', 'due_at'])
    .where(sql.ref('owner'), 'is', null)
    .execute();
  await db.schema
    .createIndex('liveness_region_due_leased')
    .on('liveness_region_due')
    .columns(['region', 'lease_until'])
    .where(sql.ref('owner'), 'is not', null)
    .execute();

  await db.schema
    .createTable('liveness_region_state')
    .addColumn('config_id', T.text, (c) => c.notNull().references('liveness_configs.id').onDelete('cascade'))
    .addColumn('region', T.text, (c) => c.notNull())
    .addColumn('status', T.text)
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_check', T.text)
    .addColumn('last_check_successful', 'integer')
    .addColumn('response_time_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('last_error', T.text)
    .addPrimaryKeyConstraint('liveness_region_state_pk', ['config_id', 'region'])
    .execute();

  const pg = engineOf(db) === 'postgres';
  await sql`create table liveness_region_daily (
    cfg integer not null references liveness_configs(seq) on delete cascade,
    region ${pg ? sql`text collate "C"` : sql`text`} not null,
    bucket integer not null,
    total integer not null default 0,
    ok integer not null default 0,
    sum_ms ${sql.raw(pg ? 'bigint' : 'integer')} not null default 0,
    primary key (cfg, region, bucket)
  )${pg ? sql`` : sql` without rowid`}`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
