import { v7 as uuidv7 } from 'uuid';
import { randomBytesPooled } from '../../platform/random.js';
import { CompiledQuery, type Compilable, type Expression, type Kysely, type SqlBool, sql } from 'kysely';

/**
 * Row ids are UUIDv7 (RFC 9562): 48 bits of milliseconds, then random bits. Consecutive ids sort
 * together, so a new row's entry in every id index (primary keys, the foreign-key indexes of child
 * rows, the schedule) lands on the index's last page instead of a random one: a group commit of
 * eight domain creates writes 26-29 pages instead of 46-58. Ids made in the same millisecond count up
 * (so a bulk create lists in its input order) and still carry 42 random bits; ids were never secrets
 * anyway (another team's id answers 404).
 *
 * The uuid package lays out the bits; the random bytes come from the pool (platform/random.ts), so the
 * counter that uuid keeps for its own random source is kept here: a new millisecond starts it at a
 * random 31-bit value (as uuid does), and each further id in the same millisecond adds one.
 */
let lastMs = -1;
let seq = 0;
export function newId(): string {
  const random = randomBytesPooled(16);
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    seq = random.readUInt32BE(6) & 0x7fffffff;
  } else {
    // uuid's 32-bit counter: should it wrap around to 0 within one millisecond, borrow the next one (as uuid does)
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++;
  }
  return uuidv7({ random, msecs: lastMs, seq });
}
export const toBool = (v: number | null | undefined): boolean => v === 1;
export const fromBool = (v: boolean): number => (v ? 1 : 0);

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * Case-insensitive partial match where %, _ and \ in the needle match themselves. Both sides are
 * lower-cased: SQLite's LIKE ignores ASCII case but PostgreSQL's does not, so `lower() like lower()`
 * means the same on both engines.
 */
export function containsLiteral(column: string, needle: string): Expression<SqlBool> {
  const escaped = needle.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${`%${escaped}%`}) escape '\\'`;
}

/** Drops undefined keys so a partial update only touches what was given. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Runs a query of one fixed shape with the SQL Kysely compiled for it the first time. `shape` names
 * the shape (a statement and its column list), `params` are this call's values in the order the
 * compiled query binds them. The first call of a shape builds and compiles the query, so its SQL comes
 * from the dialect and the plugins see it. Later calls skip the query builder and compile step (about
 * a third of a domain create's Kysely time) and run the same SQL text with their own parameters. The
 * change tracker's plugin sees compiled queries only, so `wrote` hands it the SQL that ran. A shape whose
 * first compilation does not bind exactly `params`, in that order, is never reused.
 */
export function reusingCompiled(wrote: (sqlText: string) => void) {
  const texts = new Map<string, string>();
  return async function run(
    db: Pick<Kysely<unknown>, 'executeQuery'>,
    shape: string,
    params: readonly unknown[],
    build: () => Compilable,
  ): Promise<void> {
    const text = texts.get(shape);
    if (text !== undefined) {
      await db.executeQuery(CompiledQuery.raw(text, params as unknown[]));
      wrote(text);
      return;
    }
    const compiled = build().compile();
    if (compiled.parameters.length === params.length && compiled.parameters.every((p, i) => p === params[i]))
      texts.set(shape, compiled.sql);
    await db.executeQuery(compiled);
  };
}

export type ReusingCompiled = ReturnType<typeof reusingCompiled>;

/**
 * PostgreSQL only: the rows of `table` whose id is one of `ids`, each found by one primary-key probe,
 * as a FROM item named `alias` (a LATERAL fenced by OFFSET 0). For a claim round's few hundred ids
 * its planner, at the default random_page_cost, otherwise answers an `in` list or a join by scanning
 * the whole table once the fleet is large.
 */
export const probedByKey = (table: 'endpoints' | 'liveness_configs', ids: readonly string[], alias: string) =>
  sql`unnest(${[...ids]}::text[]) as k(id)
    cross join lateral (select * from ${sql.table(table)} x where x.id = k.id offset 0) ${sql.raw(alias)}`;

/**
 * Every column of a table's row type, checked at compile time: a column added to the table's
 * interface and left out here fails the build. For statements that name their result columns (a
 * prepared statement must not return `*`: docs in prepared.ts).
 */
export const allColumns =
  <T>() =>
  <const L extends readonly (keyof T & string)[]>(
    columns: L & ([Exclude<keyof T, L[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, L[number]> }),
  ): L =>
    columns;

/** `alias.column as prefixcolumn, ...`: two tables' columns in one result row without clashes. */
export const prefixedColumns = (alias: string, columns: readonly string[], prefix: string) =>
  sql.raw(columns.map((c) => `${alias}.${c} as ${prefix}${c}`).join(', '));

/** The columns of one table back out of a row of prefixedColumns(). */
export function unprefixed<T>(row: Record<string, unknown>, columns: readonly (keyof T & string)[], prefix: string): T {
  return Object.fromEntries(columns.map((c) => [c, row[prefix + c]])) as T;
}
