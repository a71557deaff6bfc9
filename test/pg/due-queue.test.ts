// The due-queue's primitives on a real PostgreSQL (issue 22 item 1): claims by two stores at once are
// disjoint and complete, a result is written only under the lease it was claimed with, a dead node's
// lease is taken over, a disabled target parks and a change wakes it, the sync repairs missing rows.
// And the other scheduled work leased per target (check_schedule): two nodes inspect each TLS
// endpoint once.
import t, { type Test } from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { client, startApp } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { openPgStore, type Store } from '../../src/store/index.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue } from '../support/certs.js';

t.setTimeout(180_000);
const skip = pgServerUrl() ? false : PG_SKIP;
const MARGIN = 10_000;
/** Worker nodes with a heartbeat in the last 30 s count as live (none in most of these tests: one). */
const live = (now: number) => new Date(now - 30_000).toISOString();

/** A node's row in the nodes table, its last heartbeat at `beat` (epoch ms): the nodes a claim counts. */
const nodeRow = (store: Store, name: string, role: string, beat: number) =>
  store.nodes.heartbeat({
    name,
    role,
    region: 'default',
    version: 'test',
    host: 'h',
    pid: 1,
    started_at: new Date(beat - 120_000).toISOString(),
    last_heartbeat: new Date(beat).toISOString(),
    work_claimed: 0,
    checks_total: 0,
    checks_per_minute: 0,
    singletons: [],
  });

/**
 * `n` HTTP endpoints of domain `name` with liveness configs (`liveness`), made through an api node on
 * `url` (it runs no scheduler and claims nothing) in bulks of 100: the domain's id, the configs' ids
 * in the order made, and a client of the api node.
 */
async function livenessConfigs(
  t: Test,
  url: string,
  name: string,
  n: number,
  liveness: { interval_seconds: number; timeout_seconds?: number },
  fields: (i: number) => Record<string, unknown> = () => ({}),
): Promise<{ domainId: string; ids: string[]; endpoints: string[]; c: ReturnType<typeof client> }> {
  const api = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => api.close());
  const c = client(api.url, await api.token(name));
  const domain = (await c.post('/api/v1/domains', { domain: name })).body;
  const ids: string[] = [];
  const endpoints: string[] = [];
  for (let from = 0; from < n; from += 100) {
    const r = await c.post('/api/v1/endpoints/bulk', {
      endpoints: Array.from({ length: Math.min(100, n - from) }, (_, k) => ({
        domain_id: domain.id,
        name: `e${from + k}`,
        endpoint_type: 'http',
        liveness,
        ...fields(from + k),
      })),
    });
    t.equal(r.status, 201, `endpoints ${from}-${Math.min(n, from + 100) - 1} created`);
    const made = r.body.data as { id: string; liveness: { id: string } }[];
    ids.push(...made.map((e) => e.liveness.id));
    endpoints.push(...made.map((e) => e.id));
  }
  return { domainId: domain.id as string, ids, endpoints, c };
}

