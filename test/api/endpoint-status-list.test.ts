// GET /api-endpoint-status pages, filters and counts in SQL. Over real HTTP: every combination of
// limit, offset, health and domain_id answers what the per-endpoint answers (/api-endpoint-status/:id,
// computed one endpoint at a time) say it should; another team's endpoints never appear or count;
// and a page costs the same number of SQL statements at 60 endpoints as at 2,000.
import http from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import type { Health } from '../../src/domain/endpoint.js';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(180_000);

const DAY = 86_400_000;
const HEALTHS: Health[] = ['healthy', 'warning', 'critical', 'unknown'];
const CERTS = [null, 'valid', 'expiring_soon', 'expired', 'invalid', 'error', 'unknown'] as const;
/** Liveness of an endpoint: none, enabled (up, up at 90 %, down, never checked), disabled (down, up at 90 %). */
const LIVENESS = ['none', 'up', 'flaky', 'down', 'pending', 'off-down', 'off-flaky'] as const;
const OUTCOMES: Record<string, boolean[]> = {
  up: [true, true, true],
  flaky: [false, ...Array(9).fill(true)],
  down: [true, false, false],
};
OUTCOMES['off-down'] = OUTCOMES.down!;
OUTCOMES['off-flaky'] = OUTCOMES.flaky!;

type Api = ReturnType<typeof client>;

/**
 * `n` endpoints over `domains` domains, endpoint i with certificate CERTS[i % 7] and liveness
 * LIVENESS[floor(i / 7) % 7]: every combination of the two once per 49 endpoints. Created through the
 * API; certificates and probe outcomes are written as the (stopped) workers would.
 */
async function seed(s: TestApp, api: Api, name: string, n: number, domains: number) {
  const teamId = (await api.post('/api/v1/auth')).body.team_id as string;
  const ds: string[] = [];
  for (let k = 0; k < domains; k++)
    ds.push((await api.post('/api/v1/domains', { domain: `${name}-${k}.example` })).body.id);
  const eps: { id: string; domain_id: string }[] = [];
  for (let from = 0; from < n; from += 500) {
    const items = Array.from({ length: Math.min(500, n - from) }, (_, k) => from + k).map((i) => ({
      domain_id: ds[i % domains],
      name: `ep-${i}`,
      endpoint_type: 'https',
      subdomain: `h${i}`,
    }));
    eps.push(...(await api.post('/api/v1/endpoints/bulk', { endpoints: items })).body.endpoints);
  }
  const now = Date.now();
  const certs = eps.flatMap((e, i) => {
    const cert = CERTS[i % CERTS.length];
    if (!cert) return [];
    const notAfter = new Date(now + (cert === 'expired' ? -2 : cert === 'expiring_soon' ? 20 : 90) * DAY).toISOString();
    return [
      {
        endpoint_id: e.id,
        ssl_status: cert,
        not_after: notAfter,
        issuer: 'CN=Test CA',
        subject: `CN=h${i}`,
        checked_at: new Date(now).toISOString(),
      },
    ];
  });
  for (let k = 0; k < certs.length; k += 500)
    await s.app.store.db
      .insertInto('endpoint_certificates')
      .values(certs.slice(k, k + 500) as any)
      .execute();
  // The liveness configurations through the bulk route, 500 a request (each item is what a single
  // POST /api/v1/liveness would take; test/api/liveness-bulk.test.ts holds the two to the same answers).
  const live = eps
    .map((e, i) => ({ e, live: LIVENESS[Math.floor(i / CERTS.length) % LIVENESS.length]! }))
    .filter((x) => x.live !== 'none');
  const outcomes: Parameters<typeof s.app.services.monitor.record>[0] = [];
  for (let from = 0; from < live.length; from += 500) {
    const batch = live.slice(from, from + 500);
    const r = await api.post('/api/v1/liveness/bulk', {
      operation: 'create',
      liveness: batch.map((x) => ({
        endpoint_id: x.e.id,
        is_enabled: !x.live.startsWith('off-'),
        interval_seconds: 86400,
      })),
    });
    if (r.status !== 201 || r.body.created !== batch.length) throw new Error(`liveness bulk: ${r.text.slice(0, 300)}`);
    const made = new Map((r.body.data as { id: string; endpoint_id: string }[]).map((l) => [l.endpoint_id, l.id]));
    for (const x of batch) {
      const oks = OUTCOMES[x.live] ?? [];
      const config = await s.app.services.liveness.get(teamId, made.get(x.e.id)!);
      const endpoint = await s.app.services.endpoints.get(teamId, x.e.id);
      oks.forEach((ok, j) =>
        outcomes.push({
          config,
          endpoint,
          at: now - (oks.length - j) * 60_000,
          outcome: { ok, responseTimeMs: 20 + j, statusCode: ok ? 200 : 503, error: ok ? null : 'HTTP 503' },
        }),
      );
    }
  }
  await s.app.services.monitor.record(outcomes);
  return { teamId, domains: ds, endpoints: eps };
}

