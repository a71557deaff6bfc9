// The liveness due-queue (several nodes on one PostgreSQL database): each liveness
// configuration's next due time, and the lease of the node that claimed its next run. Nodes claim due
// rows with FOR UPDATE SKIP LOCKED (repos/liveness-due.ts), run them and write the result with the
// next due time in one transaction fenced by `token` (it grows with every claim). A row with no due
// time is parked: its target is disabled; a change to the config, its endpoint or domain wakes it.
// One SQLite node keeps its due times in memory (scheduler/liveness.ts): there the table stays empty.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('liveness_due')
    .addColumn('config_id', T.text, (c) => c.primaryKey().references('liveness_configs.id').onDelete('cascade'))
    .addColumn('due_at', T.ms)
    // 1 until the config's first run: its second comes at a random point of the next interval.
    .addColumn('fresh', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('owner', T.text)
    .addColumn('lease_until', T.ms)
    .addColumn('token', T.ms, (c) => c.notNull().defaultTo(0))
    .execute();
  // What the claim reads: unleased rows by due time, and leases that ran out (a dead node's).
  await db.schema
    .createIndex('liveness_due_free')
    .on('liveness_due')
    .column('due_at')
    .where(sql.ref('owner'), 'is', null)
    .execute();
  await db.schema
    .createIndex('liveness_due_leased')
    .on('liveness_due')
    .column('lease_until')
    .where(sql.ref('owner'), 'is not', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
