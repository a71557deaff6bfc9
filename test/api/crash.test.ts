// A daemon killed with SIGKILL in the middle of a stream of bulk and single creates keeps every row it
// acknowledged, and the database opens cleanly afterwards (PRAGMA integrity_check = ok).
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { dommon, ensureBuilt, serve } from '../support/cli.js';

// The file spawns Node processes: allow more than tap's 30 s per file on a loaded machine.
t.setTimeout(240_000);

t.test('SIGKILL during creates loses no acknowledged row', async (t) => {
  const T0 = Date.now();
  await ensureBuilt();
  t.comment('built', Date.now() - T0);
  const dir = tempDir('dommon-crash-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tok = await dommon(['--data-dir', dir, '--json', 'token', 'create', '--team', 'ops']);
  t.equal(tok.code, 0, tok.stderr);
  const token = JSON.parse(tok.stdout).token as string;
  const env = { DOMMON_RATE_LIMIT: '1000000' };

  const first = await serve(dir, env);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const acked = new Set<string>();
  const ackedEndpoints = new Set<string>();
  let stop = false;
  let n = 0;
  const post = async (p: string, body: unknown) => {
    try {
      const r = await fetch(first.url + p, { method: 'POST', headers, body: JSON.stringify(body) });
      if (r.status !== 201) return undefined;
      return (await r.json()) as any;
    } catch {
      return undefined; // the connection died with the daemon: not acknowledged
    }
  };
  const domainId = (await post('/api/v1/domains', { domain: 'parent.com' })).id as string;
  acked.add(domainId);
  const loops = [
    // single domain creates
    async () => {
      while (!stop) {
        const b = await post('/api/v1/domains', { domain: `single-${n++}.com` });
        if (b) acked.add(b.id);
      }
    },
    // bulk domain creates of 25
    async () => {
      while (!stop) {
        const b = await post('/api/v1/domains/bulk', {
          domains: Array.from({ length: 25 }, () => ({ domain: `bulk-${n++}.com` })),
        });
        if (b) for (const d of b.data) acked.add(d.id);
      }
    },
    // bulk endpoint creates of 10
    async () => {
      while (!stop) {
        const b = await post('/api/v1/endpoints/bulk', {
          endpoints: Array.from({ length: 10 }, () => ({
            domain_id: domainId,
            name: `e${n++}`,
            endpoint_type: 'https',
          })),
        });
        if (b) for (const e of b.data) ackedEndpoints.add(e.id);
      }
    },
  ];
  const running = loops.map((l) => l());
  // Kill once a good number of writes went through, while requests are in flight.
  while (acked.size < 200) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  stop = true;
  await Promise.all(running);
  t.comment('killed at', Date.now() - T0);
  t.ok(acked.size >= 200, `${acked.size} domains and ${ackedEndpoints.size} endpoints acknowledged before the kill`);

  // The file opens cleanly and holds every acknowledged row.
  const db = new Database(path.join(dir, 'dommon.db'));
  t.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  t.same(db.pragma('foreign_key_check'), []);
  const have = new Set((db.prepare('select id from domains').all() as { id: string }[]).map((r) => r.id));
  const haveE = new Set((db.prepare('select id from endpoints').all() as { id: string }[]).map((r) => r.id));
  db.close();
  const lost = [...acked].filter((id) => !have.has(id));
  const lostE = [...ackedEndpoints].filter((id) => !haveE.has(id));
  t.same(lost, [], 'no acknowledged domain lost');
  t.same(lostE, [], 'no acknowledged endpoint lost');

  // A restarted daemon serves them.
  t.comment('checked', Date.now() - T0);
  const second = await serve(dir, env);
  t.comment('restarted', Date.now() - T0);
  t.teardown(() => second.child.kill('SIGKILL'));
  const list = await fetch(`${second.url}/api/v1/domains?limit=1`, { headers });
  t.equal(list.status, 200);
  const total = ((await list.json()) as any).total as number;
  t.ok(total >= acked.size, `restarted daemon lists ${total} >= ${acked.size}`);
  const sample = [...acked].slice(-20);
  for (const id of sample) t.equal((await fetch(`${second.url}/api/v1/domains/${id}`, { headers })).status, 200);
  t.equal((await fetch(`${second.url}/health`)).status, 200);
  // Its workers start on hundreds of domains whose look-ups fail (offline peers, rate-limit spacing):
  // SIGTERM still ends it promptly, not after the queued look-ups have waited out their slots.
  const termAt = performance.now();
  second.child.kill('SIGTERM');
  const code = await new Promise((r) => second.child.once('exit', r));
  t.equal(code, 0, 'SIGTERM exits 0');
  const stopMs = performance.now() - termAt;
  t.ok(stopMs < 10_000, `stopped ${Math.round(stopMs)} ms after SIGTERM`);
  t.comment('end', Date.now() - T0);
});
