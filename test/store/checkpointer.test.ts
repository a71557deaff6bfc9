// WAL checkpoints on a worker thread: while it runs, commits never checkpoint (the connection's
// automatic checkpoint is off) and the worker copies every committed frame back into the database
// file; stop() runs a last checkpoint and gives the connection its automatic checkpoint back. The
// thread starts with the first checkpoint: a daemon that never needs one never starts it.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../support/app.js';
import { domainRow } from '../support/rows.js';
import { sql } from 'kysely';

const NOW = '2026-01-01T00:00:00.000Z';

/** A domain row of about a kilobyte: a few of them fill a WAL page. */
const kilobyteRow = (teamId: string, i: number) =>
  domainRow({ id: `d${i}`, team_id: teamId, domain: `n${i}.example.com`, at: NOW }, { notes: 'x'.repeat(800) });

/** A store on a new file (closed at the test's end unless `keepOpen`), with one team. */
async function fileStore(t: Test, keepOpen = false) {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dommon.db');
  const store = await openStore(file);
  if (!keepOpen) t.teardown(() => store.close());
  const team = await store.teams.create('ops', NOW);
  return { file, store, team };
}

const autocheckpoint = async (store: Store) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0]!.wal_autocheckpoint;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (ok: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await sleep(10);
};

t.test('a worker thread checkpoints what the daemon connection commits', async (t) => {
  const { file, store, team } = await fileStore(t);
  // A long interval: the test takes the checkpoint itself with now().
  const cp = store.backgroundCheckpoints({ intervalMs: 600_000 })!;
  t.ok(cp, 'a file database gets a checkpointer');
  t.equal(await autocheckpoint(store), 0, 'commits no longer checkpoint');

  // ~3,000 pages of WAL: past the 1,000-page threshold where a commit would have checkpointed itself.
  for (let i = 0; i < 3000; i++) {
    await store.domains.insert(kilobyteRow(team.id, i));
  }
  const walPages = fs.statSync(`${file}-wal`).size / 4096;
  t.ok(walPages > 2000, `no commit checkpointed: the WAL holds every page written (${Math.round(walPages)} pages)`);
  const st = await cp.now();
  t.equal(st.failures, 0);
  t.ok(st.lastLog > 2000, `the worker saw the whole WAL (${st.lastLog} frames)`);
  t.equal(st.lastCheckpointed, st.lastLog, 'and copied every frame back');

  // What the worker copied is in the main file: a reader that ignores the WAL sees the rows.
  const copy = path.join(path.dirname(file), 'copy.db');
  fs.copyFileSync(file, copy);
  const ro = new Database(copy, { readonly: true });
  t.equal(
    (ro.prepare('select count(*) as n from domains').get() as { n: number }).n,
    3000,
    'the database file alone holds every committed row',
  );
  ro.close();

  await cp.stop();
  t.equal(await autocheckpoint(store), 1000, 'stop() gives the connection its automatic checkpoint back');
  t.equal(await cp.stop(), undefined, 'stop() twice is harmless');
});

t.test('the worker checkpoints once enough frames wait, or once they have waited long enough', async (t) => {
  const { store, team } = await fileStore(t);
  const domains = async (from: number, n: number) => {
    for (let i = from; i < from + n; i++) await store.domains.insert(kilobyteRow(team.id, i));
  };
  // By age: looks every 20 ms, checkpoints once frames waited 1 s.
  const cp = store.backgroundCheckpoints({ intervalMs: 20, frames: 1e9, maxAgeMs: 1000 })!;
  await cp.now(); // what opening the store wrote
  const idle = cp.stats.runs;
  await domains(0, 5);
  const written = Date.now();
  await sleep(300);
  t.equal(cp.stats.runs, idle, 'a few frames waiting a short while: no checkpoint yet');
  await until(() => cp.stats.runs > idle, 5000);
  t.equal(cp.stats.runs, idle + 1, 'once they waited maxAgeMs: one checkpoint');
  t.ok(Date.now() - written >= 1000, 'not before');
  t.equal(cp.stats.lastCheckpointed, cp.stats.lastLog, 'which copied every frame back');
  await sleep(300);
  t.equal(cp.stats.runs, idle + 1, 'nothing waiting: no checkpoint');
  t.equal(cp.stats.failures, 0);
  await cp.stop();

  // By count: 300 frames (and no age limit to speak of).
  const byCount = store.backgroundCheckpoints({ intervalMs: 20, frames: 300, maxAgeMs: 600_000 })!;
  t.teardown(() => byCount.stop());
  await domains(5, 5);
  await sleep(300);
  t.equal(byCount.stats.runs, 0, 'a few frames: none');
  await domains(10, 400);
  await until(() => byCount.stats.runs > 0, 5000);
  t.ok(byCount.stats.runs >= 1, 'past the count: a checkpoint');
  t.ok(byCount.stats.lastLog >= 300, `the WAL held them (${byCount.stats.lastLog} frames)`);
  t.equal(byCount.stats.failures, 0);
});

