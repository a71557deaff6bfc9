// Heartbeat (`push`) endpoints: a job calls its ping URL instead of being probed.
// - push_checks: one row per push endpoint: its ping key (the URL's secret, unique: a ping finds its
//   check by it). It goes with its endpoint; when a ping is expected (a period, or a cron expression in
//   a time zone, and a grace time) is in the endpoint's settings (the type's fields, migration 022).
// - push_pings: every ping as it came (start, success, fail, log), with the exit status, the run's
//   duration (from its start) and the first bytes of the body; a ping is one insert. The liveness check
//   of the endpoint reads the last start and the last finish by (endpoint_id, kind, at).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('push_checks')
    .addColumn('endpoint_id', T.text, (c) => c.primaryKey().references('endpoints.id').onDelete('cascade'))
    .addColumn('team_id', T.text, (c) => c.notNull())
    .addColumn('ping_key', T.text, (c) => c.notNull().unique())
    .addColumn('created_at', T.ms, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('push_pings')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('endpoint_id', T.text, (c) => c.notNull().references('endpoints.id').onDelete('cascade'))
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('at', T.ms, (c) => c.notNull())
    .addColumn('exit_status', 'integer')
    .addColumn('duration_ms', T.ms)
    .addColumn('body', T.text)
    .addColumn('body_bytes', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_pings_kind_at').on('push_pings').columns(['endpoint_id', 'kind', 'at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
