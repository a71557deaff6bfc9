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
import { domainRow } from '../support/rows.js';
import { Conflict, Duplicate } from '../../src/domain/errors.js';

const NOW = '2026-01-01T00:00:00.000Z';
const FOREIGN_KEY = /FOREIGN KEY|foreign key constraint/;

const row = (teamId: string, id: string, domain: string, extra: Parameters<typeof domainRow>[1] = {}) =>
  domainRow({ id, team_id: teamId, domain, at: NOW }, extra);

/**
 * A write hitting a unique key fails with the domain's Duplicate (a Conflict, code ALREADY_EXISTS) on
 * either engine, naming the table, never with the engine's own error.
 */
async function duplicate(t: any, write: Promise<unknown>, table: string, what: string) {
  const err = await write.then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof Duplicate, `${what}: Duplicate`);
  t.ok(err instanceof Conflict, `${what}: a Conflict`);
  t.match(err, { meaning: 'conflict', code: 'ALREADY_EXISTS', table }, what);
  t.notMatch(String((err as Error)?.message), /UNIQUE|unique constraint|duplicate key/, `${what}: no engine words`);
}

async function contract(t: any, store: Store) {
  t.equal(await store.ping(), true);
  const a = await store.teams.create('alpha', NOW);
  const b = await store.teams.create('beta', NOW);
  t.equal((await store.teams.byName('alpha'))?.id, a.id);
  await duplicate(t, store.teams.create('alpha', NOW), 'teams', 'team names are unique');

  // team scoping
  const stamp0 = store.stamp(['domains']);
  await store.domains.insert(row(a.id, 'a1', 'example.com'));
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
  await store.domains.insert(row(b.id, 'b1', 'example.com'));
  t.equal((await store.domains.get(a.id, 'a1'))?.domain, 'example.com');
  t.equal(await store.domains.get(b.id, 'a1'), undefined, "another team's id is not found");
  await duplicate(t, store.domains.insert(row(a.id, 'a2', 'example.com')), 'domains', 'unique within a team');
  // the same inside a transaction (rolled back as a whole, the store usable after it) and on an update
  await duplicate(
    t,
    store.transaction(async (tx) => {
      await tx.domains.insert(row(a.id, 'a2', 'other-name.com'));
      await tx.domains.insert(row(a.id, 'a5', 'example.com'));
    }),
    'domains',
    'in a transaction',
  );
  t.equal(await store.domains.get(a.id, 'a2'), undefined, 'the transaction with the duplicate rolled back');
  await store.domains.insert(row(a.id, 'a2', 'renamed.com'));
  await duplicate(
    t,
    store.domains.update(a.id, 'a2', { domain: 'example.com' }),
    'domains',
    'an update onto a taken key',
  );
  await store.domains.remove(a.id, 'a2');

  // transactions commit or roll back as a whole
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.domains.insert(row(a.id, 'a3', 'rolled-back.com'));
      throw new Error('abort');
    }),
    /abort/,
  );
  t.equal(await store.domains.get(a.id, 'a3'), undefined, 'rolled back');
  await store.transaction(async (tx) => {
    await tx.domains.insert(row(a.id, 'a3', 'kept.com'));
    await tx.domains.insert(row(a.id, 'a4', 'kept2.com'));
  });
  t.equal(await store.domains.count(a.id), 3);

  // foreign keys are enforced, and cascade
  await t.rejects(store.domains.insert(row('no-team', 'x1', 'x.com')), FOREIGN_KEY);
  await store.endpoints.insert({
    id: 'e1',
    team_id: a.id,
    domain_id: 'a1',
    name: 'web',
    endpoint_type: 'https',
    subdomain: null,
    path: null,
    port: null,
    is_enabled: true,
    timeout_seconds: 10,
    notes: null,
    created_at: NOW,
    updated_at: NOW,
  });
  await store.domains.remove(a.id, 'a1');
  t.equal(await store.endpoints.get(a.id, 'e1'), undefined, 'endpoint cascaded');

  // literal partial match and stable pagination
  for (let i = 0; i < 12; i++) await store.domains.insert(row(a.id, `p${String(i).padStart(2, '0')}`, `page${i}.com`));
  await store.domains.insert(row(a.id, 'lit', 'a_b.com'));
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

  await encoding(t, store, a.id);
}