t.test('the worker thread starts with the first checkpoint, not before', async (t) => {
  const { store, team } = await fileStore(t);
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.db); // what opening the store wrote
  const cp = store.backgroundCheckpoints({ intervalMs: 20, frames: 50, maxAgeMs: 600_000 })!;
  t.teardown(() => cp.stop());
  for (let i = 0; i < 5; i++) await store.domains.insert(kilobyteRow(team.id, i));
  await sleep(300);
  t.equal(cp.threadStarted(), false, 'a few frames waiting: no thread');
  t.equal(cp.stats.runs, 0);
  for (let i = 5; i < 200; i++) await store.domains.insert(kilobyteRow(team.id, i));
  await until(() => cp.stats.runs > 0, 5000);
  t.equal(cp.threadStarted(), true, 'past the frames: the thread started');
  t.ok(cp.stats.runs >= 1, 'and checkpointed');
  t.equal(cp.stats.lastCheckpointed, cp.stats.lastLog, 'every frame copied back');
  t.equal(cp.stats.failures, 0);
});

t.test('a checkpointer stopped before its first checkpoint leaves the WAL to the connection', async (t) => {
  const { file, store, team } = await fileStore(t, true);
  const cp = store.backgroundCheckpoints({ intervalMs: 600_000 })!;
  for (let i = 0; i < 20; i++) await store.domains.insert(kilobyteRow(team.id, i));
  await cp.stop();
  t.equal(cp.threadStarted(), false, 'never started');
  t.equal(await autocheckpoint(store), 1000, 'the automatic checkpoint is back');
  await store.close();
  t.notOk(fs.existsSync(`${file}-wal`), 'closing the last connection checkpointed and removed the WAL');
  const ro = new Database(file, { readonly: true });
  t.equal((ro.prepare('select count(*) as n from domains').get() as { n: number }).n, 20, 'every row in the file');
  ro.close();
});

t.test(
  'a thread that dies answers the checkpoint it owed with a failure, and is not restarted every second',
  async (t) => {
    const { file, store, team } = await fileStore(t);
    const cp = store.backgroundCheckpoints({ intervalMs: 20, frames: 1, maxAgeMs: 0 })!;
    t.teardown(() => cp.stop());
    // The directory goes: the daemon's connection goes on with its open files, but a new thread cannot
    // open the database and dies as it starts.
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    const st = await Promise.race([cp.now(), sleep(10_000).then(() => null)]);
    t.ok(st, 'now() answered');
    t.equal(st?.failures, 1, 'with one failure');
    t.match(st?.lastError, /unable to open database file|directory does not exist/, st?.lastError ?? '');
    t.equal(cp.threadStarted(), false, 'no thread now');
    // Frames keep waiting (and every look would checkpoint at once): no new thread for a while.
    for (let i = 0; i < 20; i++) await store.domains.insert(kilobyteRow(team.id, i));
    await sleep(400);
    t.equal(cp.threadStarted(), false, 'none started by the looks that followed');
    t.equal(cp.stats.failures, 1, 'and no more failures counted');
  },
);

t.test('an in-memory store has no checkpointer', async (t) => {
  const store = await openStore(':memory:');
  t.teardown(() => store.close());
  t.equal(store.backgroundCheckpoints(), null);
});
