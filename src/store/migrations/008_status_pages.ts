// Public status pages (docs/status-pages.md): one page per slug, owned by a team and showing
// endpoints of one portfolio that the owner listed, each under an optional public display name.
// The events index serves the page's incidents (an endpoint's down/recovery events by time).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('status_pages')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('portfolio_id', T.text, (c) => c.notNull().references('portfolios.id').onDelete('cascade'))
    .addColumn('slug', T.text, (c) => c.notNull().unique())
    .addColumn('title', T.text, (c) => c.notNull())
    .addColumn('description', T.text)
    .addColumn('show_certificates', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', T.text, (c) => c.notNull())
    .addColumn('updated_at', T.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('status_pages_team_created')
    .on('status_pages')
    .columns(['team_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createTable('status_page_endpoints')
    .addColumn('status_page_id', T.text, (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('endpoint_id', T.text, (c) => c.notNull().references('endpoints.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('display_name', T.text)
    .addPrimaryKeyConstraint('status_page_endpoints_pk', ['status_page_id', 'endpoint_id'])
    .execute();
  await db.schema
    .createIndex('status_page_endpoints_endpoint')
    .on('status_page_endpoints')
    .column('endpoint_id')
    .execute();
  await db.schema.createIndex('events_endpoint_created').on('events').columns(['endpoint_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
