// One-time links (docs/accounts.md#one-time-links): a set-up link (the first owner), a sign-in link
// (`dommon users add`), an invitation (an owner invites an e-mail with a role) and a password reset.
// The secret is only in the link; the table keeps its SHA-256 (`token_hash`). A link is bound to what
// it may do: an account, a membership (user_id), or an e-mail + team + role; it ends at `expires_at`
// (epoch ms) and once used (`used_at`), and with the account, membership or team it names.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('one_time_links')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('token_hash', T.text, (c) => c.notNull().unique())
    .addColumn('purpose', T.text, (c) => c.notNull())
    .addColumn('email', T.text)
    .addColumn('account_id', T.text, (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('team_id', T.text, (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('user_id', T.text, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('role', T.text)
    .addColumn('created_by', T.text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', T.ms, (c) => c.notNull())
    .addColumn('expires_at', T.ms, (c) => c.notNull())
    .addColumn('used_at', T.ms)
    .execute();
  await db.schema.createIndex('one_time_links_team').on('one_time_links').columns(['team_id', 'purpose']).execute();
  await db.schema.createIndex('one_time_links_account').on('one_time_links').column('account_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
