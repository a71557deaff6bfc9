// The audit trail (docs/audit.md): one row per change a person or a token made, written in the
// transaction of the change. Read newest first per team (ids are UUIDv7, so id order is time order).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('audit_log')
    .addColumn('id', T.text, (c) => c.primaryKey())
    // No foreign key: the trail outlives what it names (a removed user, a deleted object).
    .addColumn('team_id', T.text, (c) => c.notNull())
    .addColumn('at', T.text, (c) => c.notNull())
    .addColumn('actor_user_id', T.text)
    .addColumn('actor_email', T.text)
    .addColumn('via', T.text, (c) => c.notNull())
    .addColumn('via_id', T.text)
    .addColumn('via_name', T.text)
    .addColumn('action', T.text, (c) => c.notNull())
    .addColumn('object_kind', T.text, (c) => c.notNull())
    .addColumn('object_id', T.text, (c) => c.notNull())
    .addColumn('object_name', T.text)
    .addColumn('before', T.text)
    .addColumn('after', T.text)
    .addColumn('request_id', T.text)
    .execute();
  await db.schema.createIndex('audit_log_team_id').on('audit_log').columns(['team_id', 'id']).execute();
  await db.schema
    .createIndex('audit_log_team_object')
    .on('audit_log')
    .columns(['team_id', 'object_kind', 'object_id', 'id'])
    .execute();
  // Retention deletes by age across teams.
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