t.test('/api-endpoint-status: paging, filters, totals and summary match the per-endpoint answers', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  // Statuses move only when this test writes them: no probe, no TLS inspection.
  await s.app.probing.stop(0);
  const a = client(s.url, await s.token('status-list-a'));
  const b = client(s.url, await s.token('status-list-b'));
  const A = await seed(s, a, 'alpha', 49, 3);
  const B = await seed(s, b, 'beta', 14, 1);

  // The naive answer: every endpoint of the team, in list order, one status request each.
  const naive = async (api: Api) => {
    const list = (await api.get('/api/v1/endpoints?limit=100')).body.data as { id: string; domain_id: string }[];
    return Promise.all(
      list.map(async (e) => ({ domain_id: e.domain_id, status: (await api.get(`/api-endpoint-status/${e.id}`)).body })),
    );
  };
  const singlesA = await naive(a);
  const singlesB = await naive(b);
  t.equal(singlesA.length, 49);
  t.same([...new Set(singlesA.map((x) => x.status.overall_health))].sort(), [...HEALTHS].sort(), 'every health occurs');

  const expected = (
    singles: typeof singlesA,
    q: { limit: number; offset: number; health?: Health; domain_id?: string },
  ) => {
    const scope = singles.filter((x) => !q.domain_id || x.domain_id === q.domain_id).map((x) => x.status);
    const summary = { healthy: 0, warning: 0, critical: 0, unknown: 0, total: scope.length };
    for (const x of scope) summary[x.overall_health as Health]++;
    const matching = q.health ? scope.filter((x) => x.overall_health === q.health) : scope;
    const data = matching.slice(q.offset, q.offset + q.limit);
    return {
      data,
      summary,
      pagination: {
        total: matching.length,
        limit: q.limit,
        offset: q.offset,
        has_more: q.offset + data.length < matching.length,
      },
    };
  };

  const wrong: string[] = [];
  let checked = 0;
  for (const domain_id of [undefined, ...A.domains, B.domains[0]]) {
    for (const health of [undefined, ...HEALTHS]) {
      for (const limit of [1, 2, 5, 50, 100]) {
        for (const offset of [0, 1, 6, 48, 49, 70]) {
          const q = new URLSearchParams({
            limit: String(limit),
            offset: String(offset),
            ...(health ? { health } : {}),
            ...(domain_id ? { domain_id } : {}),
          });
          const r = await a.get(`/api-endpoint-status?${q.toString()}`);
          const want = expected(singlesA, { limit, offset, health, domain_id });
          const got = { data: r.body.data, summary: r.body.summary, pagination: r.body.pagination };
          if (r.status !== 200 || JSON.stringify(got) !== JSON.stringify(want))
            wrong.push(`?${q.toString()}: ${String(r.status)} ${JSON.stringify(got).slice(0, 300)}`);
          checked++;
        }
      }
    }
  }
  t.equal(checked, 5 * 5 * 5 * 6);
  t.same(wrong.slice(0, 5), [], 'every combination answers as the per-endpoint statuses say');

  // Tenant isolation: each team lists and counts its own endpoints only.
  const allA = await a.get('/api-endpoint-status?limit=100');
  const allB = await b.get('/api-endpoint-status?limit=100');
  t.same(allB.body.data, expected(singlesB, { limit: 100, offset: 0 }).data);
  t.same(allB.body.summary, expected(singlesB, { limit: 100, offset: 0 }).summary);
  const idsA = new Set(A.endpoints.map((e) => e.id));
  const idsB = new Set(B.endpoints.map((e) => e.id));
  t.ok(
    allA.body.data.every((x: any) => idsA.has(x.endpoint_id)),
    "team A's list holds A's endpoints only",
  );
  t.ok(
    allB.body.data.every((x: any) => idsB.has(x.endpoint_id)),
    "team B's list holds B's endpoints only",
  );
  t.equal(allA.body.summary.total, 49);
  t.equal(allB.body.summary.total, 14);
  const foreign = await a.get(`/api-endpoint-status?domain_id=${B.domains[0]}`);
  t.same(
    foreign.body.summary,
    { healthy: 0, warning: 0, critical: 0, unknown: 0, total: 0 },
    "another team's domain counts nothing",
  );
  for (const h of HEALTHS)
    t.equal((await b.get(`/api-endpoint-status?health=${h}&domain_id=${A.domains[0]}`)).body.pagination.total, 0);

  // The domain status lists the same endpoints with the same health as the per-endpoint answers.
  for (const d of A.domains) {
    const ds = (await a.get(`/api-domain-status/${d}`)).body;
    t.same(
      ds.endpoints.map((x: any) => [x.id, x.health]),
      singlesA.filter((x) => x.domain_id === d).map((x) => [x.status.endpoint_id, x.status.overall_health]),
    );
  }
});

