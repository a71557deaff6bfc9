// The delivery workers' claim (`notifications.claim`): the due deliveries, oldest first, up to a limit.
// Under `deliveries_due` (status, next_attempt_at) the two claimable statuses are two ranges, so the
// database read every due row of both and sorted them for each claim: 15 ms a claim on PostgreSQL with
// 20,000 queued (test/pg/outbox.test.ts), growing with the backlog. This index holds the claimable rows
// alone, in due order: a claim reads from its start and stops at its limit (docs/notifications.md).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index deliveries_claimable on deliveries (next_attempt_at) where status in ('queued', 'partial')`.execute(
    db,
  );
}
