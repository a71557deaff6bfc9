// Group commit: transactions started in the same turn share one SQLite transaction and one COMMIT,
// each in its own savepoint. A unit's promise resolves only once its COMMIT is done (another
// connection sees its rows), a failing unit takes back only its own writes (the first unit of a group,
// which runs without a savepoint, takes the group back and the others start over), and a unit whose failure
// ended the whole transaction fails the finished units of its group and re-runs the ones after it.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../support/app.js';
import { domainRow } from '../support/rows.js';
import { Duplicate } from '../../src/domain/errors.js';

const NOW = '2026-01-01T00:00:00.000Z';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const dir = tempDir();
  const file = path.join(dir, 'dommon.db');
  const store = await openStore(file);
  const other = new Database(file, { readonly: true });
  t.teardown(async () => {
    other.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const team = await store.teams.create('ops', NOW);
  const seen = (name: string) => !!other.prepare('select 1 from domains where domain = ?').get(name);
  /** Every committed domain name, as another connection reads them. */
  const stored = () => other.prepare('select domain from domains order by domain').pluck().all();
  return { store, team, seen, stored };
}

const row = (teamId: string, name: string) =>
  domainRow({ id: crypto.randomUUID(), team_id: teamId, domain: name, token: `dommon-verify-${name}`, at: NOW });

const create = (store: Store, teamId: string, name: string) =>
  store.transaction(async (tx) => (await tx.domains.insert(row(teamId, name))).domain);

t.test('units started together share one commit, and each resolves only after it', async (t) => {
  const { store, team, seen } = await setup(t);
  const insideSecond: boolean[] = [];
  const first = create(store, team.id, 'a.com');
  const second = store.transaction(async (tx) => {
    await tx.domains.insert(row(team.id, 'b.com'));
    // Same group: a.com is written on this connection but not committed, so another connection misses it.
    insideSecond.push(seen('a.com'), !!(await tx.domains.byName(team.id, 'a.com')));
    return 'b.com';
  });
  const firstDone = first.then((v) => ({ v, both: seen('a.com') && seen('b.com') }));
  t.same(await firstDone, { v: 'a.com', both: true }, 'a.com resolves once the commit holding both is done');
  t.equal(await second, 'b.com');
  t.same(insideSecond, [false, true], "the second unit ran inside the first one's open transaction");

  // 150 at once: more than one group (64 units each at most); every one committed.
  const names = Array.from({ length: 150 }, (_, i) => `bulk-${i}.com`);
  t.same(await Promise.all(names.map((n) => create(store, team.id, n))), names);
  t.ok(names.every(seen), 'all 150 visible to another connection');
  t.equal(await store.domains.count(team.id), 152);
});

t.test('a failing unit takes back only its own writes and rejects only its own caller', async (t) => {
  const { store, team, seen, stored } = await setup(t);
  const results = await Promise.allSettled([
    create(store, team.id, 'keep-1.com'),
    store.transaction(async (tx) => {
      await tx.domains.insert(row(team.id, 'undone.com'));
      throw new Error('business rule says no');
    }),
    // A constraint failure inside SQLite: the unique (team, name) index.
    create(store, team.id, 'keep-1.com'),
    create(store, team.id, 'keep-2.com'),
  ]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  t.match((results[1] as PromiseRejectedResult).reason.message, 'business rule says no');
  t.ok((results[2] as PromiseRejectedResult).reason instanceof Duplicate, 'the unique key: a Duplicate');
  t.ok(seen('keep-1.com') && seen('keep-2.com'), 'the others committed');
  t.notOk(seen('undone.com'), "the failed unit's insert was rolled back");
  t.same(stored(), ['keep-1.com', 'keep-2.com']);
});

t.test('the first unit of a group fails: the units queued behind it start over and commit', async (t) => {
  const { store, team, seen, stored } = await setup(t);
  await create(store, team.id, 'taken.com');
  const results = await Promise.allSettled([
    // First in its group, no savepoint: its failure rolls the whole (still empty) transaction back.
    create(store, team.id, 'taken.com'),
    create(store, team.id, 'next-1.com'),
    store.transaction(async (tx) => {
      await tx.domains.insert(row(team.id, 'next-2.com'));
      return tx.domains.count(team.id);
    }),
  ]);
  t.same(
    results.map((r) => r.status),
    ['rejected', 'fulfilled', 'fulfilled'],
  );
  t.ok((results[0] as PromiseRejectedResult).reason instanceof Duplicate, 'the unique key: a Duplicate');
  t.equal((results[2] as PromiseFulfilledResult<number>).value, 3, 'the re-run unit saw next-1.com in its new group');
  t.ok(seen('next-1.com') && seen('next-2.com'));
  t.same(stored(), ['next-1.com', 'next-2.com', 'taken.com']);
});

t.test('a unit whose failure ends the whole transaction: finished units fail, later ones run again', async (t) => {
  const { store, team, seen } = await setup(t);
  const results = await Promise.allSettled([
    create(store, team.id, 'before.com'),
    store.transaction(async (tx) => {
      await tx.domains.insert(row(team.id, 'breaker.com'));
      // What SQLite does on some errors (SQLITE_FULL, SQLITE_NOMEM): the transaction is gone.
      await sql`rollback`.execute(tx.db);
      throw new Error('disk full');
    }),
    create(store, team.id, 'after.com'),
  ]);
  t.equal(results[0]!.status, 'rejected', 'the unit that finished before it is not acknowledged');
  t.match((results[0] as PromiseRejectedResult).reason.message, /rolled back/);
  t.notOk(seen('before.com'), 'and indeed not stored');
  t.match((results[1] as PromiseRejectedResult).reason.message, 'disk full');
  t.equal(results[2]!.status, 'fulfilled', 'the unit queued after it ran in a fresh transaction');
  t.ok(seen('after.com'));
  t.notOk(seen('breaker.com'));
  // The store is still usable.
  t.equal(await create(store, team.id, 'later.com'), 'later.com');
  t.ok(seen('later.com'));
});

t.test('savepoints are not writes: a read-only transaction leaves the change stamps alone', async (t) => {
  const { store, team } = await setup(t);
  const before = store.stamp(['domains', 'meta', 'api_tokens']);
  await store.transaction(async (tx) => tx.domains.count(team.id));
  t.equal(store.stamp(['domains', 'meta', 'api_tokens']), before);
  await create(store, team.id, 'x.com');
  t.not(store.stamp(['domains']), before, 'a write still moves them');
});
