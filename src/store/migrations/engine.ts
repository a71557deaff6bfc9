// What a migration needs to know of the engine it runs on: one numbered sequence serves SQLite and
// PostgreSQL, with the few differences named here.
import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely } from 'kysely';

type DataTypeExpression = Parameters<CreateTableBuilder<any, any>['addColumn']>[1];

type Engine = 'sqlite' | 'postgres';

export const engineOf = (db: Kysely<any>): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

interface ColumnTypes {
  /** Text. On PostgreSQL compared byte by byte (COLLATE "C"), as SQLite does: ISO timestamps, names and ids sort alike on both. */
  text: DataTypeExpression;
  /** Epoch milliseconds (int8 on PostgreSQL; SQLite's integer is 8 bytes already). */
  ms: DataTypeExpression;
}

/** SQLite's types are exactly what its schema has always had, so an old file and a new one are the same. */
export function columnTypes(db: Kysely<any>): ColumnTypes {
  return engineOf(db) === 'postgres' ? { text: sql`text collate "C"`, ms: 'bigint' } : { text: 'text', ms: 'integer' };
}
