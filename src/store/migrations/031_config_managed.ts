// Objects a configuration file manages (`dommon serve --config`, docs/configuration-file.md): one row
// per object of a kind the file holds (portfolio, channel, domain, endpoint, liveness, status_page,
// maintenance_window), naming the file. The API refuses to change such an object unless `editable`
// (the file's own `editable: true`). A row outlives its object harmlessly (ids are never reused); the
// next apply of the file drops it.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('config_managed')
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('object_id', T.text, (c) => c.notNull())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('source', T.text, (c) => c.notNull())
    .addColumn('editable', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('config_managed_pkey', ['kind', 'object_id'])
    .execute();
  await db.schema
    .createIndex('config_managed_team_source')
    .on('config_managed')
    .columns(['team_id', 'source'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
