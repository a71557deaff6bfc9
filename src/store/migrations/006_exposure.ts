// Exposure scanning: names a user adds to a domain's inventory, and what a scan covered.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('exposure_subdomains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('exposure_subdomains_domain_name', ['domain_id', 'name'])
    .execute();
  await db.schema.alterTable('exposure_scans').addColumn('hosts', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('exposure_scans').addColumn('wildcard', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('exposure_scans').addColumn('checks', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.createIndex('exposure_findings_team').on('exposure_findings').columns(['team_id', 'status', 'severity']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
