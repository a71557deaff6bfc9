// Liveness configs created at the same moment on two nodes of one PostgreSQL database (issue #22:
// "liveness.insert with max(seq)+1" was a single-writer assumption): every create succeeds, none is
// answered 409 LIVENESS_EXISTS for a config that did not exist, and each gets its own integer key.
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

t.setTimeout(120_000);
const skip = pgServerUrl() ? false : PG_SKIP;

t.test('two nodes create 60 liveness configs at once', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'creates'))!;
  const nodes: TestApp[] = [];
  t.teardown(async () => {
    for (const n of nodes) await n.close();
  });
  for (const name of ['a1', 'a2'])
    nodes.push(await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_NODE_NAME: name }));
  const token = await nodes[0]!.token('creates');
  const apis = nodes.map((n) => client(n.url, token));
  const domain = (await apis[0]!.post('/api/v1/domains', { domain: 'example.com' })).body;
  const bulk = await apis[0]!.post('/api/v1/endpoints/bulk', {
    endpoints: Array.from({ length: 60 }, (_, i) => ({
      domain_id: domain.id,
      name: `ep${i}`,
      endpoint_type: 'http',
      port: 8000 + i,
    })),
  });
  const endpointIds = (await apis[0]!.get('/api/v1/endpoints?limit=100')).body.endpoints.map((e: any) => e.id);
  t.equal(endpointIds.length, 60, `60 endpoints (bulk answered ${bulk.status})`);
  // Alternate nodes, all in flight together.
  const answers = await Promise.all(
    endpointIds.map((id: string, i: number) =>
      apis[i % 2]!.post('/api/v1/liveness', { endpoint_id: id, interval_seconds: 300 }),
    ),
  );
  t.same(
    answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.code]),
    [],
    'every create answered 201',
  );
  const configs = await nodes[1]!.app.store.liveness.forEndpoints(endpointIds);
  t.equal(configs.length, 60);
  t.equal(new Set(configs.map((c) => c.seq)).size, 60, 'each its own seq');
});

t.test(
  'two nodes bulk-create the same domains at once: each name made once, the rest per-item conflicts',
  { skip },
  async (t) => {
    const url = (await freshPgDatabase(t, 'bulkrace'))!;
    const nodes: TestApp[] = [];
    t.teardown(async () => {
      for (const n of nodes) await n.close();
    });
    for (const name of ['b1', 'b2'])
      nodes.push(await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_NODE_NAME: name }));
    const token = await nodes[0]!.token('bulkrace');
    const apis = nodes.map((n) => client(n.url, token));
    const names = Array.from({ length: 40 }, (_, i) => ({ domain: `race-${i}.com` }));
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => apis[i % 2]!.post('/api/v1/domains/bulk', { domains: names })),
    );
    t.same(
      answers.map((a) => a.status),
      [201, 201, 201, 201, 201, 201],
      'every bulk request answered 201',
    );
    const created = answers.reduce((n, a) => n + a.body.created, 0);
    t.equal(created, 40, 'each name made by exactly one request');
    const conflicts = answers.flatMap((a) => a.body.errors as { code: string }[]);
    t.equal(conflicts.length, 6 * 40 - 40);
    t.same([...new Set(conflicts.map((e) => e.code))], ['DOMAIN_EXISTS']);
    const listed = (await apis[1]!.get('/api/v1/domains?limit=100')).body.domains.map((d: any) => d.domain);
    t.equal(new Set(listed).size, 40);
  },
);
