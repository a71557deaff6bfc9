// liveness_results.detail: the numbers a check type records beside a result's status and time, as a
// JSON object with one key per type (an icmp check's packets sent and received, loss and round trips:
// domain/liveness.ts ResultDetail); null for every other result, and for every one written before.
// Additive only, so a node of the previous version keeps writing results during a rolling upgrade.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('liveness_results').addColumn('detail', columnTypes(db).text).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
