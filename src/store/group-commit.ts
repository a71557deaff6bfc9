// Group commit: the transactions that start in the same turn of the event loop share one SQLite
// transaction and one COMMIT. Each one after the first runs inside its own SAVEPOINT, so a unit that
// fails rolls back only its own writes and rejects only its own caller (when the first fails, the
// group is rolled back, which holds nothing else yet, and the units queued behind it start over); a
// unit's promise resolves only after the COMMIT that contains it, so nothing is acknowledged before
// it is durable.
//
// Why: a COMMIT costs more than the writes of a typical unit (a domain create writes ~10 pages; the
// commit appends them all to the WAL and updates the WAL index). Under concurrent writes the units that
// are ready together now share the pages they touch in common (table and index tails, page 1) and the
// commit's fixed cost. With one writer at a time nothing changes but one setImmediate hop.
import { CompiledQuery, type ControlledTransaction, type Kysely } from 'kysely';
import type { DB } from './schema.js';

interface Ack {
  ok(): void;
  fail(err: unknown): void;
}

interface Batch<Tx> {
  /** The open transaction (BEGIN IMMEDIATE waits for the previous batch to release the connection). */
  ready: Promise<{ trx: ControlledTransaction<DB>; tx: Tx }>;
  /** The units that joined, run one after another. */
  tail: Promise<void>;
  size: number;
  acks: Ack[];
  /** Set when the first unit failed, or SQLite ended the transaction on its own (a failure it cannot roll back to a savepoint). */
  broken: boolean;
}

// Compiled once and run as is: no query building per unit, and the change tracker (a Kysely plugin
// that sees compiled queries only) never counts them as writes.
const SAVEPOINT = CompiledQuery.raw('savepoint unit');
const RELEASE = CompiledQuery.raw('release unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to unit');

interface GroupCommitOptions {
  /** Units per COMMIT at most; later ones start the next batch. */
  maxUnits?: number;
  /** Whether the connection is inside a transaction (better-sqlite3's `inTransaction`). */
  inTransaction: () => boolean;
}

export function groupCommit<Tx>(db: Kysely<DB>, bind: (trx: Kysely<DB>) => Tx, opts: GroupCommitOptions) {
  const maxUnits = opts.maxUnits ?? 64;
  let open: Batch<Tx> | null = null;

  function openBatch(): Batch<Tx> {
    const ready = db
      .startTransaction()
      .execute()
      .then((trx) => ({ trx, tx: bind(trx) }));
    ready.catch(() => undefined); // each unit sees a failed BEGIN through its own await
    const b: Batch<Tx> = { ready, tail: Promise.resolve(), size: 0, acks: [], broken: false };
    // Units that start before the next check phase join; then the batch commits.
    setImmediate(() => void close(b));
    return b;
  }

  async function close(b: Batch<Tx>): Promise<void> {
    if (open === b) open = null;
    await b.tail;
    let trx: ControlledTransaction<DB>;
    try {
      ({ trx } = await b.ready);
    } catch {
      return; // BEGIN failed: every unit was rejected with its error
    }
    if (b.broken) {
      // The first unit failed, or SQLite rolled the transaction back itself: the writes of the units
      // that had finished (none in the first case) are gone.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      for (const a of b.acks)
        a.fail(new Error('transaction rolled back by the database after a failure in the same commit group'));
      return;
    }
    try {
      await trx.commit().execute();
    } catch (err) {
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      for (const a of b.acks) a.fail(err);
      return;
    }
    for (const a of b.acks) a.ok();
  }

  /** `first`: the unit joined the batch first (units run in the order they joined). */
  async function runUnit<T>(
    b: Batch<Tx>,
    first: boolean,
    fn: (tx: Tx) => Promise<T>,
    resolve: (v: T) => void,
    reject: (e: unknown) => void,
  ): Promise<void> {
    if (b.broken) {
      // Never ran: start over in a fresh transaction.
      transaction(fn).then(resolve, reject);
      return;
    }
    // The first unit needs no savepoint: if it fails, the whole transaction is rolled back (nothing
    // else is in it yet) and the units queued behind it start over in a fresh one.
    let ctx: { trx: ControlledTransaction<DB>; tx: Tx };
    try {
      ctx = await b.ready;
      if (!first) await ctx.trx.executeQuery(SAVEPOINT);
    } catch (err) {
      reject(err);
      return;
    }
    try {
      const value = await fn(ctx.tx);
      if (!first) await ctx.trx.executeQuery(RELEASE);
      b.acks.push({ ok: () => resolve(value), fail: reject });
    } catch (err) {
      reject(err);
      if (!first && opts.inTransaction()) {
        try {
          await ctx.trx.executeQuery(ROLLBACK_TO);
          await ctx.trx.executeQuery(RELEASE);
          return;
        } catch {
          // fall through: treat the transaction as lost
        }
      }
      b.broken = true;
      if (open === b) open = null;
    }
  }

  function transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!open || open.size >= maxUnits) open = openBatch();
      const b = open;
      const first = b.size++ === 0;
      b.tail = b.tail.then(() => runUnit(b, first, fn, resolve, reject));
    });
  }

  return transaction;
}
