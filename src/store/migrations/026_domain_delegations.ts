// The nameserver watch (docs/nameserver-watch.md): each domain's delegation as its parent zone's
// servers last gave it (NS names and DS records as JSON lists), when it last changed, and the last
// look-up's failure. No row: never looked at.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('domain_delegations')
    .addColumn('domain_id', T.text, (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('zone', T.text, (c) => c.notNull())
    .addColumn('parent_zone', T.text)
    .addColumn('nameservers', T.text)
    .addColumn('ds', T.text)
    .addColumn('checked_at', T.text)
    .addColumn('changed_at', T.text)
    .addColumn('error', T.text)
    .addColumn('error_at', T.text)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