t.test('a page costs the same SQL statements at 60 endpoints as at 2,000', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);

  // Every statement run while serving a request through this listener is counted for that request.
  const scope = new AsyncLocalStorage<string[]>();
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('select 1')) as Record<
    'all' | 'get' | 'run' | 'iterate',
    (...a: unknown[]) => unknown
  > & { source: string };
  const saved = { all: proto.all, get: proto.get, run: proto.run, iterate: proto.iterate };
  for (const m of ['all', 'get', 'run', 'iterate'] as const) {
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      scope.getStore()?.push(this.source);
      return saved[m].apply(this, args);
    };
  }
  db.close();
  const handler = s.app.koa.callback();
  // A request's statements as of its answer: work it leaves behind (a timer started in its async
  // context, such as the batched token last-used write) may run later in the same scope.
  let last: string[] = [];
  const server = http.createServer((req, res) => {
    const mine: string[] = [];
    res.on('finish', () => {
      last = [...mine];
    });
    scope.run(mine, () => void handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    Object.assign(proto, saved);
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const small = client(url, await s.token('statements-small'));
  const big = client(url, await s.token('statements-big'));
  await seed(s, small, 'small', 60, 3);
  const B = await seed(s, big, 'big', 2000, 20);
  const statements = async (api: Api, q: string) => {
    const r = await api.get(`/api-endpoint-status?${q}`);
    t.equal(r.status, 200);
    // Left out: upkeep whose count is timing, not data. The change tracker's `pragma data_version` is
    // read once per turn of the event loop by whichever cache asks first; the maintenance windows are
    // read again (one statement, whatever the team's size) after any write that may touch them; the
    // auth throttle reads and prunes the shared failure counts on its own clock.
    return last.filter(
      (q) => q !== 'pragma data_version' && !q.includes('"maintenance_windows"') && !q.includes('"auth_failures"'),
    );
  };
  // One read each first: a cold cache's first statements are not what a page costs.
  await statements(small, 'limit=50');
  await statements(big, 'limit=50');
  for (const q of ['limit=50', 'limit=50&offset=10', 'limit=50&health=warning', 'limit=50&health=healthy&offset=5']) {
    const few = await statements(small, q);
    const many = await statements(big, q);
    t.equal(many.length, few.length, `${q}: ${many.length} statements at 2,000 endpoints, ${few.length} at 60`, {
      many,
      few,
    });
    t.ok(many.length <= 10, `${q}: a fixed handful (${many.length})`);
  }
  const domain = await statements(big, `limit=50&domain_id=${B.domains[3]}`);
  t.ok(domain.length <= 10, `filtered by domain: ${domain.length} statements`);
  t.equal((await big.get('/api-endpoint-status?limit=50')).body.summary.total, 2000);
});
