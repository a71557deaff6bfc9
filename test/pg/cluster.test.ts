// Several nodes on one PostgreSQL database share the liveness checks (issue 22 item 1 and 7): three
// real `dommon serve` processes, 300 configurations at 5 s, each endpoint its own path on a loopback
// HTTP target that records when each path was asked. For 60 s every configuration is checked once per
// interval (no two checks within half an interval, no gap over two intervals) and the work is spread
// over the nodes; then one node is killed with SIGKILL and its configurations are checked again within
// max(30 s, interval) by the other two.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { client, startApp, tempDir } from '../support/app.js';
import { serveDaemon, type Daemon } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { startLoopbackDns } from '../support/targets.js';

t.setTimeout(300_000);
const skip = pgServerUrl() ? false : PG_SKIP;
const CONFIGS = 300;
const INTERVAL_S = 5;
const STEADY_MS = 60_000;

t.test('three nodes: each check once per interval, a killed node taken over', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'cluster'))!;
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  // Path /c/<i> -> the times it was asked (epoch ms).
  const hits = new Map<number, number[]>();
  const target = http.createServer((req, res) => {
    const m = /^\/c\/(\d+)$/.exec(req.url ?? '');
    if (m) {
      const i = Number(m[1]);
      const list = hits.get(i) ?? [];
      list.push(Date.now());
      hits.set(i, list);
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  target.keepAliveTimeout = 1;
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => target.close(() => r())));
  const port = (target.address() as AddressInfo).port;

  // The configurations, written through an `api` node (it runs no scheduler).
  const api = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => api.close());
  const c = client(api.url, await api.token('cluster'));
  const domain = (await c.post('/api/v1/domains', { domain: 'cluster.example' })).body;
  for (let from = 0; from < CONFIGS; from += 100) {
    const items = Array.from({ length: 100 }, (_, k) => ({
      domain_id: domain.id,
      name: `c${from + k}`,
      endpoint_type: 'http',
      port,
      path: `/c/${from + k}`,
      liveness: { interval_seconds: INTERVAL_S, timeout_seconds: 2 },
    }));
    const r = await c.post('/api/v1/endpoints/bulk', { endpoints: items });
    t.equal(r.status, 201, `endpoints ${from}-${from + 99} created`);
  }

  const dirs = [tempDir(), tempDir(), tempDir()];
  t.teardown(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const nodes: Daemon[] = [];
  for (const [k, dir] of dirs.entries()) {
    const d = await serveDaemon(['--data-dir', dir], {
      DOMMON_DATABASE_URL: url,
      DOMMON_ROLE: 'worker',
      DOMMON_NODE_NAME: `n${k + 1}`,
      DOMMON_DNS_SERVERS: dns.server,
    });
    nodes.push(d);
    t.teardown(() => (d.child.exitCode === null && d.child.signalCode === null ? d.stop() : undefined));
  }
  // Which node ran each check: the results' rows do not say, so each node's own count of liveness
  // checks run (its /metrics) is read when the window opens and when it closes.
  const livenessChecks = async (d: Daemon): Promise<number> => {
    const text = await (await fetch(`${d.url}/metrics`)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('dommon_checks_total{') && l.includes('kind="liveness"'));
    return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };
  const checksByNode = () => Promise.all(nodes.map(livenessChecks));
  // Counted from when the last node is up (the first one started alone for a moment).
  await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
  const from = Date.now();
  const before = await checksByNode();
  await new Promise((r) => setTimeout(r, STEADY_MS));
  const to = Date.now();
  const after = await checksByNode();
  const perNode = after.map((n, k) => ({ name: `n${k + 1}`, n: n - before[k]! }));
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  t.teardown(() => db.end());
  const listed = (await db.query("select name from nodes where role = 'worker'")).rows.length;

  let tooClose = 0;
  let tooFar = 0;
  let checks = 0;
  let missing = 0;
  for (let i = 0; i < CONFIGS; i++) {
    const times = (hits.get(i) ?? []).filter((x) => x >= from && x < to);
    if (!times.length) missing++;
    checks += times.length;
    for (let k = 1; k < times.length; k++) {
      const gap = times[k]! - times[k - 1]!;
      if (gap < (INTERVAL_S * 1000) / 2) tooClose++;
      if (gap > 2 * INTERVAL_S * 1000) tooFar++;
    }
  }
  const expected = (CONFIGS * (to - from)) / (INTERVAL_S * 1000);
  t.comment(
    `${checks} checks in ${to - from} ms (expected ${Math.round(expected)}); per node: ${JSON.stringify(perNode)}`,
  );
  t.equal(missing, 0, 'every configuration was checked');
  t.equal(tooClose, 0, 'no two checks of one configuration within half an interval');
  t.equal(tooFar, 0, 'no gap over two intervals');
  t.ok(Math.abs(checks - expected) <= CONFIGS, `checks ${checks} within one round of ${Math.round(expected)}`);
  t.equal(listed, 3, 'three nodes listed');
  const counts = perNode.map((n) => n.n);
  const total = counts.reduce((a, b) => a + b, 0);
  for (const [k, n] of counts.entries())
    t.ok(n > total / 6, `node ${perNode[k]!.name} ran ${n} of ${total} checks (a fair share is a third)`);

  // SIGKILL: the dead node's leases run out and the others take its runs.
  const killedAt = Date.now();
  nodes[0]!.child.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 35_000));
  let worst = 0;
  for (let i = 0; i < CONFIGS; i++) {
    const times = hits.get(i) ?? [];
    const before = times.filter((x) => x <= killedAt).at(-1) ?? killedAt;
    const after = times.find((x) => x > killedAt);
    worst = Math.max(worst, (after ?? Date.now()) - before);
  }
  const bound = Math.max(30_000, INTERVAL_S * 1000);
  t.comment(`after kill -9: the longest gap of a configuration is ${worst} ms`);
  t.ok(worst <= bound, `every configuration checked again within ${bound} ms (worst gap ${worst} ms)`);
  // And it goes on once per interval on the two nodes left.
  const lateFrom = killedAt + bound;
  let lateClose = 0;
  for (let i = 0; i < CONFIGS; i++) {
    const times = (hits.get(i) ?? []).filter((x) => x >= lateFrom);
    for (let k = 1; k < times.length; k++) if (times[k]! - times[k - 1]! < (INTERVAL_S * 1000) / 2) lateClose++;
  }
  t.equal(lateClose, 0, 'after the takeover still no two checks within half an interval');
});
