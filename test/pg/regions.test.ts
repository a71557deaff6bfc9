// Vantage points on several nodes (issue #22 item 10): two nodes on one PostgreSQL database, one in
// region eu and one in us, each with its own DNS server. The endpoint's name resolves from eu and not
// from us, so it fails from us only: with confirm_from 2 no down event comes, with 1 one does. Each
// region checks it once per interval (the due-queue holds a row per region, claimed only there).
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { sleep, waitFor } from '../support/wait.js';

t.setTimeout(120_000);
const skip = pgServerUrl() ? false : PG_SKIP;

t.test('two regions, an endpoint failing only from one', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'regions'))!;
  const target = await startHttpTarget();
  const euDns = await startLoopbackDns();
  const usDns = await startLoopbackDns();
  usDns.missing.add('example.com'); // from us the name does not resolve
  const nodes: TestApp[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.close();
    await target.close();
    await euDns.close();
    await usDns.close();
  });
  for (const [region, dns] of [
    ['eu', euDns],
    ['us', usDns],
  ] as const)
    nodes.push(
      await startApp({
        DOMMON_DATABASE_URL: url,
        DOMMON_NODE_NAME: `${region}-1`,
        DOMMON_NODE_REGION: region,
        DOMMON_DNS_SERVERS: dns.server,
        DOMMON_RATE_LIMIT: '1000000',
      }),
    );
  const [eu, us] = nodes as [TestApp, TestApp];
  const api = client(eu.url, await eu.token('regions'));
  const teamId = (await api.get('/api/v1/validate')).body.team_id as string;
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'web', endpoint_type: 'http', port: target.port })
  ).body;
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      regions: ['eu', 'us'],
      confirm_from: 2,
      interval_seconds: 1,
      timeout_seconds: 1,
      failure_threshold: 1,
    })
  ).body;
  const queue = eu.app.store.livenessDue;
  t.same(
    (await queue.allRegional()).map((r) => [r.configId, r.region]),
    [
      [cfg.id, 'eu'],
      [cfg.id, 'us'],
    ],
    'one due row per region',
  );
  t.same(
    (await queue.all()).map((r) => r.configId),
    [],
    'none in the queue of configs checked from anywhere',
  );

  const results = async (region?: string) =>
    (await api.get(`/api/v1/liveness/${cfg.id}/results?hours=1&limit=100${region ? `&region=${region}` : ''}`)).body;
  await waitFor(async () => (await results('eu')).total >= 4 && (await results('us')).total >= 4, 20_000);
  const events = async (category: string) =>
    (await eu.app.store.events.list(teamId)).filter((e) => e.category === category);
  t.same(await events('endpoint_down'), [], 'no down event while only us fails (confirm_from 2)');

  const status = (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  t.equal(status.status, 'up', 'combined: up');
  const views = new Map(status.regions.map((r: any) => [r.region, r]));
  t.match(views.get('eu'), { status: 'up', consecutive_failures: 0, last_check_successful: true });
  t.match(views.get('us'), { status: 'down', last_check_successful: false });
  t.ok((views.get('us') as any).consecutive_failures >= 4);
  t.match((views.get('us') as any).last_error, /ENOTFOUND|not found|NXDOMAIN|resolve/i);

  // Once per interval from each region: over a 5 s window, about five checks each, none doubled.
  // Counted by the checks' own times once the window's results are written (a node writes a batch
  // every 3 s), against the requests the target saw in the same window.
  const checksBetween = async (from: number, to: number, region?: string) =>
    ((await results(region)).results as { test_timestamp: string }[]).filter((r) => {
      const at = Date.parse(r.test_timestamp);
      return at >= from && at < to;
    }).length;
  const t0 = Date.now();
  const hits0 = target.requests;
  await sleep(5_000);
  const t1 = Date.now();
  const hits = target.requests - hits0;
  await sleep(3_500);
  const inWindow = { eu: await checksBetween(t0, t1, 'eu'), us: await checksBetween(t0, t1, 'us') };
  for (const r of ['eu', 'us'] as const) {
    const n = inWindow[r];
    t.ok(n >= 3 && n <= 7, `${r}: ${n} checks in 5 s at a 1 s interval`);
  }
  t.ok(
    Math.abs(hits - inWindow.eu) <= 2,
    `the target saw eu's checks only (${hits} requests, ${inWindow.eu} eu checks)`,
  );
  const all = (await results()).results as { id: string; region: string; test_timestamp: string }[];
  t.equal(new Set(all.map((r) => r.id)).size, all.length, 'every result its own id');
  const stats = (await api.get(`/api/v1/liveness/${cfg.id}/stats?days=1`)).body;
  const byRegion = new Map(stats.regions.map((r: any) => [r.region, r]));
  t.equal((byRegion.get('eu') as any).success_rate, 100);
  t.equal((byRegion.get('us') as any).success_rate, 0);
  t.equal(
    (byRegion.get('eu') as any).total_tests + (byRegion.get('us') as any).total_tests,
    stats.total_tests,
    'the regions add up to the total',
  );

  // One region is enough now: a down event, naming us; read through the other node's API as well.
  t.equal((await api.put(`/api/v1/liveness/${cfg.id}`, { confirm_from: 1 })).status, 200);
  const [down] = await waitFor(async () => {
    const d = await events('endpoint_down');
    return d.length > 0 && d;
  }, 15_000);
  t.match(down!.message, /DOWN from 1 of 2 regions \(us\)/);
  const usApi = client(us.url, await us.token('regions'));
  t.equal((await usApi.get(`/api/v1/liveness/${cfg.id}/status`)).body.status, 'down', 'read on the us node');

  // Dropping a region drops its due row; dropping every region moves the config back to the shared queue.
  await api.put(`/api/v1/liveness/${cfg.id}`, { regions: ['eu'] });
  t.same(
    (await queue.allRegional()).map((r) => r.region),
    ['eu'],
  );
  await api.put(`/api/v1/liveness/${cfg.id}`, { regions: [] });
  t.same(await queue.allRegional(), []);
  t.same(
    (await queue.all()).map((r) => r.configId),
    [cfg.id],
  );
  // Checked from anywhere now, by one node at a time: once per interval in all.
  await waitFor(async () => (await events('endpoint_recovered')).length > 0, 15_000).catch(() => undefined);
  const s0 = Date.now();
  await sleep(4_000);
  const s1 = Date.now();
  await sleep(3_500);
  const n = await checksBetween(s0, s1);
  t.ok(n >= 2 && n <= 6, `${n} checks in 4 s at 1 s, from one node at a time`);

  // The queue's sync repairs what a lost change left (or a node of the previous version added): a
  // config with regions gets its regional rows back and loses a shared row it should not have.
  await api.put(`/api/v1/liveness/${cfg.id}`, { regions: ['eu', 'us'] });
  const db = eu.app.store.db;
  await db.deleteFrom('liveness_region_due').where('region', '=', 'us').execute();
  await db.insertInto('liveness_due').values({ config_id: cfg.id, due_at: Date.now(), fresh: 0, token: 0 }).execute();
  t.match(await queue.sync(Date.now()), { added: 1 });
  t.same(
    (await queue.allRegional()).map((r) => r.region),
    ['eu', 'us'],
  );
  t.same(await queue.all(), [], 'no shared row for a config with regions');
});
