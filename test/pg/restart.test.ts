// The PostgreSQL server restarts under a running daemon: /health and requests answer 503 while it is
// down, the daemon recovers by itself when it is back, and no acknowledged write is lost. The test
// runs its own throw-away cluster (scripts/pg-cluster.sh) so that stopping it disturbs no other test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { ROOT } from '../support/cli.js';
import { PG_SKIP, pgServerUrl } from '../support/pg.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(120_000);

const cluster = (cmd: string, dir: string) =>
  execFileSync('bash', [path.join(ROOT, 'scripts/pg-cluster.sh'), cmd, dir], { encoding: 'utf8' }).trim();

t.test(
  'a PostgreSQL restart mid-run: 503 while down, recovery by itself, nothing acknowledged lost',
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-pgrestart-'));
    fs.chmodSync(parent, 0o755);
    const dir = path.join(parent, 'pg');
    const url = cluster('start', dir);
    t.teardown(() => {
      cluster('stop', dir);
      fs.rmSync(parent, { recursive: true, force: true });
    });

    const s = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: 'r1' });
    t.teardown(() => s.close());
    // A second node on the same database: its change feed must listen again after the restart.
    const s2 = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: 'r2', DOMMON_ROLE: 'api' });
    t.teardown(() => s2.close());
    await s.app.probing.stop(0);
    const api = client(s.url, await s.token('ops'));
    const anon = client(s.url);
    const first = await api.post('/api/v1/domains', { domain: 'before.example.com' });
    t.equal(first.status, 201, 'acknowledged before the restart');
    t.equal((await anon.get('/health')).status, 200);

    cluster('pause', dir);
    const health = await anon.get('/health');
    t.equal(health.status, 503, '/health answers 503 while the server is down');
    t.match(health.body, { status: 'degraded', database: 'disconnected' });
    const write = await api.post('/api/v1/domains', { domain: 'during.example.com' });
    t.equal(write.status, 503, 'a write answers 503, not 500');
    t.match(write.body, { code: 'DATABASE_UNAVAILABLE', error: /not reachable/ });
    t.equal(write.headers.get('retry-after'), '5');
    const read = await api.get('/api/v1/domains?limit=10');
    t.equal(read.status === 503 || read.status === 200, true, 'a read answers 503 (or from the cache), never 500');

    cluster('resume', dir);
    const t0 = Date.now();
    let back = 0;
    while (Date.now() - t0 < 15_000) {
      if ((await anon.get('/health')).status === 200) {
        back = Date.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    t.ok(back > 0, `healthy again by itself (${back} ms after the server came back)`);
    const after = await api.post('/api/v1/domains', { domain: 'after.example.com' });
    t.equal(after.status, 201, 'writes work again');
    const names = (await api.get('/api/v1/domains?limit=10')).body.data.map((d: { domain: string }) => d.domain).sort();
    t.same(
      names,
      ['after.example.com', 'before.example.com'],
      'the acknowledged write survived; the refused one was not half-done',
    );

    // The second node's change feed listens again by itself (stamp() stable), and its cached list
    // sees a write made on the first node within 1 s.
    const stamp = () => s2.app.store.stamp(['domains']);
    const t1 = Date.now();
    await waitFor(() => stamp() === stamp(), 10_000);
    t.comment(`node r2 listening again ${Date.now() - t1} ms after the first node wrote`);
    const api2 = client(s2.url, await s.token('ops', 'second@example.com'));
    for (let i = 0; i < 2; i++) t.equal((await api2.get('/api/v1/domains?limit=10')).body.data.length, 2);
    t.equal((await api.post('/api/v1/domains', { domain: 'late.example.com' })).status, 201);
    const t2 = Date.now();
    await waitFor(async () => (await api2.get('/api/v1/domains?limit=10')).body.data.length === 3, 1000, 10);
    t.comment(`a write on r1 read from r2's cached list after ${Date.now() - t2} ms`);
  },
);
