// The certificate chain each TLS inspection saw (leaf first: subject, issuer, serial, dates, SHA-256
// fingerprint, key type and size), as JSON: with the endpoint's current certificate and with each
// certificate of its history (the chain it was last seen with). Rows from before stay null (no chain known).
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema.alterTable('endpoint_certificates').addColumn('chain', T.text).execute();
  await db.schema.alterTable('certificate_history').addColumn('chain', T.text).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