t.test('claims, fenced releases, takeover, parking and repair', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'dueq'))!;
  // The rows come from the API (an `api` node runs no scheduler and claims nothing).
  const made = await livenessConfigs(t, url, 'queue.example', 400, { interval_seconds: 60, timeout_seconds: 5 });
  const { ids, c } = made;
  t.equal(ids.length, 400);
  const a = await openPgStore(url);
  const b = await openPgStore(url);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const rows = await a.livenessDue.all();
  t.equal(rows.length, 400, 'every new config has its row, written with it');
  t.ok(
    rows.every((r) => r.owner === null && r.due !== null),
    'due, not leased',
  );

  const now = Date.now();
  const far = now + 3_600_000;
  // Two nodes claim at the same moment, in batches of 50, until nothing is left.
  const take = async (s: typeof a, owner: string) => {
    const got = [];
    for (;;) {
      const { runs: batch, workers } = await s.livenessDue.claim(owner, {
        now,
        horizon: far,
        limit: 50,
        marginMs: MARGIN,
        liveSince: live(now),
      });
      if (workers !== 1) throw new Error(`no node rows, yet ${workers} workers counted`);
      if (!batch.length) return got;
      got.push(...batch);
    }
  };
  const [ga, gb] = await Promise.all([take(a, 'node-a'), take(b, 'node-b')]);
  t.equal(ga.length + gb.length, 400, `all claimed once (${ga.length} + ${gb.length})`);
  t.equal(new Set([...ga, ...gb].map((x) => x.configId)).size, 400, 'no config claimed by both');
  t.ok(ga.length > 0 && gb.length > 0, 'both nodes got work');
  t.ok(
    [...ga, ...gb].every((x) => x.token === 1 && x.fresh),
    'first claim: token 1, fresh',
  );
  t.ok(
    [...ga, ...gb].every(
      (x) =>
        x.target?.config.id === x.configId &&
        x.target.endpoint.id === x.target.config.endpoint_id &&
        x.target.endpoint.domain === 'queue.example',
    ),
    'each run comes with its config and endpoint, read in the claim statement',
  );
  t.same(
    await a.livenessDue.claim('node-c', { now, horizon: far, limit: 500, marginMs: MARGIN, liveSince: live(now) }),
    { runs: [], workers: 1, regionWorkers: 1, queued: { plain: 0, regional: 0 } },
    'none left (no node rows: one worker counted, the claimer, holding nothing it says)',
  );

  // The claim is a prepared statement: parsed once on a connection, run again by name.
  const one1 = await openPgStore(url, { poolSize: 1 });
  t.teardown(() => one1.close());
  const prepared = async () =>
    (
      await sql<{ name: string; calls: number }>`select name, generic_plans + custom_plans as calls
        from pg_prepared_statements where name like 'dommon_%'`.execute(one1.db)
    ).rows;
  t.same(await prepared(), [], 'none before the first claim');
  for (let i = 0; i < 3; i++)
    await one1.livenessDue.claim('node-p', {
      now,
      horizon: now - 1,
      limit: 10,
      marginMs: MARGIN,
      liveSince: live(now),
    });
  const claims = await prepared();
  t.equal(claims.length, 1, 'one prepared statement for three claims');
  t.equal(claims[0]!.calls, 3, 'run three times');
  // The tables every check updates in place leave room for HOT updates (migration 016) and prune
  // themselves: autovacuum waits longer (018).
  const room = await sql<{ relname: string; reloptions: string[] | null }>`select relname, reloptions from pg_class
    where relname in ('liveness_state', 'liveness_hourly', 'liveness_daily') order by relname`.execute(one1.db);
  t.same(
    room.rows.map((r) => [r.relname, r.reloptions]),
    [
      ['liveness_daily', ['fillfactor=50', 'autovacuum_vacuum_scale_factor=1']],
      ['liveness_hourly', ['fillfactor=50', 'autovacuum_vacuum_scale_factor=1']],
      ['liveness_state', ['fillfactor=50', 'autovacuum_vacuum_scale_factor=1']],
    ],
    'room for HOT updates (016), vacuumed once as many dead versions as rows (018)',
  );

  // A result under a stale token changes nothing; under the right one it sets the next due time.
  const one = ga[0]!;
  const stale = await a.livenessDue.release([{ configId: one.configId, token: one.token - 1, next: now + 1 }], MARGIN);
  t.equal(stale.live.size, 0, 'a stale token is fenced out');
  t.equal(stale.states.size, 0, 'and no state read for it');
  const ok = await a.livenessDue.release([{ configId: one.configId, token: one.token, next: now + 60_000 }], MARGIN);
  t.same([...ok.live], [one.configId], 'the holder writes');
  t.same([...ok.states], [[one.configId, null]], 'its state read in the same statement: none yet');
  const after = (await a.livenessDue.all()).find((r) => r.configId === one.configId)!;
  t.same({ due: after.due, owner: after.owner }, { due: now + 60_000, owner: null }, 'next due set, lease freed');

  // A config disabled meanwhile: its run comes without a target (the scheduler parks it).
  const off = ids[10]!;
  t.equal((await c.put(`/api/v1/liveness/${off}`, { is_enabled: false })).status, 200);
  // node-b dies: its leases (due + 5 s timeout + margin) run out; a takeover claim after that takes them.
  const later = now + 60 * 60_000;
  const { runs: claimed } = await a.livenessDue.claim('node-a', {
    now: later,
    horizon: later,
    limit: 1000,
    marginMs: MARGIN,
    liveSince: live(later),
  });
  const taken = claimed.filter((x) => x.taken);
  t.equal(taken.length, 398, 'every lease still held ran out and was taken over (one released, one revoked)');
  t.same(
    claimed
      .filter((x) => !x.taken)
      .map((x) => x.configId)
      .sort(),
    [one.configId, off].sort(),
    'the released one and the one whose lease the change revoked, due by then, are claimed as fresh runs in the same statement',
  );
  t.ok(
    taken.every((x) => x.token === 2),
    'with a new token',
  );
  t.same(
    claimed.filter((x) => !x.target).map((x) => x.configId),
    [off],
    'only the disabled config comes without its target',
  );
  const fromB = gb[0]!;
  const late = await b.livenessDue.release([{ configId: fromB.configId, token: fromB.token, next: later }], MARGIN);
  t.equal(late.live.size, 0, 'the dead node, back, cannot write under its old lease');

  // Parked (disabled), then woken by a change to the config.
  const p = taken.find((x) => x.configId !== fromB.configId)!;
  await a.livenessDue.release([{ configId: p.configId, token: p.token, next: null }], MARGIN);
  t.equal((await a.livenessDue.all()).find((r) => r.configId === p.configId)!.due, null, 'parked');
  await a.livenessDue.wake({ config: p.configId }, now);
  t.equal((await a.livenessDue.all()).find((r) => r.configId === p.configId)!.due, now, 'woken: due now');
  // A shorter interval through a domain-wide change: due no later than an interval from now.
  await a.livenessDue.release([{ configId: fromB.configId, token: 2, next: now + 86_400_000 }], MARGIN);
  await a.livenessDue.wake({ domain: made.domainId }, now);
  t.equal(
    (await a.livenessDue.all()).find((r) => r.configId === fromB.configId)!.due,
    now + 60_000,
    'a row due in a day comes within its 60 s interval',
  );
  // A change revokes the leases of its scope: their holders write nothing more under them.
  t.equal((await a.livenessDue.all()).filter((r) => r.owner !== null).length, 0, 'no lease left in the domain');
  const held = taken.find((x) => x.configId !== p.configId && x.configId !== fromB.configId)!;
  const revoked = await a.livenessDue.release([{ configId: held.configId, token: held.token, next: later }], MARGIN);
  t.equal(revoked.live.size, 0, 'a holder cannot write under a lease a change revoked');
  t.ok(
    (await a.livenessDue.all()).every((r) => r.due !== null),
    'every row due (the parked one woke with the domain)',
  );

  // The repair: a config without a row gets one; clean stop hands leases back.
  await a.db.deleteFrom('liveness_due').where('config_id', '=', ids[5]!).execute();
  const repaired = await a.livenessDue.sync(now);
  t.equal(repaired.added, 1, 'the missing row is back');
  const again = await a.livenessDue.claim('node-a', {
    now,
    horizon: far,
    limit: 1000,
    marginMs: MARGIN,
    liveSince: live(now),
  });
  t.equal(again.runs.length, 400, 'every row claimed again');
  t.equal(await a.livenessDue.releaseOwned('node-a'), 400, 'a clean stop hands back its leases');
  t.equal((await a.livenessDue.all()).filter((r) => r.owner !== null).length, 0, 'none leased');
});

