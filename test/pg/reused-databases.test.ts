// test/support/pg.ts hands a migrated database an app has finished with to the process's next app,
// emptied: nothing of the first app's is left, a database whose schema a test changed is dropped
// instead of reused, and so is one another session is still connected to.
import t from 'tap';
import pg from 'pg';
import { createPgDatabase, PG_SKIP, pgServerUrl, withPgClient } from '../support/pg.js';

const skip = pgServerUrl() ? false : PG_SKIP;

const exists = async (url: string) => {
  const name = new URL(url).pathname.slice(1);
  return withPgClient(
    pgServerUrl()!,
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
};

t.test('an emptied database goes to the next app; a changed or busy one is dropped', { skip }, async (t) => {
  const first = (await createPgDatabase('app', { migrated: true }))!;
  await withPgClient(first.url, async (c) => {
    await c.query(
      `insert into teams (id, name, timezone, created_at) values ('t1', 'ops', 'UTC', '2030-01-01T00:00:00.000Z')`,
    );
    // a day partition as retention makes them
    await c.query(
      `create table liveness_results_p20300101 partition of liveness_results for values from (1893456000000) to (1893542400000)`,
    );
  });
  await first.drop();
  t.ok(await exists(first.url), 'kept after its app');

  const second = (await createPgDatabase('app', { migrated: true }))!;
  t.equal(second.url, first.url, 'the next app takes it');
  await withPgClient(second.url, async (c) => {
    t.equal((await c.query('select count(*)::int as n from teams')).rows[0].n, 0, 'no row of the first app');
    t.equal(
      (await c.query(`select count(*)::int as n from pg_inherits where inhparent = 'liveness_results'::regclass`))
        .rows[0].n,
      1,
      'only the default partition',
    );
    t.equal((await c.query('select is_locked from kysely_migration_lock')).rows[0].is_locked, 0, 'migration lock free');
    await c.query('alter table teams add column test_only text');
  });
  await second.drop();
  t.notOk(await exists(second.url), 'a database whose schema changed is dropped');

  const third = (await createPgDatabase('app', { migrated: true }))!;
  t.not(third.url, first.url, 'a new copy');
  const held = new pg.Client({ connectionString: third.url });
  await held.connect();
  // The drop ends the session: its client hears of it (an error, then the end).
  held.on('error', () => undefined);
  const ended = new Promise((r) => held.once('end', r));
  await third.drop();
  await ended;
  t.notOk(await exists(third.url), 'a database another session still uses is dropped (the session closed)');
  await held.end().catch(() => undefined);
});
