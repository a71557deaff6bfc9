// `dommon db copy --to TARGET` (CONTRACT "Past one machine"): every row of one store into an empty
// one, SQLite to PostgreSQL and back (and SQLite to SQLite); a target that holds data is refused and
// left untouched; the counts are printed and verified. Data is made through the real API on SQLite,
// read back through the API of a daemon started on the copy (the same token authenticates), and the
// round trip PostgreSQL -> SQLite gives back the same rows.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import t, { type Test } from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { client, startApp, tempDir } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { openConnection } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { DEFAULT_REGION } from '../../src/domain/liveness.js';

t.setTimeout(240_000);
t.before(ensureBuilt);

const DAY = 86_400_000;

/** Tables no worker of a started daemon writes to (schedules, health, token use do change): compared row for row. */
const STILL = [
  'teams',
  'users',
  'portfolios',
  'endpoints',
  'liveness_configs',
  'liveness_results',
  'liveness_hourly',
  'liveness_daily',
  'notification_settings',
];

/** A SQLite install made through the API: 2 domains, 3 endpoints, 2 liveness configs with 3 days of results, a notification setting. */
async function seed(t: Test, dataDir: string) {
  const s = await startApp({}, { dataDir });
  const token = await s.token('ops', 'ops@example.com');
  const api = client(s.url, token);
  const p = (await api.post('/api/v1/portfolios', { name: 'main' })).body;
  const d1 = (await api.post('/api/v1/domains', { domain: 'example.com', portfolio_id: p.id })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'Example.ORG', notes: 'ünïcode ✓' })).body;
  const e1 = (await api.post('/api/v1/endpoints', { domain_id: d1.id, name: 'web', endpoint_type: 'http' })).body;
  const e2 = (await api.post('/api/v1/endpoints', { domain_id: d1.id, name: 'api', endpoint_type: 'http' })).body;
  t.equal(
    (await api.post('/api/v1/endpoints', { domain_id: d2.id, name: 'mx', endpoint_type: 'port', port: 25 })).status,
    201,
  );
  const l1 = (await api.post('/api/v1/liveness', { endpoint_id: e1.id, is_enabled: false })).body;
  const l2 = (await api.post('/api/v1/liveness', { endpoint_id: e2.id, is_enabled: false, interval_seconds: 30 })).body;
  const set = await api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook', secret_key: 'supersecretvalue' },
  });
  t.equal(set.status, 200, 'notification setting saved');
  // Raw results over the last 3 days (more than one batch of 1,000), through the store's write path.
  const store = s.app.store;
  const seqs = await store.db.selectFrom('liveness_configs').select(['id', 'seq']).execute();
  const seqOf = (id: string) => seqs.find((x) => x.id === id)!.seq;
  const now = Date.now();
  const rows: {
    cfg: number;
    ts: number;
    ok: boolean;
    ms: number;
    status: number | null;
    error: string | null;
    region: string;
  }[] = [];
  for (const [cfg, step] of [
    [seqOf(l1.id), 180_000],
    [seqOf(l2.id), 300_000],
  ] as const)
    for (let ts = now - 3 * DAY; ts < now; ts += step)
      rows.push({ cfg, ts, ok: ts % 7 !== 0, ms: 10 + (ts % 90), status: 200, error: null, region: DEFAULT_REGION });
  // PostgreSQL takes no NUL character in text (a probe's error text may hold one): the copy drops it.
  rows.push({
    cfg: seqOf(l1.id),
    ts: now - 1000,
    ok: false,
    ms: 12,
    status: null,
    error: 'bad\u0000byte',
    region: DEFAULT_REGION,
  });
  await store.transaction((tx) => tx.livenessData.addResults(rows));
  const reads = await snapshot(api, [l1.id, l2.id]);
  await s.app.stop();
  return { token, liveness: [l1.id, l2.id], reads, results: rows.length };
}

