// A node's heartbeat also says how many of the runs it holds are regional (of its region's runs of
// configurations checked from several): the claim sums the live nodes' counts into the queue's size,
// each node's fair part of it, with no count of the due-queue's rows.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('nodes')
    .addColumn('work_regional', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
