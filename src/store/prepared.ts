// Prepared statements on PostgreSQL for the statements every node runs several times a second (the
// due-queue's claim and release, a results batch's reads and writes). Their text is the same on every
// run (batches travel as arrays, not as lists of parameters), so each connection parses them once and
// the server plans them from its cache instead of parsing and planning every call.
//
// A statement asks for it by ending with PREPARED; the pool's clients then send it as a named
// statement (node-postgres keeps which names each connection has parsed). Only statements of a fixed
// text may end so (a text per call would leave a prepared statement per call on the connection), and
// only with explicit result columns (a `select *` cached across a migration that adds a column fails).
import crypto from 'node:crypto';
import type pg from 'pg';
import { sql } from 'kysely';

const MARK = '/* prepared */';

/** Appended to a statement of a fixed text: parsed once per connection on PostgreSQL (a comment on SQLite). */
export const PREPARED = sql.raw(` ${MARK}`);

const names = new Map<string, string>();
const nameOf = (text: string): string => {
  let name = names.get(text);
  if (!name) {
    name = `dommon_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
};

type Query = (text: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * A parameter as PostgreSQL can store it: its text and jsonb types cannot hold U+0000, which SQLite's
 * can, and a value with one failed its whole statement (a 500, or a results batch lost). Text from
 * outside (a probed server's answer, a WHOIS record, a DNS TXT record, a job's ping) may carry one:
 * it is kept with U+FFFD in its place. (Requests to the API refuse the character: api/json-limits.ts.)
 */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  if (!Array.isArray(value)) return value;
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const v = value[i] as unknown;
    const c = storable(v);
    if (c !== v) (out ??= value.slice())[i] = c;
  }
  return out ?? value;
}

/**
 * Makes a pool client send statements ending with PREPARED as named (prepared) statements, and every
 * statement's parameters without U+0000 (`storable`).
 */
export function preparingStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  (client as unknown as { query: Query }).query = (text, values, callback) => {
    const params = Array.isArray(values) ? storable(values) : values;
    return typeof text === 'string' && callback === undefined && Array.isArray(params) && text.endsWith(MARK)
      ? query({ name: nameOf(text), text, values: params })
      : query(text, params, callback);
  };
}
