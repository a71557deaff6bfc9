// People sign in with an e-mail and a password (docs/accounts.md):
// - accounts: one row per person; the e-mail is unique (stored case-folded), the password only as a
//   scrypt hash with its parameters ($scrypt$ln=..,r=..,p=..$salt$hash, so they can be raised later);
//   null until the person sets one. A disabled account signs nobody in and its sessions stop at once.
// - users.account_id: which account a membership (one person in one team) belongs to. Null for a
//   member made before accounts, or by a token alone: such a member has no password sign-in.
// - web_sessions: a session is made either from an API token (token_id, as before) or by a password
//   sign-in (user_id: the membership, i.e. the team the session acts in). Exactly one of the two is
//   set. Deleting the membership or its team deletes its sessions.
import { sql, type Kysely } from 'kysely';
import { columnTypes, engineOf } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('accounts')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('email', T.text, (c) => c.notNull().unique())
    .addColumn('password_hash', T.text)
    .addColumn('created_at', T.text, (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('account_id', T.text, (c) => c.references('accounts.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('users_account').on('users').column('account_id').execute();

  if (engineOf(db) === 'postgres') {
    await sql`alter table web_sessions alter column token_id drop not null`.execute(db);
    await db.schema
      .alterTable('web_sessions')
      .addColumn('user_id', T.text, (c) => c.references('users.id').onDelete('cascade'))
      .execute();
  } else {
    // SQLite cannot drop a NOT NULL: the table is made anew and its rows copied (live sessions stay).
    await db.schema
      .createTable('web_sessions_new')
      .addColumn('id_hash', T.text, (c) => c.primaryKey())
      .addColumn('token_id', T.text, (c) => c.references('api_tokens.id').onDelete('cascade'))
      .addColumn('created_at', T.ms, (c) => c.notNull())
      .addColumn('last_seen', T.ms, (c) => c.notNull())
      .addColumn('expires_at', T.ms, (c) => c.notNull())
      .addColumn('user_id', T.text, (c) => c.references('users.id').onDelete('cascade'))
      .execute();
    await sql`insert into web_sessions_new (id_hash, token_id, created_at, last_seen, expires_at)
      select id_hash, token_id, created_at, last_seen, expires_at from web_sessions`.execute(db);
    await db.schema.dropTable('web_sessions').execute();
    await db.schema.alterTable('web_sessions_new').renameTo('web_sessions').execute();
    await db.schema.createIndex('web_sessions_token').on('web_sessions').column('token_id').execute();
  }
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
