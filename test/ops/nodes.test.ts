// Roles and the node list (CONTRACT "Past one machine", issue #22 item 5) on the SQLite file: a
// `worker` serves /health and /metrics only, an `api` node runs no scheduler, every node writes its
// row in the node list (GET /api/v1/nodes, `dommon nodes`), /metrics names the node in
// dommon_node_info, stale rows say so and day-old ones are removed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import t from 'tap';
import { client, request, startApp, tempDir } from '../support/app.js';
import { BIN, cleanEnv, cli, cliIn, ensureBuilt, nodeCommand } from '../support/cli.js';
import { parseExposition } from '../support/prometheus.js';
import {
  createNodeHeartbeat,
  HEARTBEAT_MS,
  MOVED_CHECK_MS,
  PRUNE_AFTER_MS,
  STALE_AFTER_MS,
} from '../../src/services/nodes.js';

t.setTimeout(120_000);

/** A domain, an endpoint and a liveness configuration through the API (the probe fails: DNS is a closed port). */
async function livenessConfig(api: ReturnType<typeof client>): Promise<void> {
  const d = (await api.post('/api/v1/domains', { domain: 'nodes.example.com' })).body;
  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  t.equal((await api.post('/api/v1/liveness', { endpoint_id: e.id, interval_seconds: 60 })).status, 201);
}

t.test('role all (the default): API, schedulers, one live node in the list', async (t) => {
  const s = await startApp({ DOMMON_NODE_NAME: 'solo', DOMMON_NODE_REGION: 'eu-west' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('ops', undefined, { operator: true }));
  await livenessConfig(api);
  await s.app.probing.liveness.settled();
  t.equal(s.app.probing.liveness.size(), 1, 'the liveness scheduler holds the configuration');
  await s.app.heartbeat.beat();

  const r = await api.get('/api/v1/nodes');
  t.equal(r.status, 200);
  t.equal(r.body.total, 1);
  t.equal(r.body.live, 1);
  t.match(r.body.data[0], {
    name: 'solo',
    role: 'all',
    region: 'eu-west',
    version: /^\d+\.\d+\.\d+/,
    pid: process.pid,
    status: 'live',
    work_claimed: 1,
    heartbeat_age_seconds: 0,
    singletons: ['retention', 'digests', 'sweep', 'rdap-bootstrap'],
  });
  t.equal(typeof r.body.data[0].checks_per_minute, 'number');
  t.equal((await client(s.url).get('/api/v1/nodes')).status, 401, 'a token is needed');

  // A team's token (not marked --operator) reads counts and regions only: nothing of the operator's hosts.
  const team = await client(s.url, await s.token('tenant')).get('/api/v1/nodes');
  t.equal(team.status, 200);
  t.same(team.body, { detail: 'summary', live: 1, total: 1, regions: [{ region: 'eu-west', nodes: 1, live: 1 }] });
  for (const leak of ['solo', String(process.pid), r.body.data[0].version, r.body.data[0].host])
    t.notOk(team.text.includes(leak), `a team's token does not see ${leak}`);

  const m = parseExposition((await client(s.url).get('/metrics')).text);
  t.equal(
    m.value('dommon_node_info', { node: 'solo', role: 'all', region: 'eu-west', version: r.body.data[0].version }),
    1,
    'dommon_node_info names the node',
  );

  // `dommon nodes` reads the same list from the database the daemon serves.
  const run = cliIn(s.dataDir);
  const json = await run('nodes', '--json');
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { live: 1, total: 1, data: [{ name: 'solo', role: 'all', region: 'eu-west', status: 'live' }] });
  const text = await run('nodes');
  t.equal(text.code, 0);
  t.match(text.stdout, /NAME\s+ROLE\s+REGION\s+STATUS/);
  t.match(text.stdout, /solo\s+all\s+eu-west\s+live/);
  t.match(text.stdout, /1 live, 0 stale/);
});