/** What the API answers about the seeded data (fields the daemon's workers move are left out). */
async function snapshot(api: ReturnType<typeof client>, liveness: string[]) {
  const get = async (p: string) => {
    const r = await api.get(p);
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  const domains = (await get('/api/v1/domains')).data.map((d: Record<string, unknown>) => ({
    id: d.id,
    domain: d.domain,
    notes: d.notes,
    portfolio_id: d.portfolio_id,
    verification_token: d.verification_token,
    created_at: d.created_at,
  }));
  const endpoints = (await get('/api/v1/endpoints')).data.map((e: Record<string, unknown>) => ({
    id: e.id,
    name: e.name,
    endpoint_type: e.endpoint_type,
    port: e.port,
    created_at: e.created_at,
  }));
  const results: { error?: string | null }[] = [];
  for (const id of liveness) {
    for (let offset = 0; ; offset += 100) {
      const page = await get(`/api/v1/liveness/${id}/results?hours=96&limit=100&offset=${offset}`);
      const items = Array.isArray(page) ? page : page.data;
      results.push(...items);
      if (items.length < 100) break;
    }
  }
  return {
    domains,
    endpoints,
    portfolios: await get('/api/v1/portfolios'),
    liveness: await get('/api/v1/liveness'),
    settings: await get('/api/v1/notifications/settings'),
    results,
  };
}

/** Every row of the still tables of a SQLite file, in key order. */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(STILL.map((tb) => [tb, db.prepare(`select * from ${tb} order by 1, 2`).all()]));
  } finally {
    db.close();
  }
}

/** The source's rows as they arrive on PostgreSQL: NUL dropped from text. */
function fitted(rows: Record<string, unknown[]>): Record<string, unknown[]> {
  return {
    ...rows,
    liveness_results: rows.liveness_results!.map((r) => {
      const x = r as { error: string | null };
      return { ...x, error: x.error?.replaceAll('\u0000', '') ?? null };
    }),
  };
}