t.test("the queue's size comes from the nodes' heartbeats and the claim's own read", { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'dueqsize'))!;
  const made = await livenessConfigs(t, url, 'size.example', 30, { interval_seconds: 60 });
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  const now = Date.now();
  const beat = (name: string, role: string, region: string, at: number, work: number, regional: number) =>
    store.nodes.heartbeat({
      name,
      role,
      region,
      version: 'test',
      host: 'h',
      pid: 1,
      started_at: new Date(at - 120_000).toISOString(),
      last_heartbeat: new Date(at).toISOString(),
      work_claimed: work,
      work_regional: regional,
      checks_total: 0,
      checks_per_minute: 0,
      singletons: [],
    });
  await beat('n1', 'all', 'default', now, 120, 20);
  await beat('n2', 'worker', 'eu', now, 50, 10);
  await beat('old', 'all', 'default', now - 60_000, 400, 0); // stale: not counted
  await beat('front', 'api', 'default', now, 999, 0); // an api node holds nothing
  await beat('me', 'all', 'default', now - 8000, 1000, 100); // its own row is older than `held`
  // A share that takes nothing (nothing urgent, no room): the 30 unleased rows due are only read.
  const r = await store.livenessDue.claim('me', {
    now,
    horizon: now + 4000,
    limit: 1000,
    marginMs: MARGIN,
    liveSince: live(now),
    share: { urgent: 0, cap: 0 },
    held: { plain: 5, regional: 2 },
  });
  t.equal(r.runs.length, 0, 'nothing taken');
  t.same([r.workers, r.regionWorkers], [3, 2], 'three live workers (n1, n2, me), two of them in the default region');
  t.same(
    r.queued,
    // plain: n1's 100 and n2's 40 as they said, this node's 5 now, the 30 unleased rows due;
    // regional: n1's 20 (of this region; n2's are the eu region's) and this node's 2.
    { plain: 100 + 40 + 5 + made.ids.length, regional: 20 + 2 },
    'the live workers held (each own count newest), plus the unleased runs due by the horizon',
  );
});

