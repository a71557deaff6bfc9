// reusingCompiled: a query shape is built and compiled by Kysely once, later calls run the same SQL
// with their own parameters; the change tracker still sees every write; a shape whose compiled
// parameters are not exactly the call's values is never reused.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/store/index.js';
import { reusingCompiled } from '../../src/store/repos/util.js';
import { tempDir } from '../support/app.js';
import { domainRow } from '../support/rows.js';

const NOW = '2026-01-01T00:00:00.000Z';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'dommon.db'));
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

t.test('one build per shape; every call writes its own values and is counted', async (t) => {
  const store = await setup(t);
  const wrote: string[] = [];
  const run = reusingCompiled((text) => wrote.push(text));
  let builds = 0;
  const insert = (name: string, created: string) =>
    run(store.db, 'teams.insert', [`id-${name}`, name, created, 'UTC'], () => {
      builds++;
      return store.db.insertInto('teams').values({ id: `id-${name}`, name, created_at: created, timezone: 'UTC' });
    });
  const before = store.stamp(['teams']);
  await insert('a', NOW);
  t.equal(builds, 1);
  t.same(wrote, [], 'the first call is compiled through the plugins, which count it themselves');
  const afterFirst = store.stamp(['teams']);
  t.not(afterFirst, before);
  await insert('b', '2026-02-01T00:00:00.000Z');
  await insert("c'; drop table teams; --", NOW);
  t.equal(builds, 1, 'later calls reuse the SQL');
  t.equal(wrote.length, 2, 'and hand over the SQL they ran (the store passes it to the change tracker)');
  t.match(wrote[0], /^insert into "teams"/, 'whose first words name the table');
  const rows = await store.db.selectFrom('teams').select(['id', 'name', 'created_at']).orderBy('id').execute();
  t.same(
    rows,
    [
      { id: 'id-a', name: 'a', created_at: NOW },
      { id: 'id-b', name: 'b', created_at: '2026-02-01T00:00:00.000Z' },
      { id: "id-c'; drop table teams; --", name: "c'; drop table teams; --", created_at: NOW },
    ],
    'each call bound its own parameters (a quote stays a value)',
  );
});

t.test('a shape whose compiled parameters differ from the call is rebuilt every time', async (t) => {
  const store = await setup(t);
  const run = reusingCompiled(() => undefined);
  let builds = 0;
  // Claims two parameters, but the built query binds four: never reused.
  const wrong = (name: string) =>
    run(store.db, 'teams.wrong', [`id-${name}`, name], () => {
      builds++;
      return store.db.insertInto('teams').values({ id: `id-${name}`, name, created_at: NOW, timezone: 'UTC' });
    });
  await wrong('x');
  await wrong('y');
  t.equal(builds, 2);
  t.same(
    (await store.db.selectFrom('teams').select('name').orderBy('name').execute()).map((r) => r.name),
    ['x', 'y'],
  );
});

t.test('domain creates through the store: reused inserts, fresh stamps, schedule rows', async (t) => {
  const store = await setup(t);
  const team = await store.teams.create('ops', NOW);
  const stamps = new Set<string>();
  for (let i = 0; i < 5; i++) {
    await store.transaction(async (tx) => {
      const id = `d-${i}`;
      await tx.domains.insert(
        domainRow(
          { id, team_id: team.id, domain: `d${i}.example.com`, token: `dommon-verify-${i}`, at: NOW },
          { notes: i % 2 ? 'n' : null },
        ),
      );
      await tx.schedule.addTarget(['registration', 'security'], id, NOW);
    });
    stamps.add(store.stamp(['domains']));
  }
  t.equal(stamps.size, 5, 'every create moves the domains stamp (cached lists see it)');
  const page = await store.domains.list(team.id, {}, { limit: 10, offset: 0 });
  t.same(
    page.items.map((d) => [d.domain, d.notes]),
    [0, 1, 2, 3, 4].map((i) => [`d${i}.example.com`, i % 2 ? 'n' : null]),
  );
  t.equal((await store.db.selectFrom('check_schedule').select('kind').execute()).length, 10);
});
