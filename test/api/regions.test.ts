// Vantage points through the API on one SQLite node (issue #22 item 10): `regions` and `confirm_from`
// on liveness configs (validated, stored, answered), outcomes recorded from two regions by the real
// monitor service (a node records its own region's), k-of-n down events, and results, stats and
// status that carry the region. A node checks only configs without regions or listing its region.
// test/pg/regions.test.ts runs two real nodes in two regions on PostgreSQL.
import t, { type Test } from 'tap';
import { client, startApp } from '../support/app.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import type { CheckOutcome } from '../../src/domain/liveness.js';

const ok: CheckOutcome = { ok: true, responseTimeMs: 20, statusCode: 200, error: null };
const refused: CheckOutcome = { ok: false, responseTimeMs: 1, statusCode: null, error: 'connect ECONNREFUSED' };

async function setup(t: Test, env: Record<string, string> = {}) {
  const dns = await startLoopbackDns();
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000', ...env });
  t.teardown(async () => {
    await s.close();
    await dns.close();
  });
  const api = client(s.url, await s.token('regions'));
  const teamId = (await api.get('/api/v1/validate')).body.team_id as string;
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const endpoint = async (name: string, port: number) =>
    (await api.post('/api/v1/endpoints', { domain_id: domain.id, name, endpoint_type: 'http', port })).body;
  return { s, api, teamId, endpoint };
}

t.test('regions and confirm_from: stored, answered, validated', async (t) => {
  const { api, endpoint } = await setup(t);
  const ep = await endpoint('web', 8080);
  const created = await api.post('/api/v1/liveness', {
    endpoint_id: ep.id,
    regions: ['eu-west', 'us-east', 'ap:1'],
    confirm_from: 2,
  });
  t.equal(created.status, 201);
  t.same(created.body.regions, ['eu-west', 'us-east', 'ap:1']);
  t.equal(created.body.confirm_from, 2);
  const id = created.body.id as string;
  t.same((await api.get(`/api/v1/liveness/${id}`)).body.regions, ['eu-west', 'us-east', 'ap:1']);

  const refused = async (body: object, what: RegExp) => {
    const r = await api.put(`/api/v1/liveness/${id}`, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.code, 'VALIDATION_ERROR');
    t.match(r.body.error, what);
  };
  await refused({ confirm_from: 4 }, /cannot exceed the number of regions \(3\)/);
  await refused({ regions: ['eu', 'eu'] }, /duplicate|repeat|identical/i);
  await refused({ regions: [' eu'] }, /pattern|regions/);
  await refused({ regions: Array.from({ length: 17 }, (_, i) => `r${i}`) }, /more than 16|regions/);
  await refused({ regions: ['eu'], confirm_from: 2 }, /cannot exceed the number of regions \(1\)/);
  await refused({ confirm_from: 0 }, /confirm_from|>= 1/);
  t.equal((await api.get(`/api/v1/liveness/${id}`)).body.confirm_from, 2, 'nothing refused was stored');

  // Dropping the regions falls back to confirm_from 1; asking for 2 without regions is refused.
  const cleared = await api.put(`/api/v1/liveness/${id}`, { regions: [] });
  t.equal(cleared.status, 200);
  t.same(cleared.body.regions, []);
  t.equal(cleared.body.confirm_from, 1);
  await refused({ confirm_from: 2 }, /needs regions/);

  // The endpoint create's inline block takes them too; a config without them answers [] and 1.
  const inline = await api.post('/api/v1/endpoints', {
    domain_id: (await api.get(`/api/v1/endpoints/${ep.id}`)).body.domain_id,
    name: 'inline',
    endpoint_type: 'http',
    port: 8081,
    liveness: { regions: ['eu', 'us'], confirm_from: 2 },
  });
  t.equal(inline.status, 201);
  t.same(inline.body.liveness.regions, ['eu', 'us']);
  const plain = (await api.post('/api/v1/liveness', { endpoint_id: (await endpoint('plain', 8082)).id })).body;
  t.same(plain.regions, []);
  t.equal(plain.confirm_from, 1);
});

