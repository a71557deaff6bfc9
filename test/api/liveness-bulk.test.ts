// POST /api/v1/liveness/bulk (extension) answers per item exactly as the domains and endpoints bulk
// routes do (same keys, same failure entries, same limits); an endpoint create or bulk create may
// carry its liveness settings inline, committed with the endpoint (both or neither) and announced to
// the scheduler's change feed.
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

t.setTimeout(120_000);

async function setup(t: { teardown(fn: () => unknown): void }) {
  const s = await startApp();
  t.teardown(() => s.close());
  // The daemon's own probes of these unreachable endpoints are not the subject here.
  await s.app.probing.stop(0);
  const api = client(s.url, await s.token('ops'));
  const other = client(s.url, await s.token('others'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const otherDomain = (await other.post('/api/v1/domains', { domain: 'example.net' })).body;
  const endpoint = async (c: typeof api, domainId: string, name: string, extra: Record<string, unknown> = {}) =>
    (await c.post('/api/v1/endpoints', { domain_id: domainId, name, endpoint_type: 'https', ...extra })).body;
  return { s, api, other, domain, otherDomain, endpoint };
}

/**
 * The structure of a bulk answer, the resource-specific parts named generically: the named summary
 * array becomes `<name>`, created items become their count, every other value its JSON type, failure
 * entries their keys and value types (the `input` echoed back is the item as sent, so only its type).
 */
function shape(body: Record<string, unknown>, name: string): Record<string, any> {
  const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k === name ? '<name>' : k] = type(v);
  out.errors = (body.errors as Record<string, unknown>[]).map((e) =>
    Object.fromEntries(Object.entries(e).map(([k, v]) => [k, k === 'code' || k === 'index' ? v : type(v)])),
  );
  out.data = (body.data as unknown[]).map(type);
  out['<name>'] = (body[name] as Record<string, unknown>[]).map((x) => type(x.id));
  out.message = String(body.message).replace(/\d+/g, 'N');
  return out;
}

t.test(
  'liveness bulk: per-item answers for mixed items, the same as the endpoints and domains bulk routes',
  async (t) => {
    const { s, api, domain, otherDomain, other, endpoint } = await setup(t);
    const [a, b, c, configured] = await Promise.all(
      ['a', 'b', 'c', 'configured'].map((n) => endpoint(api, domain.id, n)),
    );
    const foreign = await endpoint(other, otherDomain.id, 'theirs');
    await api.post('/api/v1/liveness', { endpoint_id: configured.id });
    const changes: unknown[] = [];
    t.teardown(s.app.services.liveness.onChange((ch) => changes.push(ch)));

    const items = [
      { endpoint_id: a.id, interval_seconds: 30, expected_status_code: 204 }, // 0 created
      { endpoint_id: b.id, interval_seconds: 0 }, // 1 invalid
      { endpoint_id: configured.id }, // 2 a configuration exists
      { endpoint_id: MISSING }, // 3 no such endpoint
      { endpoint_id: foreign.id }, // 4 another team's endpoint
      { endpoint_id: c.id, is_enabled: false, failure_threshold: 3 }, // 5 created
      { endpoint_id: a.id }, // 6 repeated within the batch
      { endpoint_id: b.id, colour: 'red' }, // 7 unknown field
    ];
    const r = await api.post('/api/v1/liveness/bulk', { operation: 'create', liveness: items });
    t.equal(r.status, 201);
    t.match(r.body, { created: 2, failed: 6, message: '2 created, 6 failed' });
    t.match(r.body.data, [
      {
        endpoint_id: a.id,
        interval_seconds: 30,
        expected_status_code: 204,
        timeout_seconds: 10,
        failure_threshold: 1,
        is_enabled: true,
      },
      { endpoint_id: c.id, is_enabled: false, failure_threshold: 3, interval_seconds: 60 },
    ]);
    t.same(
      r.body.liveness,
      r.body.data.map((x: any) => ({ id: x.id, endpoint_id: x.endpoint_id })),
      'summaries of the created items',
    );
    t.same(
      r.body.errors.map((e: any) => [e.index, e.code]),
      [
        [1, 'VALIDATION_ERROR'],
        [2, 'LIVENESS_EXISTS'],
        [3, 'NOT_FOUND'],
        [4, 'NOT_FOUND'],
        [6, 'LIVENESS_EXISTS'],
        [7, 'VALIDATION_ERROR'],
      ],
    );
    t.match(r.body.errors[0], { input: items[1], error: /interval_seconds/ });
    t.match(r.body.errors[2].error, /^Endpoint not found$/);
    t.equal(r.body.errors[3].error, r.body.errors[2].error, "another team's endpoint answers as a missing one");
    t.match(r.body.errors[5].error, /colour: unknown field/);
    t.same(
      changes,
      r.body.data.map((x: any) => ({ config: x.id, created: true })),
      'each created config reaches the scheduler',
    );
    t.equal((await api.get('/api/v1/liveness')).body.total, 3, 'only the valid items were created');
    t.equal((await other.get('/api/v1/liveness')).body.total, 0, 'nothing was created for the other team');
    t.equal((await api.get(`/api/v1/endpoints/${a.id}`)).body.liveness_enabled, true);

    // The same mix for the endpoints and domains bulk routes: created, invalid, existing, missing parent.
    const eps = await api.post('/api/v1/endpoints/bulk', {
      operation: 'create',
      endpoints: [
        { domain_id: domain.id, name: 'd', endpoint_type: 'https' },
        { domain_id: domain.id, name: 'e', endpoint_type: 'gopher' },
        { domain_id: domain.id, name: 'a', endpoint_type: 'https' },
        { domain_id: MISSING, name: 'f', endpoint_type: 'https' },
        { domain_id: otherDomain.id, name: 'g', endpoint_type: 'https' },
        { domain_id: domain.id, name: 'h', endpoint_type: 'http' },
        { domain_id: domain.id, name: 'd', endpoint_type: 'http' },
        { domain_id: domain.id, name: 'i', endpoint_type: 'http', colour: 'red' },
      ],
    });
    const doms = await api.post('/api/v1/domains/bulk', {
      operation: 'create',
      domains: [
        { domain: 'one.com' },
        { domain: 'co.uk' },
        { domain: 'example.com' },
        { domain: 'missing.com', portfolio_id: MISSING },
        { domain: 'two.com', portfolio_id: MISSING },
        { domain: 'three.com' },
        { domain: 'one.com' },
        { domain: 'four.com', colour: 'red' },
      ],
    });
    t.equal(eps.status, r.status);
    t.equal(doms.status, r.status);
    const expected = shape(r.body, 'liveness');
    t.same(shape(eps.body, 'endpoints'), {
      ...expected,
      errors: expected.errors.map((e: any) => ({ ...e, code: e.code.replace('LIVENESS', 'ENDPOINT') })),
    });
    const domErrors = shape(doms.body, 'domains').errors as { code: string }[];
    t.same(shape(doms.body, 'domains'), {
      ...expected,
      // a bad domain name has its own code; everything else answers alike
      errors: expected.errors.map((e: any, i: number) => ({
        ...e,
        code: i === 0 ? domErrors[0]!.code : e.code.replace('LIVENESS', 'DOMAIN'),
      })),
    });
    t.equal(domErrors[0]!.code, 'INVALID_DOMAIN');
    t.same(
      Object.keys(r.body),
      Object.keys(eps.body).map((k) => (k === 'endpoints' ? 'liveness' : k)),
      'the same keys in the same order',
    );
  },
);

t.test('liveness bulk: the same limits and refusals as the other bulk routes', async (t) => {
  const { api } = await setup(t);
  const routes = [
    ['/api/v1/liveness/bulk', 'liveness', { endpoint_id: MISSING }],
    ['/api/v1/endpoints/bulk', 'endpoints', { domain_id: MISSING, name: 'x', endpoint_type: 'https' }],
    ['/api/v1/domains/bulk', 'domains', { domain: 'x.com', portfolio_id: MISSING }],
  ] as const;
  const answers = async (body: (key: string, item: object) => unknown) =>
    Promise.all(
      routes.map(async ([p, key, item]) => {
        const r = await api.post(p, body(key, item));
        return { status: r.status, code: r.body.code, error: String(r.body.error).replace(key, '<name>') };
      }),
    );
  const tooMany = await answers((key, item) => ({ [key]: Array.from({ length: 1001 }, () => item) }));
  t.match(tooMany[0], { status: 400, code: 'VALIDATION_ERROR', error: /<name>: must NOT have more than 1000 items/ });
  t.same(tooMany, [tooMany[0], tooMany[0], tooMany[0]], 'over 1000 items: one answer for all three');
  for (const bad of [
    (key: string) => ({ [key]: [] }),
    () => ({}),
    (key: string) => ({ [key]: {} }),
    (key: string, item: object) => ({ operation: 'update', [key]: [item] }),
    (key: string, item: object) => ({ [key]: [item], other: 1 }),
    (key: string) => ({ [key]: ['x'] }),
  ]) {
    const got = await answers(bad);
    t.equal(got[0]!.status, 400, JSON.stringify(bad('liveness', {})));
    t.same(got, [got[0], got[0], got[0]], `the same refusal: ${JSON.stringify(bad('<name>', {}))}`);
  }
  const full = await api.post('/api/v1/liveness/bulk', {
    liveness: Array.from({ length: 1000 }, () => ({ endpoint_id: MISSING })),
  });
  t.match(full.body, { created: 0, failed: 1000 }, '1000 items are taken, each answered on its own');
  t.equal((await api.get('/api/v1/liveness')).body.total, 0);
});

/** A trigger that makes the configuration insert fail (on whichever engine the app runs). */
async function failLivenessInserts(s: TestApp, interval: number): Promise<() => Promise<void>> {
  if (s.config.database) {
    const c = new pg.Client({ connectionString: s.config.database.url });
    await c.connect();
    await c.query(`create function fail_liveness() returns trigger language plpgsql as $$
      begin if new.interval_seconds = ${interval} then raise exception 'injected failure'; end if; return new; end $$`);
    await c.query(
      'create trigger fail_liveness before insert on liveness_configs for each row execute function fail_liveness()',
    );
    return async () => {
      await c.query('drop trigger fail_liveness on liveness_configs');
      await c.query('drop function fail_liveness()');
      await c.end();
    };
  }
  const db = new Database(path.join(s.dataDir, 'dommon.db'));
  db.exec(
    `CREATE TRIGGER fail_liveness BEFORE INSERT ON liveness_configs WHEN NEW.interval_seconds = ${interval} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  );
  return async () => {
    db.exec('DROP TRIGGER fail_liveness');
    db.close();
  };
}

t.test('endpoint create with inline liveness: one transaction, defaults, the change feed', async (t) => {
  const { s, api, domain, other } = await setup(t);
  const changes: unknown[] = [];
  t.teardown(s.app.services.liveness.onChange((ch) => changes.push(ch)));

  const plain = await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'plain', endpoint_type: 'https' });
  t.equal(plain.status, 201);
  t.notOk('liveness' in plain.body, 'no liveness block, no liveness in the answer');

  const c = await api.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'web',
    endpoint_type: 'https',
    subdomain: 'www',
    liveness: { interval_seconds: 30, expected_status_code: 204 },
  });
  t.equal(c.status, 201);
  t.match(c.body, { name: 'web', full_url: 'https://www.example.com/' });
  t.match(c.body.liveness, {
    endpoint_id: c.body.id,
    interval_seconds: 30,
    expected_status_code: 204,
    timeout_seconds: 10,
    failure_threshold: 1,
    is_enabled: true,
  });
  const stored = await api.get(`/api/v1/liveness/${c.body.liveness.id}`);
  t.match(
    stored.body,
    { ...c.body.liveness, endpoint_url: 'https://www.example.com/' },
    'the answer is the stored configuration',
  );
  t.equal((await api.get(`/api/v1/endpoints/${c.body.id}`)).body.liveness_enabled, true);
  t.same(changes, [{ config: c.body.liveness.id, created: true }], 'the scheduler hears of the new config');

  const defaults = await api.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'defaults',
    endpoint_type: 'http',
    liveness: {},
  });
  t.match(defaults.body.liveness, {
    interval_seconds: 60,
    timeout_seconds: 10,
    expected_status_code: 200,
    failure_threshold: 1,
    is_enabled: true,
  });

  // Invalid blocks: refused by the schema with the field's path; nothing is created.
  for (const liveness of [
    { interval_seconds: 0 },
    { expected_status_code: 600 },
    { endpoint_id: MISSING },
    { is_enabled: 'yes' },
    null,
    'on',
  ]) {
    const r = await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'bad',
      endpoint_type: 'https',
      liveness,
    });
    t.equal(r.status, 400, JSON.stringify(liveness));
    t.match(r.body.error, /^liveness/, r.body.error);
  }
  // A failure inside the transaction, after the endpoint row was written: neither row stays.
  const restore = await failLivenessInserts(s, 4242);
  const failed = await api.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'bad',
    endpoint_type: 'https',
    liveness: { interval_seconds: 4242 },
  });
  await restore();
  t.equal(failed.status, 500);
  t.equal((await api.get('/api/v1/endpoints')).body.total, 3, 'no endpoint without its configuration');
  t.equal((await api.get('/api/v1/liveness')).body.total, 2);
  t.equal(changes.length, 2, 'nothing announced for a rolled-back create');
  // An endpoint that fails (here: another team's domain) creates no configuration either.
  t.equal(
    (await other.post('/api/v1/endpoints', { domain_id: domain.id, name: 'x', endpoint_type: 'https', liveness: {} }))
      .status,
    404,
  );
  t.equal((await api.get('/api/v1/liveness')).body.total, 2);
});

t.test('endpoints bulk with inline liveness: per item, both or neither', async (t) => {
  const { s, api, domain } = await setup(t);
  const changes: unknown[] = [];
  t.teardown(s.app.services.liveness.onChange((ch) => changes.push(ch)));
  const r = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [
      { domain_id: domain.id, name: 'a', endpoint_type: 'https', liveness: { failure_threshold: 2 } },
      { domain_id: domain.id, name: 'b', endpoint_type: 'https', liveness: { interval_seconds: 0 } },
      { domain_id: domain.id, name: 'c', endpoint_type: 'port', port: 22 },
      { domain_id: domain.id, name: 'a', endpoint_type: 'http', liveness: {} },
      { domain_id: domain.id, name: 'd', endpoint_type: 'http', liveness: { is_enabled: false } },
    ],
  });
  t.equal(r.status, 201);
  t.match(r.body, { created: 3, failed: 2 });
  t.same(
    r.body.errors.map((e: any) => [e.index, e.code]),
    [
      [1, 'VALIDATION_ERROR'],
      [3, 'ENDPOINT_EXISTS'],
    ],
  );
  t.match(r.body.errors[0].error, /^liveness\.interval_seconds: /);
  const [a, c, d] = r.body.data;
  t.match(a.liveness, { endpoint_id: a.id, failure_threshold: 2 });
  t.notOk('liveness' in c);
  t.match(d.liveness, { endpoint_id: d.id, is_enabled: false });
  t.same(changes, [
    { config: a.liveness.id, created: true },
    { config: d.liveness.id, created: true },
  ]);
  t.same((await api.get('/api/v1/liveness')).body.data.map((x: any) => x.endpoint_id).sort(), [a.id, d.id].sort());
  t.same(
    (await api.get('/api/v1/endpoints')).body.data.map((x: any) => x.name),
    ['a', 'c', 'd'],
    'the failed items left nothing behind',
  );
});
