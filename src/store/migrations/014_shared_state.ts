// State several `dommon serve` nodes on one PostgreSQL database share:
// - rate_limits: the per-team request counter of each one-minute window. Nodes take slices of the
//   team's budget from it (one upsert per slice) and spend them locally (services/rate-limit.ts).
// - exposure_scans.node: the node that runs a scan, so that a node starting up marks failed only its
//   own interrupted scans (and those of nodes that are dead), not scans another live node is running.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('rate_limits')
    .addColumn('team_id', T.text, (c) => c.notNull())
    .addColumn('window_start', T.ms, (c) => c.notNull())
    .addColumn('claimed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pk', ['team_id', 'window_start'])
    .execute();
  await db.schema.alterTable('exposure_scans').addColumn('node', T.text).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