t.test('two regions, an endpoint failing from one: down only when confirm_from regions agree', async (t) => {
  const { s, api, teamId, endpoint } = await setup(t);
  const ep = await endpoint('api', 8443);
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      regions: ['eu', 'us'],
      confirm_from: 2,
      failure_threshold: 1,
      interval_seconds: 60,
    })
  ).body;
  // This node's region is `default`: it never checks this config itself; the outcomes come as two
  // regions' nodes would record them, through the real monitor service.
  const [target] = await s.app.services.monitor.targetsIn({ id: cfg.id });
  const record = (at: number, region: string, outcome: CheckOutcome) =>
    s.app.services.monitor.record([{ ...target!, outcome, at, region }]).then((r) => r.written);
  const t0 = Date.now() - 60_000;
  for (let i = 0; i < 3; i++) {
    t.equal(await record(t0 + i * 10_000, 'eu', ok), 1);
    t.equal(await record(t0 + i * 10_000 + 5, 'us', refused), 1);
  }
  const downEvents = async () => (await s.app.store.events.list(teamId)).filter((e) => e.category === 'endpoint_down');
  t.same(await downEvents(), [], 'no down event: only us sees it down');

  const status = (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  t.equal(status.status, 'up');
  t.equal(status.confirm_from, 2);
  t.same(
    status.regions.map((r: any) => [r.region, r.status, r.consecutive_failures, r.last_error]),
    [
      ['eu', 'up', 0, null],
      ['us', 'down', 3, 'connect ECONNREFUSED'],
    ],
  );

  const results = (await api.get(`/api/v1/liveness/${cfg.id}/results?hours=1`)).body;
  t.equal(results.total, 6);
  t.same(
    results.results.map((r: any) => [r.region, r.is_successful]),
    [
      ['us', false],
      ['eu', true],
      ['us', false],
      ['eu', true],
      ['us', false],
      ['eu', true],
    ],
    'newest first, each with its region',
  );
  const us = (await api.get(`/api/v1/liveness/${cfg.id}/results?hours=1&region=us`)).body;
  t.equal(us.total, 3);
  t.ok(us.results.every((r: any) => r.region === 'us' && !r.is_successful));
  t.equal(
    new Set(results.results.map((r: any) => r.id)).size,
    6,
    'two regions recording the same millisecond still get their own result ids',
  );

  const stats = (await api.get(`/api/v1/liveness/${cfg.id}/stats?days=1`)).body;
  t.equal(stats.total_tests, 6);
  t.equal(stats.successful_tests, 3);
  t.same(
    stats.regions.map((r: any) => [r.region, r.total_tests, r.successful_tests, r.success_rate]),
    [
      ['eu', 3, 3, 100],
      ['us', 3, 0, 0],
    ],
  );

  // One region is enough now: the next failure from us is a down event naming it.
  t.equal((await api.put(`/api/v1/liveness/${cfg.id}`, { confirm_from: 1 })).status, 200);
  const [changed] = await s.app.services.monitor.targetsIn({ id: cfg.id });
  await s.app.services.monitor.record([{ ...changed!, outcome: refused, at: t0 + 40_000, region: 'us' }]);
  const [down] = await downEvents();
  t.ok(down, 'a down event');
  t.match(down!.message, /is DOWN from 1 of 2 regions \(us\)/);
  const details = typeof down!.details === 'string' ? JSON.parse(down!.details) : down!.details;
  t.match(details, { region: 'us', regions_down: ['us'], confirm_from: 1, consecutive_failures: 4 });
  t.equal((await api.get(`/api/v1/liveness/${cfg.id}/status`)).body.status, 'down');

  // A region the config does not list records nothing.
  t.equal(
    (await s.app.services.monitor.record([{ ...changed!, outcome: ok, at: t0 + 50_000, region: 'ap' }])).written,
    0,
  );
});

t.test('a node checks configs without regions and those listing its region, as that region', async (t) => {
  const mineTarget = await startHttpTarget();
  const otherTarget = await startHttpTarget();
  t.teardown(async () => {
    await mineTarget.close();
    await otherTarget.close();
  });
  const { api, endpoint } = await setup(t, { DOMMON_NODE_REGION: 'eu' });
  const mine = (
    await api.post('/api/v1/liveness', {
      endpoint_id: (await endpoint('mine', mineTarget.port)).id,
      regions: ['eu', 'us'],
      interval_seconds: 1,
    })
  ).body;
  await api.post('/api/v1/liveness', {
    endpoint_id: (await endpoint('other', otherTarget.port)).id,
    regions: ['us'],
    interval_seconds: 1,
  });
  const results = await waitFor(async () => {
    const b = (await api.get(`/api/v1/liveness/${mine.id}/results?hours=1`)).body;
    return b.total >= 2 && b;
  }, 10_000);
  t.ok(
    results.results.every((r: any) => r.region === 'eu' && r.is_successful),
    'checked from eu',
  );
  t.equal(otherTarget.requests, 0, 'the us-only config is not this node’s to check');
  const status = (await api.get(`/api/v1/liveness/${mine.id}/status`)).body;
  t.same(
    status.regions.map((r: any) => [r.region, r.status]),
    [
      ['eu', 'up'],
      ['us', 'unknown'],
    ],
  );
});
