// The node list (several `dommon serve` processes on one PostgreSQL database): one row per node,
// written by the node itself every few seconds (its heartbeat), read by `dommon nodes` and
// GET /api/v1/nodes. On SQLite it holds the one serving process. And the outbox's fencing token: a
// delivery's lease_token grows with every claim, and a node writes an attempt only while the token it
// claimed with is still the row's.
import type { Kysely } from 'kysely';
import { columnTypes, engineOf } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  const float = engineOf(db) === 'postgres' ? 'double precision' : 'real';
  await db.schema
    .createTable('nodes')
    .addColumn('name', T.text, (c) => c.primaryKey())
    .addColumn('role', T.text, (c) => c.notNull())
    .addColumn('region', T.text, (c) => c.notNull())
    .addColumn('version', T.text, (c) => c.notNull())
    .addColumn('host', T.text, (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', T.text, (c) => c.notNull())
    .addColumn('last_heartbeat', T.text, (c) => c.notNull())
    .addColumn('work_claimed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checks_total', T.ms, (c) => c.notNull().defaultTo(0))
    .addColumn('checks_per_minute', float, (c) => c.notNull().defaultTo(0))
    // Comma list of the singleton jobs whose lock the node holds (retention, digests, sweep, rdap-bootstrap).
    .addColumn('singletons', T.text, (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('deliveries')
    .addColumn('lease_token', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
