// Several nodes on one PostgreSQL database share the liveness checks, each exactly once (issue 22 item 1
// and 7, issue 40 item 2): three real `dommon serve` processes, then 300 configurations at 5 s created
// while they run, each endpoint its own path on a loopback HTTP target that records when each path was
// asked and by which node (each node's DNS answers its own loopback address). Counted from the target's
// side over the whole run (the creation, the steady state, one node killed with SIGKILL, its takeover,
// the node started again): no two checks of one configuration within half an interval, except a check
// the dead node sent in its last 2 s (at-least-once across a crash); the work spread over the nodes, no
// gap over two intervals but the takeover's (within max(30 s, interval)).
// Its phases wait for what they observe (the nodes listed, every configuration taken over) rather than
// for fixed times, and observe 4 intervals of steady state and 3 after the restart (docs/testing.md).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { client, startApp, tempDir } from '../support/app.js';
import { serveDaemon, type Daemon } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { startLoopbackDns } from '../support/targets.js';
import { sleep, waitFor } from '../support/wait.js';

t.setTimeout(300_000);
const skip = pgServerUrl() ? false : PG_SKIP;
const CONFIGS = 300;
const INTERVAL_S = 5;
const STEADY_MS = 20_000;
const RESTARTED_MS = 15_000;

