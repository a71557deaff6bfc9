// Operator tokens: a token the operator marks with `dommon token create --operator`
// may read the node details of GET /api/v1/nodes (host names, pids, versions); every other token
// sees only counts and regions (docs/scale-out.md).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_tokens')
    .addColumn('operator', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
