// Maintenance windows (docs/maintenance-windows.md): a team's one-off or recurring windows and what
// each covers (endpoint, domain and portfolio ids as JSON lists). An event raised while a window
// covered its endpoint names the window and is never fanned out to a channel.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('maintenance_windows')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('starts_at', T.text)
    .addColumn('ends_at', T.text)
    .addColumn('cron', T.text)
    .addColumn('duration_minutes', 'integer')
    .addColumn('timezone', T.text, (c) => c.notNull().defaultTo('UTC'))
    .addColumn('endpoint_ids', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('domain_ids', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('portfolio_ids', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', T.text, (c) => c.notNull())
    .addColumn('updated_at', T.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('maintenance_windows_team_created')
    .on('maintenance_windows')
    .columns(['team_id', 'created_at', 'id'])
    .execute();
  await db.schema.alterTable('events').addColumn('maintenance_window_id', T.text).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