t.test('two nodes inspect each TLS endpoint once (leased per target)', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'tlslease'))!;
  const dns = await startLoopbackDns();
  const target = await startHttpTarget({ tls: issue({ cn: 'tls.example', toDays: 90 }) });
  t.teardown(async () => {
    await target.close();
    await dns.close();
  });
  const env = (name: string, role: string) => ({
    DOMMON_DATABASE_URL: url,
    DOMMON_ROLE: role,
    DOMMON_NODE_NAME: name,
    DOMMON_DNS_SERVERS: dns.server,
    DOMMON_RATE_LIMIT: '1000000',
  });
  const api = await startApp(env('api', 'api'));
  t.teardown(() => api.close());
  const c = client(api.url, await api.token('tls'));
  const domain = (await c.post('/api/v1/domains', { domain: 'tls.example' })).body;
  const r = await c.post('/api/v1/endpoints/bulk', {
    endpoints: Array.from({ length: 40 }, (_, k) => ({
      domain_id: domain.id,
      name: `t${k}`,
      endpoint_type: 'https',
      port: target.port,
      path: `/t${k}`,
    })),
  });
  t.equal(r.status, 201);
  const before = target.connections;
  const w1 = await startApp(env('w1', 'worker'));
  const w2 = await startApp(env('w2', 'worker'));
  t.teardown(() => Promise.all([w1.close(), w2.close()]));
  // Until every endpoint has a verdict and the target saw 40 handshakes (on a loaded machine, beside
  // other test files, the last ones took over 30 s once), or a minute.
  const deadline = Date.now() + 60_000;
  let unknown = 40;
  for (;;) {
    const s = (await c.get(`/api/v1/endpoints?domain_id=${domain.id}&limit=100`)).body;
    const list = (s.data ?? s.endpoints ?? s.items) as { ssl_status: string }[];
    unknown = list.filter((e) => e.ssl_status === 'unknown').length;
    if ((!unknown && target.connections - before >= 40) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // Two more cycles of each node: nothing is inspected twice within the check interval.
  await new Promise((r) => setTimeout(r, 4500));
  t.equal(
    target.connections - before,
    40,
    `one handshake per endpoint, with two nodes inspecting (${unknown} without a verdict at the wait's end)`,
  );
});

