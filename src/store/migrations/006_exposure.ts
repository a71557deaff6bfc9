// Exposure scanning: names a user adds to a domain's inventory, and what a scan covered.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('exposure_subdomains')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', T.text, (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('created_at', T.text, (c) => c.notNull())
    .addUniqueConstraint('exposure_subdomains_domain_name', ['domain_id', 'name'])
    .execute();
  await db.schema
    .alterTable('exposure_scans')
    .addColumn('hosts', T.text, (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('exposure_scans')
    .addColumn('wildcard', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('exposure_scans')
    .addColumn('checks', T.text, (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createIndex('exposure_findings_team')
    .on('exposure_findings')
    .columns(['team_id', 'status', 'severity'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
