// Roles per team (docs/accounts.md): a member is an owner, an editor or a viewer of the team; every
// member made before roles existed stays an owner, so nothing they could do changes. A token may
// carry a role of its own (null: its member's role) and an expiry (null: never); a token's
// effective role is the lower of the two, and a read-only token is a viewer.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('owner'))
    .execute();
  await db.schema.alterTable('api_tokens').addColumn('role', 'text').execute();
  await db.schema.alterTable('api_tokens').addColumn('expires_at', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