t.test('SQLite to SQLite: a data directory copied, read back through the API, a full target refused', async (t) => {
  const root = tempDir('dommon-dbcopy-');
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const src = path.join(root, 'src');
  const seeded = await seed(t, src);
  const before = fs.readFileSync(path.join(src, 'dommon.db'));

  const dst = path.join(root, 'dst');
  // Small batches: the results table takes several (keyset pages on SQLite).
  const r = await cli(['--json', '--data-dir', src, 'db', 'copy', '--to', dst, '--batch-size', '500']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '', 'no progress bar off a terminal');
  t.match(r.json, {
    from: path.join(src, 'dommon.db'),
    to: path.join(dst, 'dommon.db'),
    engines: { from: 'sqlite', to: 'sqlite' },
    verified: true,
  });
  t.match(r.json.counts, {
    teams: 1,
    users: 1,
    api_tokens: 1,
    portfolios: 1,
    domains: 2,
    endpoints: 3,
    liveness_configs: 2,
    liveness_results: seeded.results,
    notification_settings: 1,
  });
  t.equal(
    r.json.rows,
    Object.values(r.json.counts as Record<string, number>).reduce((a, b) => a + b, 0),
  );
  t.notOk('kysely_migration' in r.json.counts, 'the migrations bookkeeping is the target own');
  t.ok(Object.keys(r.json.counts).indexOf('teams') < Object.keys(r.json.counts).indexOf('domains'), 'parents first');
  t.same(fs.readFileSync(path.join(src, 'dommon.db')), before, 'the source file was not written to');
  t.same(dump(path.join(dst, 'dommon.db')), dump(path.join(src, 'dommon.db')), 'the same rows');
  t.notOk(fs.existsSync(path.join(dst, 'dommon.pid')), 'the target lock is released');
  // Channel secrets travel sealed; the key that opens them goes with them into the target data directory.
  t.match(r.json.secret_key, `the key that opens them was copied to ${path.join(dst, 'secret.key')}`);
  t.same(fs.readFileSync(path.join(dst, 'secret.key')), fs.readFileSync(path.join(src, 'secret.key')));
  t.equal(fs.statSync(path.join(dst, 'secret.key')).mode & 0o777, 0o600);

  // The copy serves: the same token authenticates and the API reads the same.
  const s = await startApp({}, { dataDir: dst });
  const api = client(s.url, seeded.token);
  t.same(await snapshot(api, seeded.liveness), seeded.reads, 'the API answers the same on the copy');

  // A target holding data is refused (exit 4, one line) and left as it was.
  await s.app.stop();
  const full = await cli(['--data-dir', src, 'db', 'copy', '--to', `sqlite:${dst}`]);
  t.equal(full.code, 4);
  t.match(
    full.stderr,
    /^dommon: the target .*dst\/dommon\.db already holds data \(table \w+\): copy into an empty database\n$/,
  );
  // The source itself, a bad target, a missing source.
  const same = await cli(['--data-dir', src, 'db', 'copy', '--to', path.join(src, 'dommon.db')]);
  t.equal(same.code, 2);
  t.match(same.stderr, /is the source/);
  const size = await cli(['--data-dir', src, 'db', 'copy', '--to', path.join(root, 'y.db'), '--batch-size', '0']);
  t.equal(size.code, 2);
  t.match(size.stderr, /--batch-size must be a whole number/);
  const bad = await cli(['--data-dir', src, 'db', 'copy', '--to', 'mysql://x@localhost/db']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--to must be a postgres:\/\/ URL, a sqlite: URL or a path/);
  const none = await cli(['--data-dir', path.join(root, 'nothing'), 'db', 'copy', '--to', path.join(root, 'x.db')]);
  t.equal(none.code, 3);
  t.match(none.stderr, /holds no dommon database/);
  t.notOk(fs.existsSync(path.join(root, 'x.db')), 'nothing made for a missing source');

  // A copy that fails half-way (a row the target's foreign keys refuse: an endpoint of no domain,
  // written to the source with its checks off) leaves the target migrated and empty.
  const orphan = path.join(root, 'orphan');
  fs.mkdirSync(orphan);
  fs.copyFileSync(path.join(src, 'dommon.db'), path.join(orphan, 'dommon.db'));
  const raw = new Database(path.join(orphan, 'dommon.db'));
  raw.pragma('foreign_keys = OFF');
  raw
    .prepare(
      `insert into endpoints (id, team_id, domain_id, name, endpoint_type, created_at, updated_at)
       select 'zz-orphan', team_id, 'no-such-domain', 'x', 'http', created_at, updated_at from endpoints limit 1`,
    )
    .run();
  raw.close();
  const half = await cli(['--data-dir', orphan, 'db', 'copy', '--to', path.join(root, 'half'), '--batch-size', '100']);
  t.equal(half.code, 1);
  t.match(
    half.stderr,
    /^dommon: copying table endpoints: FOREIGN KEY constraint failed; nothing was written to \S+half\/dommon\.db\n$/,
  );
  const left = new Database(path.join(root, 'half', 'dommon.db'), { readonly: true });
  const tables = left
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite%'`)
    .all() as { name: string }[];
  t.ok(tables.length > 20, 'the target was migrated');
  t.same(
    tables.filter(
      ({ name }) =>
        !name.startsWith('kysely_') &&
        (left.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n > 0,
    ),
    [],
    'and holds no row',
  );
  left.close();
  const retry = await cli(['--data-dir', src, 'db', 'copy', '--to', path.join(root, 'half')]);
  t.equal(retry.code, 0, 'so the copy can simply be run again');

  // A source behind this version (a migration pending) or ahead of it (one this version does not know).
  const old = path.join(root, 'old');
  const conn = await openConnection(path.join(old, 'dommon.db'), {
    migrations: { '001_initial': MIGRATIONS['001_initial']! },
  });
  await conn.close();
  const behind = await cli(['--data-dir', old, 'db', 'copy', '--to', path.join(root, 'old-copy')]);
  t.equal(behind.code, 4);
  t.match(
    behind.stderr,
    /has pending migrations \(006_exposure, 007_delivery_log_order(, \d{3}_\w+)*\): run `dommon migrate` on it first/,
  );
  const newer = new Database(path.join(old, 'dommon.db'));
  newer.prepare(`insert into kysely_migration (name, timestamp) values ('999_future', 'x')`).run();
  newer.close();
  const ahead = await cli(['--data-dir', old, 'db', 'copy', '--to', path.join(root, 'old-copy')]);
  t.equal(ahead.code, 4);
  t.match(ahead.stderr, /was migrated by a newer dommon \(unknown: 999_future\)/);

  // A daemon serving the target directory (its pid in dommon.pid): refused; one serving the source: a warning.
  const busy = path.join(root, 'busy');
  fs.mkdirSync(busy);
  fs.writeFileSync(path.join(busy, 'dommon.pid'), `${process.pid}\n`);
  const held = await cli(['--data-dir', src, 'db', 'copy', '--to', busy]);
  t.equal(held.code, 4);
  t.match(held.stderr, `a dommon daemon (pid ${process.pid}) is serving ${busy}: stop it before copying into it`);
  t.notOk(fs.existsSync(path.join(busy, 'dommon.db')));
  fs.writeFileSync(path.join(src, 'dommon.pid'), `${process.pid}\n`);
  const beside = await cli(['--data-dir', src, 'db', 'copy', '--to', path.join(root, 'beside.db')]);
  t.equal(beside.code, 0, beside.stderr);
  t.match(
    beside.stderr,
    `a dommon daemon (pid ${process.pid}) is serving ${src}: what it writes from now on is not copied`,
  );
  t.ok(fs.existsSync(path.join(root, 'beside.db')), 'a file target');
});

t.test(
  'SQLite to PostgreSQL and back: the API reads the same, tokens authenticate, the rows come back',
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const root = tempDir('dommon-dbcopy-');
    t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
    const src = path.join(root, 'src');
    const seeded = await seed(t, src);
    const url = (await freshPgDatabase(t, 'copy'))!;
    const withPassword = new URL(url);
    withPassword.password = 'copy-s3cret';

    const r = await cli([
      '--json',
      '--data-dir',
      src,
      'db',
      'copy',
      '--to',
      withPassword.toString(),
      '--batch-size',
      '500',
    ]);
    t.equal(r.code, 0, r.stderr);
    t.match(r.json, { engines: { from: 'sqlite', to: 'postgres' }, verified: true });
    t.match(r.json.to, /^postgres:\/\/dommon:\*\*\*@127\.0\.0\.1:\d+\/dommon_copy_/);
    t.notMatch(r.stdout + r.stderr, /copy-s3cret/, 'the password is never printed');
    t.match(r.json.counts, { domains: 2, endpoints: 3, liveness_results: seeded.results, api_tokens: 1 });

    // Each day of results went into its own day partition, none into the default one.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    t.teardown(() => c.end());
    const parts = await c.query(`select c.relname as name, (select count(*) from liveness_results_default) as d
      from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname = 'liveness_results' and c.relname like 'liveness_results_d2%'`);
    t.equal(parts.rows.length, 4, 'a partition for each of the 4 days holding results');
    t.equal(Number(parts.rows[0].d), 0, 'nothing in the default partition');
    const odd = await c.query(`select ms, error from liveness_results where error like 'bad%'`);
    t.same(odd.rows, [{ ms: 12, error: 'badbyte' }], 'the NUL dropped');

    // A daemon on the copy: the same token authenticates and the API reads the same. Its channel
    // secrets came sealed: the report says the target's nodes need this key, and with it they read.
    t.match(r.json.secret_key, `every node of the target needs the key ${path.join(src, 'secret.key')}`);
    const s = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_SECRET_KEY_FILE: path.join(src, 'secret.key') });
    const api = client(s.url, seeded.token);
    const reads = await snapshot(api, seeded.liveness);
    t.same(reads.domains, seeded.reads.domains);
    t.same(reads.endpoints, seeded.reads.endpoints);
    t.same(reads.liveness, seeded.reads.liveness);
    t.same(reads.settings, seeded.reads.settings);
    t.same(reads.portfolios, seeded.reads.portfolios);
    t.equal(reads.results.length, seeded.reads.results.length);
    t.same(
      reads.results.filter((x) => !x.error?.startsWith('bad')),
      seeded.reads.results.filter((x) => !x.error?.startsWith('bad')),
      'the results read the same',
    );
    await s.app.stop();

    // A target that holds data: refused, exit 4, and nothing was written (the counts are as they were).
    const before = await c.query('select count(*)::int as n from domains');
    const again = await cli(['--data-dir', src, 'db', 'copy', '--to', url]);
    t.equal(again.code, 4);
    t.match(again.stderr, /already holds data/);
    t.same((await c.query('select count(*)::int as n from domains')).rows, before.rows);

    // Back: PostgreSQL -> a new SQLite file, the same rows (as fitted on the way in).
    const back = path.join(root, 'back.db');
    // Several fetches from one cursor on PostgreSQL.
    const b = await cli([
      '--json',
      '--database-url',
      url,
      'db',
      'copy',
      '--to',
      `sqlite://${back}`,
      '--batch-size',
      '700',
    ]);
    t.equal(b.code, 0, b.stderr);
    t.match(b.json, { to: back, engines: { from: 'postgres', to: 'sqlite' } });
    t.same(dump(back), fitted(dump(path.join(src, 'dommon.db'))), 'the round trip gives back the same rows');
    const human = await cli(['--data-dir', src, 'db', 'copy', '--to', path.join(root, 'human')]);
    t.equal(human.code, 0, human.stderr);
    t.match(human.stdout, /^liveness_results\s+\d+$/m);
    t.match(human.stdout, /copied \d+ rows from .* to .*human\/dommon\.db in [\d.]+ s; counts verified/);
  },
);
