// The store's contract, run against ':memory:' and a file: repositories scope by team, transactions
// commit or roll back as a whole, constraints hold (unique names, foreign keys, cascades), partial
// matches are literal, pagination is stable, and stamp() moves on every write.
import path from 'node:path';
import fs from 'node:fs';
import t from 'tap';
import { sql } from 'kysely';
import { openPgStore, openStore, type Store } from '../../src/store/index.js';
import { freshPgDatabase, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/app.js';

const NOW = '2026-01-01T00:00:00.000Z';
/** The engines word a constraint failure differently (SQLite: UNIQUE constraint failed; PostgreSQL: duplicate key ... unique constraint). */
const UNIQUE = /UNIQUE|unique constraint/;
const FOREIGN_KEY = /FOREIGN KEY|foreign key constraint/;

function domainRow(teamId: string, id: string, domain: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    team_id: teamId,
    domain,
    portfolio_id: null,
    notes: null,
    is_verified: 0,
    verified_at: null,
    verification_token: `dommon-verify-${id}`,
    health_score: null,
    health_grade: null,
    overall_status: null,
    exposure_monitoring_enabled: 0,
    expiry_override: null,
    dkim_selectors: '[]',
    created_at: NOW,
    updated_at: NOW,
    ...extra,
  };
}

async function contract(t: any, store: Store) {
  t.equal(await store.ping(), true);
  const a = await store.teams.create('alpha', NOW);
  const b = await store.teams.create('beta', NOW);
  t.equal((await store.teams.byName('alpha'))?.id, a.id);
  await t.rejects(store.teams.create('alpha', NOW), UNIQUE, 'team names are unique');

  // team scoping
  const stamp0 = store.stamp(['domains']);
  await store.domains.insert(domainRow(a.id, 'a1', 'example.com'));
  t.not(store.stamp(['domains']), stamp0, 'stamp moves on a write');
  t.equal(store.stamp(['portfolios']), store.stamp(['portfolios']), 'stamp is stable without writes');
  // raw statements move the stamp of the table they write, not every stamp
  const endpoints0 = store.stamp(['endpoints']);
  const schedule0 = store.stamp(['check_schedule']);
  await store.schedule.syncDomains('registration', NOW);
  t.not(store.stamp(['check_schedule']), schedule0, "a raw insert moves its table's stamp");
  t.equal(store.stamp(['endpoints']), endpoints0, "a raw insert leaves other tables' stamps alone");
  t.equal(await store.ping(), true);
  t.equal(store.stamp(['endpoints']), endpoints0, 'a raw select moves no stamp');
  // The table given as a parameter (`insert into ${sql.table(t)}`, the liveness aggregates on PostgreSQL).
  const meta0 = store.stamp(['meta']);
  await sql`insert into ${sql.table('meta')} (key, value) values ('contract.raw', '1')`.execute(store.db);
  t.not(store.stamp(['meta']), meta0, 'a raw insert into a table parameter moves that table');
  t.equal(store.stamp(['endpoints']), endpoints0, '... and no other');
  await store.domains.insert(domainRow(b.id, 'b1', 'example.com'));
  t.equal((await store.domains.get(a.id, 'a1'))?.domain, 'example.com');
  t.equal(await store.domains.get(b.id, 'a1'), undefined, "another team's id is not found");
  await t.rejects(store.domains.insert(domainRow(a.id, 'a2', 'example.com')), UNIQUE, 'unique within a team');

  // transactions commit or roll back as a whole
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.domains.insert(domainRow(a.id, 'a3', 'rolled-back.com'));
      throw new Error('abort');
    }),
    /abort/,
  );
  t.equal(await store.domains.get(a.id, 'a3'), undefined, 'rolled back');
  await store.transaction(async (tx) => {
    await tx.domains.insert(domainRow(a.id, 'a3', 'kept.com'));
    await tx.domains.insert(domainRow(a.id, 'a4', 'kept2.com'));
  });
  t.equal(await store.domains.count(a.id), 3);

  // foreign keys are enforced, and cascade
  await t.rejects(store.domains.insert(domainRow('no-team', 'x1', 'x.com')), FOREIGN_KEY);
  await store.endpoints.insert({
    id: 'e1',
    team_id: a.id,
    domain_id: 'a1',
    name: 'web',
    endpoint_type: 'https',
    subdomain: null,
    path: null,
    port: null,
    is_enabled: 1,
    timeout_seconds: 10,
    notes: null,
    created_at: NOW,
    updated_at: NOW,
  });
  await store.domains.remove(a.id, 'a1');
  t.equal(await store.endpoints.get(a.id, 'e1'), undefined, 'endpoint cascaded');

  // literal partial match and stable pagination
  for (let i = 0; i < 12; i++)
    await store.domains.insert(domainRow(a.id, `p${String(i).padStart(2, '0')}`, `page${i}.com`));
  await store.domains.insert(domainRow(a.id, 'lit', 'a_b.com'));
  t.equal((await store.domains.list(a.id, { domain: '_' }, { limit: 50, offset: 0 })).total, 1);
  t.equal((await store.domains.list(a.id, { domain: '%' }, { limit: 50, offset: 0 })).total, 0);
  t.equal(
    (await store.domains.list(a.id, { domain: 'PAGE1' }, { limit: 50, offset: 0 })).total,
    3,
    'case-insensitive: page1, page10, page11',
  );
  const pages = [];
  for (let off = 0; off < 20; off += 5)
    pages.push(...(await store.domains.list(a.id, {}, { limit: 5, offset: off })).items.map((d) => d.id));
  t.equal(pages.length, 15);
  t.equal(new Set(pages).size, 15, 'pages do not repeat or skip rows with equal created_at');
}

t.test(':memory:', async (t) => {
  const store = await openStore(':memory:');
  t.teardown(() => store.close());
  await contract(t, store);
});

t.test('PostgreSQL', { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP }, async (t) => {
  const url = (await freshPgDatabase(t, 'contract'))!;
  const store = await openPgStore(url);
  await contract(t, store);
  await store.close();
  // reopening sees what was committed
  const again = await openPgStore(url);
  t.equal(await again.domains.count((await again.teams.byName('alpha'))!.id), 15);
  await again.close();
});

t.test('file', async (t) => {
  const dir = tempDir('dommon-store-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'nested', 'dommon.db');
  const store = await openStore(file);
  await contract(t, store);
  await store.close();
  t.ok(fs.existsSync(file), 'directory and file created');
  // reopening sees what was committed
  const again = await openStore(file);
  t.equal(await again.domains.count((await again.teams.byName('alpha'))!.id), 15);
  await again.close();
});

t.test("another process's commit moves the stamp from the next event-loop turn on", async (t) => {
  const dir = tempDir('dommon-store-');
  const file = path.join(dir, 'dommon.db');
  const store = await openStore(file);
  const { default: Database } = await import('better-sqlite3');
  const other = new Database(file);
  t.teardown(async () => {
    other.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const before = store.stamp(['teams']);
  other.prepare("insert into teams (id, name, created_at) values ('t-other', 'other', ?)").run(NOW);
  t.equal(store.stamp(['teams']), before, 'the same turn shares one read of data_version');
  await new Promise((r) => setImmediate(r));
  const after = store.stamp(['teams']);
  t.not(after, before, 'the next turn sees the commit');
  t.equal(store.stamp(['domains']).split(':')[0], after.split(':')[0], 'for every table');
  await store.teams.create('mine', NOW);
  t.not(store.stamp(['teams']), after, "this connection's own write moves it at once");
});
