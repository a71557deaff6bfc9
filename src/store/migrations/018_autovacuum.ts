// Autovacuum where the tables' own upkeep already does the work (PostgreSQL only), to spend
// less of PostgreSQL's own CPU per check. The states and the hourly and daily sums are rewritten by every
// check as HOT updates (fillfactor 50, migration 016) whose dead versions PostgreSQL prunes on the
// page as it goes; vacuuming them whenever a fifth of their rows had changed (the default: about
// once a minute with a fleet checked every minute) re-read every page for little. They are vacuumed
// once as many dead versions as they hold rows were counted. The raw results' day partitions are
// only ever appended to and are dropped whole by retention: they are made without insert-driven
// vacuums (repos/retention.ts; a young day's partition was vacuumed every few thousand rows).
// Storage parameters only: additive, nodes of earlier versions run on it unchanged.
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';
import { UPDATED_IN_PLACE } from './016_fillfactor.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  for (const table of UPDATED_IN_PLACE)
    await sql`alter table ${sql.table(table)} set (autovacuum_vacuum_scale_factor = 1)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
