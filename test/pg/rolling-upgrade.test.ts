// A rolling upgrade on PostgreSQL (issue 22 item 6): while a cluster upgrades, nodes of the previous
// version keep (re)starting on the schema a newer node migrated, because migrations only add. SQLite
// still refuses a file a newer release migrated (test/store/migrations.test.ts).
import t from 'tap';
import type { Migration } from 'kysely';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { openPgStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

const skip = pgServerUrl() ? false : PG_SKIP;
const names = Object.keys(MIGRATIONS).sort();
const only = (list: string[]): Record<string, Migration> => Object.fromEntries(list.map((k) => [k, MIGRATIONS[k]!]));

t.test('a node one migration behind starts on the newer schema and works', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'rolling'))!;
  const newer = await openPgStore(url);
  const team = await newer.teams.create('rolling', new Date().toISOString());
  await newer.close();

  const older = await openPgStore(url, { migrations: only(names.slice(0, -1)) });
  t.teardown(() => older.close());
  t.equal((await older.teams.byName('rolling'))?.id, team.id, 'it reads what the newer node wrote');
  const again = await older.teams.create('second', new Date().toISOString());
  t.ok(again.id, 'and writes');
  const applied = await older.db
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .execute();
  t.equal(applied.length, names.length, 'and applies nothing, undoes nothing');
});

t.test('a database that lacks a migration of this build and has an unknown one is refused', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'rollbad'))!;
  const first = await openPgStore(url, { migrations: only([names[0]!, names[2]!]) });
  await first.close();
  await t.rejects(
    openPgStore(url, { migrations: only(names.slice(0, 2)) }),
    new RegExp(`does not know \\(${names[2]}\\) and lacks some it needs \\(${names[1]}\\)`),
  );
});
