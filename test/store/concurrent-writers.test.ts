// Several processes writing to one data directory at once (cron jobs, the CLI beside the daemon):
// every write succeeds; none answers "internal server error" (a deferred BEGIN would get SQLITE_BUSY),
// and opening the file waits for a connection that holds it.
import t from 'tap';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { openConnection } from '../../src/store/db.js';
import { tempDir } from '../support/app.js';
import { cliIn, ensureBuilt } from '../support/cli.js';

const require = createRequire(import.meta.url);

t.setTimeout(180_000); // several CLI processes at once on a loaded machine
t.test('six CLI processes adding domains at once all succeed', async (t) => {
  await ensureBuilt();
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);
  t.equal((await run('token', 'create', '--team', 'ops')).code, 0);
  const names = Array.from({ length: 6 }, (_, i) => `parallel-${i}.example.com`);
  const results = await Promise.all(names.map((n) => run('domains', 'add', n, '--json')));
  t.same(
    results.map((r) => [r.code, r.stderr.trim()]),
    names.map(() => [0, '']),
    'every process exits 0 with nothing on stderr',
  );
  const list = await run('domains', 'list', '--json', '--limit', '100');
  t.same(list.json.data.map((d: { domain: string }) => d.domain).sort(), names.sort());
});

t.test('a connection opened while another holds the file past one busy timeout waits for it', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dommon.db');
  (await openConnection(file)).sqlite.close();
  // Another thread takes the file for itself (exclusive locking mode and a write) for 5.8 s: more than
  // the 5 s busy timeout of the open's first pragma.
  const holder = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const db = new (require(workerData.driver))(workerData.file);
     db.pragma('locking_mode = EXCLUSIVE');
     db.exec('begin exclusive');
     db.exec('create table held (x)');
     parentPort.postMessage('held');
     setTimeout(() => { db.exec('commit'); db.close(); }, 5800);`,
    { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file } },
  );
  await new Promise((r) => holder.once('message', r));
  const started = performance.now();
  const conn = await openConnection(file);
  const waited = performance.now() - started;
  t.ok(waited > 5000, `waited ${Math.round(waited)} ms, past one busy timeout`);
  t.equal(conn.sqlite.pragma('journal_mode', { simple: true }), 'wal');
  await conn.close();
  await holder.terminate();
});
