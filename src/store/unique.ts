// The store's one translation of an engine error into the domain's words: a write that hits a unique
// key fails with the domain's Duplicate (a Conflict), whether SQLite or PostgreSQL refused it, so no
// service knows an engine's error codes. Done once, in the Kysely driver both engines' queries run
// through (builder queries, reusingCompiled's raw SQL, transactions and the group commit's units).
import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { Duplicate } from '../domain/errors.js';

/** SQLite's unique-key failures (better-sqlite3's extended codes) and PostgreSQL's unique_violation. */
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

/** The table a unique-key failure names: node-postgres's `table`, or SQLite's "UNIQUE constraint failed: t.col". */
function tableOf(e: { table?: unknown; message?: unknown }): string | undefined {
  if (typeof e.table === 'string') return e.table;
  const m = typeof e.message === 'string' ? /constraint failed: ([A-Za-z_][A-Za-z0-9_]*)\./.exec(e.message) : null;
  return m?.[1];
}

/** The error as the store throws it: a Duplicate for a unique-key failure, anything else unchanged. */
function storeError(err: unknown): unknown {
  const e = err as { code?: unknown; table?: unknown; message?: unknown } | null;
  if (!e || typeof e.code !== 'string' || !UNIQUE_CODES.has(e.code)) return err;
  const dup = new Duplicate(tableOf(e));
  dup.cause = err;
  return dup;
}

/** A connection whose queries fail with storeError()'s errors. */
function mappedConnection(inner: DatabaseConnection): DatabaseConnection {
  return {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      try {
        return await inner.executeQuery<R>(query);
      } catch (err) {
        throw storeError(err);
      }
    },
    streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => inner.streamQuery<R>(query, chunkSize),
  };
}

/**
 * The driver of `dialect`, with each connection's queries mapped by storeError(). The driver's own
 * methods get its own connection back (PostgreSQL's releases it through a private member).
 */
class MappingDriver implements Driver {
  readonly #inner: Driver;
  readonly #outer = new WeakMap<DatabaseConnection, DatabaseConnection>();
  readonly #innerOf = new WeakMap<DatabaseConnection, DatabaseConnection>();
  constructor(inner: Driver) {
    this.#inner = inner;
  }
  #unwrap(c: DatabaseConnection): DatabaseConnection {
    return this.#innerOf.get(c) ?? c;
  }
  init(): Promise<void> {
    return this.#inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const c = await this.#inner.acquireConnection();
    let outer = this.#outer.get(c);
    if (!outer) {
      outer = mappedConnection(c);
      this.#outer.set(c, outer);
      this.#innerOf.set(outer, c);
    }
    return outer;
  }
  beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(this.#unwrap(c), settings);
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.commitTransaction(this.#unwrap(c));
    } catch (err) {
      throw storeError(err); // a deferred unique key is checked at commit
    }
  }
  rollbackTransaction(c: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(this.#unwrap(c));
  }
  async savepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.#inner.savepoint?.(this.#unwrap(c), name, compile);
  }
  async rollbackToSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#inner.rollbackToSavepoint?.(this.#unwrap(c), name, compile);
  }
  async releaseSavepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.#inner.releaseSavepoint?.(this.#unwrap(c), name, compile);
  }
  releaseConnection(c: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(this.#unwrap(c));
  }
  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

/** `dialect` with its driver's query errors mapped by storeError() (the store opens both engines through it). */
export function mappingStoreErrors(dialect: Dialect): Dialect {
  return {
    createDriver: () => new MappingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
