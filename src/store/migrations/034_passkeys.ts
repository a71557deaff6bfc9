// People sign in with passkeys (WebAuthn; docs/accounts.md#passkeys):
// - passkeys: the credentials an account registered. credential_id (base64url, unique: an
//   authenticator's id names one credential everywhere), the credential's COSE public key (base64url),
//   the signature counter the authenticator last reported, its transports (JSON list), the name the
//   person gave it, when it was made and last signed in. Deleting the account deletes its passkeys.
// - webauthn_challenges: the challenges handed out, each good once and until expires_at (epoch ms),
//   kept in the database so any node may check a response another node asked for. purpose is
//   `register` (with the account adding a passkey) or `sign-in` (no account: a discoverable sign-in).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('passkeys')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('account_id', T.text, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('credential_id', T.text, (c) => c.notNull().unique())
    .addColumn('public_key', T.text, (c) => c.notNull())
    .addColumn('sign_count', T.ms, (c) => c.notNull().defaultTo(0))
    .addColumn('transports', T.text, (c) => c.notNull())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('created_at', T.text, (c) => c.notNull())
    .addColumn('last_used_at', T.text)
    .execute();
  await db.schema.createIndex('passkeys_account').on('passkeys').column('account_id').execute();
  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('challenge', T.text, (c) => c.primaryKey())
    .addColumn('purpose', T.text, (c) => c.notNull())
    .addColumn('account_id', T.text, (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('expires_at', T.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webauthn_challenges_expiry').on('webauthn_challenges').column('expires_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
