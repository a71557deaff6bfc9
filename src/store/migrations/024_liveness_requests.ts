// The request an HTTP check sends and how its answer is judged: method, headers, body, whether
// redirects are followed, Gatus-style conditions, and credentials (type, user name, and the secret
// sealed like the channel secrets). Additive only, with defaults that keep every existing
// configuration a plain GET judged by expected_status_code, so a node of the previous version keeps
// running on this schema during a rolling upgrade.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  const add = (name: string) => db.schema.alterTable('liveness_configs').addColumn(name, T.text).execute();
  await db.schema
    .alterTable('liveness_configs')
    .addColumn('method', T.text, (c) => c.notNull().defaultTo('GET'))
    .execute();
  await add('headers');
  await add('body');
  await db.schema
    .alterTable('liveness_configs')
    .addColumn('follow_redirects', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await add('conditions');
  await add('auth_type');
  await add('auth_username');
  await add('auth_secret');
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
