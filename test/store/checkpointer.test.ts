// WAL checkpoints on a worker thread: while it runs, commits never checkpoint (the connection's
// automatic checkpoint is off) and the worker copies every committed frame back into the database
// file; stop() runs a last checkpoint and gives the connection its automatic checkpoint back.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../support/app.js';
import { sql } from 'kysely';

const NOW = '2026-01-01T00:00:00.000Z';

t.test('a worker thread checkpoints what the daemon connection commits', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'dommon.db');
  const store = await openStore(file);
  t.teardown(() => store.close());
  const team = await store.teams.create('ops', NOW);
  // A long interval: the test takes the checkpoint itself with now().
  const cp = store.backgroundCheckpoints({ intervalMs: 600_000 })!;
  t.ok(cp, 'a file database gets a checkpointer');
  const autocheckpoint = async () =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0]!
      .wal_autocheckpoint;
  t.equal(await autocheckpoint(), 0, 'commits no longer checkpoint');

  // ~3,000 pages of WAL: past the 1,000-page threshold where a commit would have checkpointed itself.
  for (let i = 0; i < 3000; i++) {
    await store.domains.insert({
      id: `d${i}`,
      team_id: team.id,
      domain: `n${i}.example.com`,
      portfolio_id: null,
      notes: 'x'.repeat(800),
      is_verified: false,
      verified_at: null,
      verification_token: `dommon-verify-${i}`,
      health_score: null,
      health_grade: null,
      overall_status: null,
      exposure_monitoring_enabled: false,
      expiry_override: null,
      dkim_selectors: [],
      created_at: NOW,
      updated_at: NOW,
    });
  }
  const walPages = fs.statSync(`${file}-wal`).size / 4096;
  t.ok(walPages > 2000, `no commit checkpointed: the WAL holds every page written (${Math.round(walPages)} pages)`);
  const st = await cp.now();
  t.equal(st.failures, 0);
  t.ok(st.lastLog > 2000, `the worker saw the whole WAL (${st.lastLog} frames)`);
  t.equal(st.lastCheckpointed, st.lastLog, 'and copied every frame back');

  // What the worker copied is in the main file: a reader that ignores the WAL sees the rows.
  const copy = path.join(dir, 'copy.db');
  fs.copyFileSync(file, copy);
  const ro = new Database(copy, { readonly: true });
  t.equal(
    (ro.prepare('select count(*) as n from domains').get() as { n: number }).n,
    3000,
    'the database file alone holds every committed row',
  );
  ro.close();

  await cp.stop();
  t.equal(await autocheckpoint(), 1000, 'stop() gives the connection its automatic checkpoint back');
  t.equal(await cp.stop(), undefined, 'stop() twice is harmless');
});

t.test('an in-memory store has no checkpointer', async (t) => {
  const store = await openStore(':memory:');
  t.teardown(() => store.close());
  t.equal(store.backgroundCheckpoints(), null);
});
