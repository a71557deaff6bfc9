// Read-only API tokens (docs/security.md): a token with read_only set may read but every write it
// sends is refused with 403 READ_ONLY_TOKEN. Tokens created before this migration keep full access.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_tokens')
    .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
