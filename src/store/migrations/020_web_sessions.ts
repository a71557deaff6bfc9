// The web dashboard's server-side sessions and the failed-authentication counter:
// - web_sessions: one row per signed-in browser. The cookie holds a random id; only its SHA-256 is
//   stored, with the token it was made from (a revoked token, or a removed user, ends its sessions),
//   the last time it was used (idle expiry) and its absolute end. Every node reads the same rows.
// - auth_failures: failed sign-ins and bad credentials per client address and one-minute window,
//   shared by every node on one PostgreSQL database like rate_limits (services/auth-throttle.ts).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema
    .createTable('web_sessions')
    .addColumn('id_hash', T.text, (c) => c.primaryKey())
    .addColumn('token_id', T.text, (c) => c.notNull().references('api_tokens.id').onDelete('cascade'))
    .addColumn('created_at', T.ms, (c) => c.notNull())
    .addColumn('last_seen', T.ms, (c) => c.notNull())
    .addColumn('expires_at', T.ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_token').on('web_sessions').column('token_id').execute();
  await db.schema
    .createTable('auth_failures')
    .addColumn('client', T.text, (c) => c.notNull())
    .addColumn('window_start', T.ms, (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_failures_pk', ['window_start', 'client'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
