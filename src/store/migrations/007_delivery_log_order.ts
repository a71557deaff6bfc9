// The delivery log is ordered by the time it shows (sent_at, the latest attempt), newest first.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('deliveries_team_sent').on('deliveries').columns(['team_id', 'sent_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
