// Singleton jobs (retention, digests, health sweep, RDAP bootstrap refresh; issue #22 item 3) on one
// PostgreSQL database shared by several nodes: exactly one node holds each job's advisory lock, and
// another takes it over when the holder's session ends: a clean stop, a session killed on the
// server, and a daemon killed with SIGKILL.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import pg from 'pg';
import { startApp, tempDir, type TestApp } from '../support/app.js';
import { serveDaemon } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { LOCK_CLASS, SINGLETONS } from '../../src/store/singletons.js';
import { createBootstrapStore } from '../../src/probes/rdap.js';
import { sharedBootstrapRefresh } from '../../src/services/bootstrap.js';

t.setTimeout(180_000);
const skip = pgServerUrl() ? false : PG_SKIP;
const ALL = [...SINGLETONS];

/** Which node (by the lock connection's application_name) holds each singleton lock, read from pg_locks. */
async function holders(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ objid: number; app: string }>(
      `select l.objid::int as objid, a.application_name as app from pg_locks l join pg_stat_activity a on a.pid = l.pid
       where l.locktype = 'advisory' and l.classid = $1 and l.granted and l.database = (select oid from pg_database where datname = current_database())`,
      [LOCK_CLASS],
    );
    const by = new Map(r.rows.map((row) => [SINGLETONS[row.objid - 1]!, row.app.replace('dommon singletons ', '')]));
    // In SINGLETONS order, so that two answers compare as JSON.
    return Object.fromEntries(SINGLETONS.filter((s) => by.has(s)).map((s) => [s, by.get(s)!]));
  } finally {
    await c.end();
  }
}

let holdersOf: (() => Promise<Record<string, string>>) | undefined;

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 20_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await ok()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${ms} ms (locks: ${JSON.stringify(await holdersOf?.())})`);
}

const everyTo = (name: string) => Object.fromEntries(ALL.map((s) => [s, name]));

t.test('two nodes in one process: one holds every singleton, the other takes over', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'single'))!;
  holdersOf = () => holders(url);
  const open = new Set<TestApp>();
  t.teardown(async () => {
    for (const a of open) await a.close();
  });
  const start = async (name: string) => {
    const a = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'worker', DOMMON_NODE_NAME: name });
    open.add(a);
    return a;
  };
  const a = await start('n-a');
  const b = await start('n-b');
  t.same(a.app.singletons.held(), ALL, 'the first node holds every singleton');
  t.same(b.app.singletons.held(), [], 'the second holds none');
  t.same(await holders(url), everyTo('n-a'), 'pg_locks agrees');
  let ran = false;
  t.equal(
    await b.app.singletons.run('retention', async () => {
      ran = true;
      return 1;
    }),
    null,
    'a job on a node without its lock does not run',
  );
  t.equal(ran, false);
  t.equal(await a.app.singletons.run('retention', async () => 'ran'), 'ran', 'on the holder it runs');
  await a.app.heartbeat.beat();
  await b.app.heartbeat.beat();
  const rows = await a.app.services.nodes.list();
  t.same(
    rows.data.map((n) => [n.name, n.singletons]),
    [
      ['n-a', ALL],
      ['n-b', []],
    ],
    'the node list shows who runs what',
  );

  // The holder's lock session dies (as when its process is killed): a job running there is told, and
  // the other node takes every lock at its next attempt.
  const running = a.app.singletons.run(
    'retention',
    (lost) => new Promise<string>((resolve) => lost.addEventListener('abort', () => resolve('aborted'))),
  );
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'dommon singletons n-a'`,
  );
  await admin.end();
  t.equal(await running, 'aborted', 'the running job on the old holder is aborted');
  const took = await until(
    'n-b takes over',
    async () => JSON.stringify(await holders(url)) === JSON.stringify(everyTo('n-b')),
  );
  t.ok(took < 12_000, `n-b holds every lock ${took} ms after n-a's session ended`);
  await until('n-b knows', () => b.app.singletons.held().length === ALL.length);
  t.same(a.app.singletons.held(), [], 'n-a knows it lost them');
  await new Promise((r) => setTimeout(r, 6000));
  t.same(await holders(url), everyTo('n-b'), 'n-a reconnects but does not get them back while n-b lives');

  // A clean stop hands them back.
  await b.close();
  open.delete(b);
  const back = await until(
    'n-a takes over again',
    async () => JSON.stringify(await holders(url)) === JSON.stringify(everyTo('n-a')),
  );
  t.ok(back < 12_000, `n-a holds every lock ${back} ms after n-b stopped`);
});

t.test('two daemons: kill -9 of the holder, the other takes over', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'singled'))!;
  holdersOf = () => holders(url);
  const dirs = [tempDir(), tempDir()];
  t.teardown(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const env = (name: string) => ({ DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: name, DOMMON_ROLE: 'worker' });
  const first = await serveDaemon(['--data-dir', dirs[0]!], env('d1'));
  t.teardown(() => (first.child.exitCode === null ? first.stop() : undefined));
  await until('d1 holds every lock', async () => JSON.stringify(await holders(url)) === JSON.stringify(everyTo('d1')));
  const second = await serveDaemon(['--data-dir', dirs[1]!], env('d2'));
  t.teardown(() => second.stop());
  await new Promise((r) => setTimeout(r, 1000));
  t.same(await holders(url), everyTo('d1'), 'd2 started: d1 still holds every lock');

  first.child.kill('SIGKILL');
  const took = await until(
    'd2 takes over',
    async () => JSON.stringify(await holders(url)) === JSON.stringify(everyTo('d2')),
  );
  t.ok(took < 12_000, `d2 holds every lock ${took} ms after d1 was killed`);
  t.comment(`takeover after kill -9: ${took} ms`);
});

t.test('the RDAP bootstrap: the holder asks IANA once, the other node takes its copy', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'boot'))!;
  let hits = 0;
  const iana = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ publication: '2026-05-01T00:00:00Z', services: [[['zz'], ['https://rdap.zz.test/']]] }));
  });
  await new Promise<void>((r) => iana.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => iana.close(() => r())));
  const ianaUrl = `http://127.0.0.1:${(iana.address() as AddressInfo).port}/dns.json`;
  const nodes = [];
  for (const name of ['b-1', 'b-2']) {
    const a = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'worker', DOMMON_NODE_NAME: name });
    t.teardown(() => a.close());
    const bootstrap = createBootstrapStore({ dataDir: a.dataDir, url: ianaUrl });
    const refresh = sharedBootstrapRefresh({
      bootstrap,
      store: a.app.store,
      locks: a.app.singletons,
      log: pino({ level: 'silent' }),
    });
    nodes.push({ a, bootstrap, refresh });
  }
  const [one, two] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  t.same(one.a.app.singletons.held(), ALL);
  const now = new Date('2026-06-01T00:00:00Z');
  t.ok(two.bootstrap.stale(now), 'both shipped copies are older than a week');
  await one.refresh(now);
  t.equal(hits, 1, 'the holder asks IANA');
  t.equal(one.bootstrap.baseFor('example.zz'), 'https://rdap.zz.test/');
  await two.refresh(now);
  t.equal(hits, 1, 'the node without the lock does not ask IANA');
  t.equal(two.bootstrap.baseFor('example.zz'), 'https://rdap.zz.test/', "the other node took the holder's copy");
  t.equal(two.bootstrap.fetchedAt(), now.toISOString());
  t.notOk(two.bootstrap.stale(now));
  t.notOk(two.bootstrap.adopt(one.bootstrap.saved()), 'a copy no newer than ours is not taken again');
  t.notOk(two.bootstrap.adopt('{"services": 1}'), 'nor an invalid one');
});
