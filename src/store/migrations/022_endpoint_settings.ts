// An endpoint's own fields, the ones its type declares (a DNS check's record type and resolver, an
// ICMP check's count, ...), as one JSON object: the fields differ by type and grow with the
// plug-ins, and only the endpoint's probe reads them (no query filters on them).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('endpoints')
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
