// Deletes cascade as the spec's transitions table says (domain -> endpoints -> liveness configs ->
// results, aggregates, state), and each delete is one transaction: a failure half-way keeps everything.
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import { DEFAULT_REGION } from '../../src/domain/liveness.js';

const TABLES = [
  'domains',
  'endpoints',
  'liveness_configs',
  'liveness_results',
  'liveness_hourly',
  'liveness_daily',
  'liveness_state',
  'endpoint_certificates',
  'domain_registrations',
];

function counts(s: TestApp): Record<string, number> {
  const db = new Database(path.join(s.dataDir, 'dommon.db'), { readonly: true });
  try {
    return Object.fromEntries(
      TABLES.map((tb) => [tb, (db.prepare(`select count(*) as n from ${tb}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

async function seed(s: TestApp, api: ReturnType<typeof client>, name: string) {
  const d = (await api.post('/api/v1/domains', { domain: name })).body;
  const eps = [];
  for (const n of ['web', 'api']) {
    const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: n, endpoint_type: 'https' })).body;
    const l = (await api.post('/api/v1/liveness', { endpoint_id: e.id, is_enabled: false })).body;
    const cfg = (await s.app.store.liveness.byId(l.id))!;
    const now = Date.now();
    await s.app.store.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) {
        const ts = now - i * 60_000;
        await tx.livenessData.addResult({
          cfg: cfg.seq,
          ts,
          ok: i !== 1,
          ms: 20 + i,
          status: 200,
          error: null,
          region: DEFAULT_REGION,
        });
      }
      await tx.livenessData.saveState(l.id, {
        status: 'up',
        consecutive_failures: 0,
        last_check: new Date(now).toISOString(),
        last_check_successful: true,
        response_time_ms: 20,
        status_code: 200,
        last_error: null,
        alerted_down: false,
      } as any);
    });
    await s.app.store.db
      .insertInto('endpoint_certificates')
      .values({ endpoint_id: e.id, ssl_status: 'valid' } as any)
      .onConflict((oc) => oc.column('endpoint_id').doUpdateSet({ ssl_status: 'valid' }))
      .execute();
    eps.push({ e, l });
  }
  // The registration worker may already have written this domain's row: upsert.
  await s.app.store.db
    .insertInto('domain_registrations')
    .values({ domain_id: d.id, registrar: 'R' } as any)
    .onConflict((oc) => oc.column('domain_id').doUpdateSet({ registrar: 'R' }))
    .execute();
  return { d, eps };
}

/** The check_schedule kinds (registration, security refreshes, the nameserver watch) held for one domain. */
function scheduleKinds(s: TestApp, domainId: string): string[] {
  const db = new Database(path.join(s.dataDir, 'dommon.db'), { readonly: true });
  try {
    return (
      db.prepare('select kind from check_schedule where target_id = ? order by kind').all(domainId) as {
        kind: string;
      }[]
    ).map((r) => r.kind);
  } finally {
    db.close();
  }
}

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('delete cascades: liveness config -> results; endpoint -> liveness; domain -> everything', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const keep = await seed(s, api, 'keep.com');
  const gone = await seed(s, api, 'gone.com');
  const results = await api.get(`/api/v1/liveness/${gone.eps[0]!.l.id}/results`);
  t.equal(results.status, 200);
  t.equal(results.body.total, 3, 'results visible before the delete');
  t.same(counts(s), {
    domains: 2,
    endpoints: 4,
    liveness_configs: 4,
    liveness_results: 12,
    liveness_hourly: counts(s).liveness_hourly,
    liveness_daily: counts(s).liveness_daily,
    liveness_state: 4,
    endpoint_certificates: 4,
    domain_registrations: 2,
  });
  const hourly = counts(s).liveness_hourly;
  t.same(
    scheduleKinds(s, gone.d.id),
    ['nameservers', 'registration', 'security'],
    'a new domain is scheduled for its refreshes in its create transaction',
  );

  // liveness config delete removes its history only
  t.equal((await api.delete(`/api/v1/liveness/${gone.eps[0]!.l.id}`)).status, 200);
  let c = counts(s);
  t.equal(c.liveness_configs, 3);
  t.equal(c.liveness_results, 9);
  t.equal(c.liveness_state, 3);
  t.equal(c.endpoints, 4, 'the endpoint stays');
  t.ok(c.liveness_hourly < hourly, 'aggregates of that config are gone');

  // endpoint delete removes its liveness data and certificate
  t.equal((await api.delete(`/api/v1/endpoints/${gone.eps[1]!.e.id}`)).status, 200);
  c = counts(s);
  t.equal(c.endpoints, 3);
  t.equal(c.liveness_configs, 2);
  t.equal(c.liveness_results, 6);
  t.equal(c.endpoint_certificates, 3);
  t.equal((await api.get(`/api/v1/liveness/${gone.eps[1]!.l.id}`)).status, 404);

  // domain delete removes what is left of it
  const again = (await api.post('/api/v1/endpoints', { domain_id: gone.d.id, name: 'third', endpoint_type: 'http' }))
    .body;
  const l3 = (await api.post('/api/v1/liveness', { endpoint_id: again.id })).body;
  t.equal((await api.delete(`/api/v1/domains/${gone.d.id}`)).status, 200);
  c = counts(s);
  t.same(c, {
    domains: 1,
    endpoints: 2,
    liveness_configs: 2,
    liveness_results: 6,
    liveness_hourly: c.liveness_hourly,
    liveness_daily: c.liveness_daily,
    liveness_state: 2,
    endpoint_certificates: 2,
    domain_registrations: 1,
  });
  t.equal((await api.get(`/api/v1/endpoints/${gone.eps[0]!.e.id}`)).status, 404);
  t.equal((await api.get(`/api/v1/liveness/${l3.id}`)).status, 404);
  t.same(scheduleKinds(s, gone.d.id), [], 'its schedule rows go with it');
  t.same(scheduleKinds(s, keep.d.id), ['nameservers', 'registration', 'security']);
  t.equal(
    (await api.get(`/api/v1/domains/${keep.d.id}?include_endpoints=true`)).body.endpoints.length,
    2,
    'the other domain is untouched',
  );
  t.equal((await api.get(`/api/v1/liveness/${keep.eps[0]!.l.id}/results`)).body.total, 3);
});

t.test('a domain delete is one transaction: a failure half-way leaves every row in place', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const { d, eps } = await seed(s, api, 'atomic.com');
  const before = counts(s);
  // Make the cascade fail at its last step (deleting one result row).
  const db = new Database(path.join(s.dataDir, 'dommon.db'));
  db.exec(`create trigger boom before delete on liveness_results begin select raise(abort, 'injected failure'); end`);
  db.close();
  const r = await api.delete(`/api/v1/domains/${d.id}`);
  t.equal(r.status, 500, 'the injected fault surfaces as a server error');
  t.same(r.body.error, 'internal server error', 'without internals');
  t.same(counts(s), before, 'nothing was deleted');
  t.equal((await api.get(`/api/v1/domains/${d.id}?include_endpoints=true`)).body.endpoints.length, 2);
  t.equal((await api.get(`/api/v1/liveness/${eps[0]!.l.id}`)).status, 200);
  const db2 = new Database(path.join(s.dataDir, 'dommon.db'));
  db2.exec('drop trigger boom');
  db2.close();
  t.equal((await api.delete(`/api/v1/domains/${d.id}`)).status, 200);
  t.equal(counts(s).liveness_results, 0);
});