/**
 * The store owns ids and encoding: what goes in as the domain's types (booleans, lists, objects)
 * comes back the same on either engine, and a new row's id is the store's (UUIDv7).
 */
async function encoding(t: any, store: Store, teamId: string) {
  const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const d = await store.domains.insert({
    team_id: teamId,
    domain: 'encoded.com',
    portfolio_id: null,
    notes: null,
    is_verified: true,
    verified_at: NOW,
    verification_token: 'dommon-verify-encoded',
    health_score: null,
    health_grade: null,
    overall_status: null,
    exposure_monitoring_enabled: false,
    expiry_override: null,
    dkim_selectors: ['s1', 'google'],
    created_at: NOW,
    updated_at: NOW,
  });
  t.match(d.id, UUID7, 'a domain id made by the store');
  t.match(await store.domains.get(teamId, d.id), {
    is_verified: true,
    exposure_monitoring_enabled: false,
    dkim_selectors: ['s1', 'google'],
  });
  await store.domains.update(teamId, d.id, {
    exposure_monitoring_enabled: true,
    is_verified: false,
    dkim_selectors: [],
  });
  t.match(await store.domains.get(teamId, d.id), {
    is_verified: false,
    exposure_monitoring_enabled: true,
    dkim_selectors: [],
  });

  const endpointId = await store.endpoints.insert({
    team_id: teamId,
    domain_id: d.id,
    name: 'api',
    endpoint_type: 'https',
    subdomain: 'api',
    path: null,
    port: null,
    is_enabled: false,
    timeout_seconds: 10,
    notes: null,
    created_at: NOW,
    updated_at: NOW,
  });
  t.match(endpointId, UUID7, 'an endpoint id made by the store');
  t.equal((await store.endpoints.get(teamId, endpointId))?.is_enabled, false);
  await store.endpoints.update(teamId, endpointId, { is_enabled: true });
  t.equal((await store.endpoints.get(teamId, endpointId))?.is_enabled, true);

  const portfolioId = await store.portfolios.insert({
    team_id: teamId,
    name: 'Encoded',
    description: null,
    created_at: NOW,
    updated_at: NOW,
  });
  const pageId = await store.statusPages.insert({
    team_id: teamId,
    portfolio_id: portfolioId,
    slug: 'encoded',
    title: 'Encoded',
    description: null,
    show_certificates: false,
    enabled: true,
    created_at: NOW,
    updated_at: NOW,
  });
  t.match(await store.statusPages.get(teamId, pageId), { show_certificates: false, enabled: true });
  await store.statusPages.update(teamId, pageId, { show_certificates: true, enabled: false });
  t.match(await store.statusPages.get(teamId, pageId), { show_certificates: true, enabled: false });

  const deliveryId = await store.notifications.addDelivery({
    team_id: teamId,
    event_id: null,
    setting_id: null,
    channel: 'webhook',
    recipient: 'https://example.com/hook',
    is_test: true,
    request: { subject: 'Über', user_id: 'u1' },
    status: 'queued',
    next_attempt_at: NOW,
    metadata: { ticket: 42, tags: ['a'] },
    created_at: NOW,
  });
  t.match(deliveryId, UUID7, 'a delivery id made by the store');
  t.match(await store.notifications.delivery(deliveryId!), {
    is_test: true,
    request: { subject: 'Über', user_id: 'u1' },
    metadata: { ticket: 42, tags: ['a'] },
  });

  const node = {
    name: 'node-a',
    role: 'all',
    region: 'default',
    version: '0.0.0',
    host: 'h',
    pid: 1,
    started_at: NOW,
    last_heartbeat: NOW,
    work_claimed: 0,
    checks_total: 0,
    checks_per_minute: 0,
  };
  await store.nodes.heartbeat({ ...node, singletons: ['retention', 'digests'] });
  t.same((await store.nodes.get('node-a'))?.singletons, ['retention', 'digests']);
  await store.nodes.heartbeat({ ...node, singletons: [] });
  t.same((await store.nodes.get('node-a'))?.singletons, []);

  // leaves the team's domain count as the callers check it
  await store.statusPages.remove(teamId, pageId);
  await store.domains.remove(teamId, d.id);
  await store.portfolios.remove(teamId, portfolioId);
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
