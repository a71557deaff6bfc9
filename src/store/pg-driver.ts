// node-postgres loads when a PostgreSQL connection is first made, not with the store's modules: a
// command on a SQLite file does not pay for it (docs/benchmarks.md, "The command line").
import type pg from 'pg';

let driver: typeof pg | undefined;

/** The `pg` module (CommonJS: read from `default`, as the bundle offers it). */
export async function pgDriver(): Promise<typeof pg> {
  driver ??= (await import('pg')).default;
  return driver;
}