t.test('three nodes: each check once per interval, a killed node taken over and restarted', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'cluster'))!;
  // Node k resolves every name to 127.0.0.<k+1>: the target tells the nodes' requests apart.
  const dnss = await Promise.all([1, 2, 3].map((k) => startLoopbackDns({ address: `127.0.0.${k}` })));
  t.teardown(() => Promise.all(dnss.map((d) => d.close())));
  // Path /c/<i> -> when it was asked (epoch ms) and by which node (0, 1, 2).
  const hits = new Map<number, { at: number; node: number }[]>();
  const handler: http.RequestListener = (req, res) => {
    const m = /^\/c\/(\d+)$/.exec(req.url ?? '');
    if (m) {
      const i = Number(m[1]);
      const list = hits.get(i) ?? [];
      list.push({ at: Date.now(), node: Number(req.socket.localAddress?.split('.').at(-1)) - 1 });
      hits.set(i, list);
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  };
  // The target stamps a request when this process handles it. A stall of this process (a busy host)
  // stamps the requests that arrived during it together when it ends, up to its length late: the stalls
  // are recorded (this loop's lateness over 250 ms), so that a pair can be judged by when its first
  // request may have arrived.
  const stalls: { from: number; to: number }[] = [];
  let tick = Date.now();
  const lagTimer = setInterval(() => {
    const n = Date.now();
    if (n - tick > 250) stalls.push({ from: tick, to: n });
    tick = n;
  }, 50);
  t.teardown(() => clearInterval(lagTimer));
  const targets: http.Server[] = [];
  let port = 0;
  for (const k of [1, 2, 3]) {
    const target = http.createServer(handler);
    target.keepAliveTimeout = 1;
    await new Promise<void>((r) => target.listen(port, `127.0.0.${k}`, r));
    port = (target.address() as AddressInfo).port;
    targets.push(target);
    t.teardown(() => new Promise<void>((r) => target.close(() => r())));
  }

  const dirs = [tempDir(), tempDir(), tempDir()];
  t.teardown(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const startNode = (k: number) =>
    serveDaemon(['--data-dir', dirs[k]!], {
      DOMMON_DATABASE_URL: url,
      DOMMON_ROLE: 'worker',
      DOMMON_NODE_NAME: `n${k + 1}`,
      DOMMON_DNS_SERVERS: dnss[k]!.server,
    });
  const nodes: Daemon[] = [];
  const stopAll = () =>
    Promise.all(nodes.filter((d) => d.child.exitCode === null && d.child.signalCode === null).map((d) => d.stop()));
  t.teardown(stopAll);
  // The three nodes start at once, and beside them the `api` node the configurations are written through
  // (it runs no scheduler).
  const starting = Date.now();
  const started = Promise.all([0, 1, 2].map(async (k) => (nodes[k] = await startNode(k))));
  const api = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => api.close());
  const c = client(api.url, await api.token('cluster'));
  const domain = (await c.post('/api/v1/domains', { domain: 'cluster.example' })).body;
  await started;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  t.teardown(() => db.end());
  const workers = async () => (await db.query("select name from nodes where role = 'worker'")).rows.length;
  // Each node counts the live workers to take its share: the configurations come once all three are listed.
  await waitFor(async () => (await workers()) === 3, 30_000, 100);
  const createdFrom = Date.now();
  t.comment(`three nodes started and listed in ${createdFrom - starting} ms`);
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
  const created = Date.now();
  t.comment(`300 configurations created in ${created - createdFrom} ms`);

  // The steady state: from two intervals after the creation.
  await sleep(2 * INTERVAL_S * 1000);
  const from = Date.now();
  await sleep(STEADY_MS);
  const to = Date.now();
  const listed = await workers();

  const within = (a: number, b: number) => (i: number) => (hits.get(i) ?? []).filter((x) => x.at >= a && x.at < b);
  let tooFar = 0;
  let checks = 0;
  let missing = 0;
  const perNode = [0, 0, 0];
  for (let i = 0; i < CONFIGS; i++) {
    const times = within(from, to)(i);
    if (!times.length) missing++;
    checks += times.length;
    for (const x of times) perNode[x.node]!++;
    for (let k = 1; k < times.length; k++) if (times[k]!.at - times[k - 1]!.at > 2 * INTERVAL_S * 1000) tooFar++;
  }
  const expected = (CONFIGS * (to - from)) / (INTERVAL_S * 1000);
  t.comment(`${checks} checks in ${to - from} ms (expected ${Math.round(expected)}); per node: ${perNode.join(', ')}`);
  // How the shares came about, interval by interval from the creation (a skewed share says whether it
  // was still moving towards a third or had settled).
  const byInterval: string[] = [];
  for (let a = created; a < to; a += INTERVAL_S * 1000) {
    const n = [0, 0, 0];
    for (let i = 0; i < CONFIGS; i++) for (const x of within(a, a + INTERVAL_S * 1000)(i)) n[x.node]!++;
    byInterval.push(n.join('/'));
  }
  const shares = `per node, interval by interval since the creation: ${byInterval.join(', ')}`;
  t.comment(shares);
  t.equal(missing, 0, 'every configuration was checked');
  t.equal(tooFar, 0, 'no gap over two intervals');
  t.ok(Math.abs(checks - expected) <= CONFIGS, `checks ${checks} within one round of ${Math.round(expected)}`);
  t.equal(listed, 3, 'three nodes listed');
  for (const [k, n] of perNode.entries())
    t.ok(n > checks / 6, `node n${k + 1} ran ${n} of ${checks} checks (a fair share is a third; ${shares})`);

  // SIGKILL: the dead node's leases run out and the others take its runs.
  const killedAt = Date.now();
  nodes[0]!.child.kill('SIGKILL');
  const bound = Math.max(30_000, INTERVAL_S * 1000);
  // Until every configuration was checked after the kill (its takeover, ~20 s: the lease's due time plus
  // timeout plus margin), or past the bound.
  const checkedSince = (at: number) => (i: number) => (hits.get(i) ?? []).some((x) => x.at > at);
  while (Date.now() < killedAt + bound + 2000) {
    if (Array.from({ length: CONFIGS }, (_, i) => i).every(checkedSince(killedAt))) break;
    await sleep(250);
  }
  let worst = 0;
  for (let i = 0; i < CONFIGS; i++) {
    const times = (hits.get(i) ?? []).map((x) => x.at);
    const before = times.filter((x) => x <= killedAt).at(-1) ?? killedAt;
    const after = times.find((x) => x > killedAt);
    worst = Math.max(worst, (after ?? Date.now()) - before);
  }
  t.comment(`after kill -9: the longest gap of a configuration is ${worst} ms`);
  t.ok(worst <= bound, `every configuration checked again within ${bound} ms (worst gap ${worst} ms)`);

  // The killed node starts again (same name): it joins and takes its part back.
  const restarting = Date.now();
  nodes[0] = await startNode(0);
  const restarted = Date.now();
  t.comment(`node n1 started again in ${restarted - restarting} ms`);
  await sleep(RESTARTED_MS);
  const end = Date.now();
  // (No bound on gaps here: this phase includes the restart's build of dist/ when src/ changed, which on
  // a busy machine has stalled every node for tens of seconds; the steady state above bounds them.)
  const lateNode = [0, 0, 0];
  let lost = 0;
  for (let i = 0; i < CONFIGS; i++) {
    const times = within(restarted + INTERVAL_S * 1000, end)(i);
    if (!times.length) lost++;
    for (const x of times) lateNode[x.node]!++;
  }
  t.comment(`after the restart, from one interval on, per node: ${lateNode.join(', ')}`);
  t.equal(lost, 0, 'after the restart every configuration is checked (no run lost as leases move)');
  t.ok(lateNode[0]! > 0, `the restarted node runs checks again (${lateNode[0]})`);

  // Exactly once over the whole run, from the first configuration created to the end.
  const close: string[] = [];
  let excused = 0;
  let stamped = 0;
  let all = 0;
  const half = (INTERVAL_S * 1000) / 2;
  for (let i = 0; i < CONFIGS; i++) {
    const times = within(createdFrom, end)(i);
    all += times.length;
    for (let k = 1; k < times.length; k++) {
      const [a, b] = [times[k - 1]!, times[k]!];
      if (b.at - a.at >= half) continue;
      // At-least-once across a crash: a check the dead node had sent in its last 2 s.
      if (a.node === 0 && a.at <= killedAt && a.at > killedAt - 2000) excused++;
      // Stamped as this process came out of a stall: the request may have come as early as the stall's
      // start, and from there the next one was half an interval on or more.
      else if (stalls.some((x) => a.at >= x.to && a.at <= x.to + 200 && b.at - x.from >= half)) stamped++;
      else
        close.push(
          `c${i}: n${a.node + 1} at +${a.at - createdFrom} ms, n${b.node + 1} at +${b.at - createdFrom} ms (killed at +${killedAt - createdFrom}, restarted at +${restarted - createdFrom})`,
        );
    }
  }
  const longest = Math.max(0, ...stalls.map((x) => x.to - x.from));
  t.comment(
    `${all} checks in all; ${excused} pairs excused (sent by the killed node in its last 2 s), ${stamped} stamped late by a stall of the target's process (${stalls.length} stalls, the longest ${longest} ms)`,
  );
  t.same(close.slice(0, 20), [], `no two checks of one configuration within half an interval (${close.length} pairs)`);
});
