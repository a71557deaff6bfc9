// The raw liveness results lose their foreign key to liveness_configs (PostgreSQL only): its check
// ran for every row a check writes (a query per row, and a row lock on the config that writes to
// the WAL), the largest part of a result's insert, and of PostgreSQL's own CPU per check. What
// the key's ON DELETE CASCADE did is done by a statement-level trigger on liveness_configs: a
// statement that deletes configs (one, or a whole domain's through the endpoints' cascade) deletes
// their results in one statement. Whether a result may be written is already decided by its lease
// (the due-queue row goes with its config) or, without one, by the config being read in the
// batch's transaction. A result committed in the instant its config is deleted may outlive it until
// its day's partition is dropped (retention); nothing reads results without their config.
// Additive for a rolling upgrade: a node of an earlier version writes and deletes as before.
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`create or replace function dommon_liveness_results_cascade() returns trigger
    language plpgsql as $$
    begin
      delete from liveness_results r using gone g where r.cfg = g.seq;
      return null;
    end
    $$`.execute(db);
  await sql`create trigger liveness_results_cascade after delete on liveness_configs
    referencing old table as gone for each statement execute function dommon_liveness_results_cascade()`.execute(db);
  await sql`alter table liveness_results drop constraint if exists liveness_results_cfg_fkey`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