t.test('a claim with a share takes 1/n of what is due, and all that is urgent', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'share'))!;
  await livenessConfigs(t, url, 'share.example', 90, { interval_seconds: 60, timeout_seconds: 5 });
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  const now = Date.now();
  // Due every 100 ms from now on, in the order of their ids.
  const ids = (await store.livenessDue.all()).map((x) => x.configId).sort();
  for (const [k, id] of ids.entries())
    await sql`update liveness_due set due_at = ${now + k * 100} where config_id = ${id}`.execute(store.db);
  // Three live worker nodes (one of role all); an api node and a worker silent for a minute do not count.
  const node = (name: string, role: string, age: number) => nodeRow(store, name, role, now - age);
  await node('w1', 'worker', 1000);
  await node('w2', 'worker', 5000);
  await node('w3', 'all', 0);
  await node('api', 'api', 0);
  await node('gone', 'worker', 60_000);
  const share = (urgent: number) => ({ urgent });
  const window = { now, horizon: now + 10_000, limit: 1000, marginMs: MARGIN, liveSince: live(now) };
  const first = await store.livenessDue.claim('w1', { ...window, share: share(now + 1000) });
  t.equal(first.workers, 3, 'three live workers counted: not the api node, not the silent one');
  t.same(
    first.runs.map((x) => x.configId).sort(),
    ids.slice(0, 30),
    'a third of the 90 due (three live workers), the earliest first',
  );
  const second = await store.livenessDue.claim('w2', { ...window, share: share(now + 1000) });
  t.same(second.runs.map((x) => x.configId).sort(), ids.slice(30, 50), 'then a third of the 60 left');
  // Of the 40 left (due 5-8.9 s from now), 16 are due by the urgent point: more than a third (14).
  const urgent = await store.livenessDue.claim('w3', { ...window, share: share(now + 6_500) });
  t.same(
    urgent.runs.map((x) => x.configId).sort(),
    ids.slice(50, 66),
    'every run due by the urgent point, even past the share',
  );
  // More due than a claim reads (its limit, 12 of the 24 left): a third of what it read, not all of it.
  const capped = await store.livenessDue.claim('w2', { ...window, limit: 12, share: share(now + 1000) });
  t.same(
    capped.runs.map((x) => x.configId).sort(),
    ids.slice(66, 70),
    'past the limit: a third of the 12 read, the earliest',
  );
  const rest = await store.livenessDue.claim('w1', window);
  t.same(rest.runs.map((x) => x.configId).sort(), ids.slice(70), 'without a share a claim takes all that is due');
});

t.test('n live workers: each claims n times less often and further ahead', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'pace'))!;
  const [id] = (await livenessConfigs(t, url, 'pace.example', 1, { interval_seconds: 60 })).ids as [string];
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  // A worker started now, its config's run due 7 s from now: is it claimed by the worker's second round?
  const secondRound = async (name: string) => {
    await sql`update liveness_due set due_at = ${Date.now() + 7000}, owner = null, lease_until = null
      where config_id = ${id}`.execute(store.db);
    const w = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'worker', DOMMON_NODE_NAME: name });
    t.teardown(() => w.close());
    // Its first round (started with it) counts the live workers (its own row is written before it
    // claims); the second is paced by that count.
    await w.app.probing.liveness.reload();
    await w.app.probing.liveness.reload();
    const held = (w.app.probing.liveness as { dueOf(id: string): number | undefined }).dueOf(id) !== undefined;
    await w.close();
    return held;
  };
  // Alone: a round every 1.5 s on average, claiming 4 s ahead.
  t.equal(await secondRound('alone'), false, 'a lone worker does not claim a run 7 s away');
  // Two more live workers: its rounds come every 4.5 s on average, so it claims 8.5 s ahead.
  await nodeRow(store, 'other-1', 'worker', Date.now());
  await nodeRow(store, 'other-2', 'all', Date.now());
  t.equal(await secondRound('one-of-three'), true, 'one of three claims it: its next round may be 6.75 s away');
});