t.test('stale rows say so; rows silent for a day are removed at the next heartbeat', async (t) => {
  t.ok(STALE_AFTER_MS >= 3 * HEARTBEAT_MS, 'three heartbeats may be missed before a node is stale');
  const s = await startApp({ DOMMON_NODE_NAME: 'keeper' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('ops', undefined, { operator: true }));
  const now = Date.now();
  const row = (name: string, agoMs: number) => ({
    name,
    role: 'worker',
    region: 'default',
    version: '0.0.1',
    host: 'elsewhere',
    pid: 4242,
    started_at: new Date(now - agoMs - 60_000).toISOString(),
    last_heartbeat: new Date(now - agoMs).toISOString(),
    work_claimed: 7,
    checks_total: 100,
    checks_per_minute: 12.5,
    singletons: ['retention', 'digests'],
  });
  await s.app.store.nodes.heartbeat(row('gone-a-minute', STALE_AFTER_MS + 30_000));
  await s.app.store.nodes.heartbeat(row('gone-for-days', PRUNE_AFTER_MS + 60_000));
  const before = (await api.get('/api/v1/nodes')).body;
  t.same(
    before.data.map((n: { name: string; status: string }) => [n.name, n.status]),
    [
      ['gone-a-minute', 'stale'],
      ['gone-for-days', 'stale'],
      ['keeper', 'live'],
    ],
  );
  t.equal(before.live, 1);
  t.equal(before.data[0].heartbeat_age_seconds >= 60, true);

  await s.app.heartbeat.beat();
  const after = (await api.get('/api/v1/nodes')).body;
  t.same(
    after.data.map((n: { name: string }) => n.name),
    ['gone-a-minute', 'keeper'],
    'the day-old row is gone, the minute-old one stays (stale)',
  );
  t.match(after.data[0], {
    work_claimed: 7,
    checks_total: 100,
    checks_per_minute: 12.5,
    singletons: ['retention', 'digests'],
  });
});

t.test('role worker: /health and /metrics only, every other path 404 with the error body', async (t) => {
  const s = await startApp({ DOMMON_ROLE: 'worker', DOMMON_NODE_NAME: 'w1' });
  t.teardown(() => s.close());
  const token = await s.token('ops');
  t.equal((await client(s.url).get('/health')).status, 200);
  const metrics = await client(s.url).get('/metrics');
  t.equal(metrics.status, 200);
  t.equal(
    parseExposition(metrics.text)
      .series('dommon_node_info')
      .map((x) => x.labels.role)
      .join(),
    'worker',
  );
  for (const p of ['/api/v1/domains', '/api/v1/nodes', '/api-domains', '/api/v1/openapi.json', '/docs']) {
    const r = await request(s.url, 'GET', p, { token, unchecked: true });
    t.equal(r.status, 404, p);
    t.match(r.body, { error: /no route/, code: 'ROUTE_NOT_FOUND', timestamp: String, path: p });
  }
  const post = await request(s.url, 'POST', '/api/v1/domains', { token, body: { domain: 'x.com' }, unchecked: true });
  t.equal(post.status, 404, 'writes too');
  const rows = await s.app.store.nodes.list();
  t.match(rows, [{ name: 'w1', role: 'worker' }]);
});

t.test('role api: the API, no scheduler', async (t) => {
  const s = await startApp({ DOMMON_ROLE: 'api', DOMMON_NODE_NAME: 'a1' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('ops', undefined, { operator: true }));
  await livenessConfig(api);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(s.app.probing.liveness.size(), 0, 'no liveness scheduler runs');
  await s.app.heartbeat.beat();
  t.match((await api.get('/api/v1/nodes')).body.data, [
    { name: 'a1', role: 'api', work_claimed: 0, checks_total: 0, singletons: [] },
  ]);
});

t.test('dommon serve --role --node-name --region (flags), and dommon nodes --remote', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  await ensureBuilt();
  const child = spawn(
    ...nodeCommand([
      BIN,
      '--data-dir',
      dataDir,
      'serve',
      '--port',
      '0',
      '--role',
      'worker',
      '--node-name',
      'flagged',
      '--region',
      'r1',
    ]),
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((r) => child.once('exit', r));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const m = parseExposition(await (await fetch(`${url}/metrics`)).text());
  t.match(m.series('dommon_node_info'), [{ labels: { node: 'flagged', role: 'worker', region: 'r1' }, value: 1 }]);
  t.equal((await fetch(`${url}/api/v1/domains`)).status, 404, 'a worker serves no API');
  const listed = await cliIn(dataDir)('nodes', '--json');
  t.match(listed.json, { live: 1, data: [{ name: 'flagged', role: 'worker', region: 'r1', pid: child.pid }] });

  // --remote asks a node that serves the API (this one is a worker: 404, exit 3).
  const s = await startApp({ DOMMON_NODE_NAME: 'front' });
  t.teardown(() => s.close());
  const token = await s.token('ops', undefined, { operator: true });
  const remote = await cli(['--remote', s.url, '--token', token, 'nodes', '--json']);
  t.equal(remote.code, 0, remote.stderr);
  t.match(remote.json, { live: 1, data: [{ name: 'front', role: 'all' }] });
  // A team's token over --remote: counts and regions, and the text says where the details are.
  const teamToken = await s.token('tenant');
  const summary = await cli(['--remote', s.url, '--token', teamToken, 'nodes']);
  t.equal(summary.code, 0, summary.stderr);
  t.match(summary.stdout, /default\s+1\s+1/);
  t.match(summary.stdout, /1 live, 0 stale \(node details need an operator token\)/);
  t.notMatch(summary.stdout, /front/);
  const worker = await cli(['--remote', url, '--token', token, 'nodes']);
  t.equal(worker.code, 3);
  t.match(worker.stderr, /no route for GET \/api\/v1\/nodes/);
});

t.test('a node writes its row early when the runs it holds moved by over a tenth (and 10 runs)', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  let held = 0;
  const hb = createNodeHeartbeat({
    store: s.app.store,
    clock: { now: () => new Date() },
    log: s.app.log,
    identity: { ...s.app.node, name: 'moving' },
    counters: { workClaimed: () => held, checksTotal: () => 0, singletons: () => [] },
  });
  const written = async () => (await s.app.store.nodes.get('moving'))?.work_claimed;
  await hb.claim();
  await hb.beat();
  t.equal(await written(), 0, 'the first heartbeat');
  // [runs held now, the count the row then says, why]
  const steps: [number, number, string][] = [
    [10, 0, '10 runs more: not yet (at most 10 runs)'],
    [300, 300, 'a burst taken: written at once'],
    [320, 300, '20 runs of 300: under a tenth, left to the next heartbeat'],
    [100, 100, 'two hundred let go: written at once'],
  ];
  for (const [now, row, why] of steps) {
    held = now;
    await hb.beatIfMoved();
    t.equal(await written(), row, why);
  }
  t.ok(MOVED_CHECK_MS <= HEARTBEAT_MS / 5, `looked at every ${MOVED_CHECK_MS} ms`);
});