t.test(
  'a node keeps the leases of its part; a change revokes one; a node that joins gets its part',
  { skip },
  async (t) => {
    const url = (await freshPgDatabase(t, 'sticky'))!;
    const dns = await startLoopbackDns();
    t.teardown(() => dns.close());
    // Path /k/<i> (or any other) -> the times it was asked.
    const hits = new Map<string, number[]>();
    const target = http.createServer((req, res) => {
      hits.set(req.url ?? '', [...(hits.get(req.url ?? '') ?? []), Date.now()]);
      res.end('ok');
    });
    target.keepAliveTimeout = 1;
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => target.close(() => r())));
    const port = (target.address() as AddressInfo).port;
    const N = 30;
    const made = await livenessConfigs(
      t,
      url,
      'sticky.example',
      N,
      { interval_seconds: 6, timeout_seconds: 2 },
      (i) => ({
        port,
        path: `/k/${i}`,
      }),
    );
    const store = await openPgStore(url);
    t.teardown(() => store.close());
    const worker = (name: string) =>
      startApp({
        DOMMON_DATABASE_URL: url,
        DOMMON_ROLE: 'worker',
        DOMMON_NODE_NAME: name,
        DOMMON_DNS_SERVERS: dns.server,
      });
    const until = async (what: string, ok: () => boolean | Promise<boolean>, ms: number) => {
      const end = Date.now() + ms;
      while (!(await ok())) {
        if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const rows = () => store.livenessDue.all();

    const a = await worker('a');
    t.teardown(() => a.close());
    // Three runs of each: its first, the spread second one, one interval later the third.
    await until(
      'three checks of each config',
      () => made.ids.every((_, i) => (hits.get(`/k/${i}`)?.length ?? 0) >= 3),
      40_000,
    );
    const kept = await rows();
    t.ok(
      kept.every((r) => r.owner === 'a' && r.token === 1),
      'every row still under its first lease after three runs (kept for the next run, not claimed again)',
    );

    // A change to an endpoint revokes its lease: the next run reads the new path.
    const changedAt = Date.now();
    t.equal((await made.c.put(`/api/v1/endpoints/${made.endpoints[0]}`, { path: '/moved' })).status, 200);
    await until('a check of the new path', () => (hits.get('/moved')?.length ?? 0) > 0, 15_000);
    // The next run, at most one 6 s interval away, already reads the new path. The bound leaves 4.5 s for
    // a loaded machine's claim round and the probe itself (2.5 s was passed once in a loaded CI run).
    const movedAfter = hits.get('/moved')![0]! - changedAt;
    t.ok(movedAfter < 10_500, `the new path checked at the next run after the change (${movedAfter} ms after it)`);
    const moved = (await rows()).find((r) => r.configId === made.ids[0])!;
    t.ok(moved.token >= 3, `revoked (a new token) and claimed again: token ${moved.token}`);

    // A second worker joins: the first lets runs go until it holds its part (15, and up to 2 more).
    const b = await worker('b');
    t.teardown(() => b.close());
    await until(
      'the second worker holds its part',
      async () => (await rows()).filter((r) => r.owner === 'b').length >= N / 2 - 2,
      40_000,
    );
    const owners = await rows();
    const ofA = owners.filter((r) => r.owner === 'a').length;
    t.ok(ofA <= N / 2 + 2, `the first keeps no more than its part and the slack: ${ofA}`);
    t.ok(
      owners.every((r) => r.owner !== null || r.due !== null),
      'nothing parked on the way',
    );
  },
);
