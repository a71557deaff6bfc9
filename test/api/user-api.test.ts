// The User API (/api-*) over real HTTP: every path of the spec's User API table, on the same port and
// the same handlers as the Public API. Every answer is also checked against the OpenAPI document
// by client() (test/support/openapi.ts).
// tap-files: alone (asserts on every OpenAPI answer its process saw: other files' answers would count)
import t from 'tap';
import { client, firstLookupsDone, request, startApp } from '../support/app.js';
import { responsesSeen } from '../support/openapi.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { toOpenApiPath } from '../../src/api/openapi/document.js';

const DAY = 86_400_000;

t.test('User API', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('user-api-team', 'ua@example.com');
  const api = client(s.url, token);
  const anon = client(s.url);
  const me = (await api.post('/api/v1/auth')).body;
  // Two paths that must answer the same: the app's own workers (a real liveness probe, a TLS
  // inspection) may write between the two reads, so a differing pair is read again.
  const agree = async (t: any, a: string, b: string, msg: string) => {
    let pair: [unknown, unknown] = [null, null];
    for (let i = 0; i < 3; i++) {
      pair = [(await api.get(a)).body, (await api.get(b)).body];
      if (JSON.stringify(pair[0]) === JSON.stringify(pair[1])) break;
    }
    t.same(pair[0], pair[1], msg);
  };

  t.test('POST /api-auth', async (t) => {
    const ok = await anon.post('/api-auth', {
      apiKey: token,
      endpoint: '/api-domains',
      method: 'GET',
      userAgent: 'ua-test/1',
      ipAddress: '127.0.0.1',
    });
    t.equal(ok.status, 200);
    t.equal(ok.body.success, true);
    t.equal(ok.body.teamId, me.team_id);
    t.equal(ok.body.apiTokenId, me.token_id);
    const minimal = await anon.post('/api-auth', { apiKey: token, endpoint: '/api-endpoints', method: 'post' });
    t.equal(minimal.status, 200);
    t.equal(minimal.body.teamId, me.team_id);

    const bad = await anon.post('/api-auth', {
      apiKey: 'dmn_not-a-real-token',
      endpoint: '/api-domains',
      method: 'GET',
    });
    t.equal(bad.status, 401);
    t.equal(bad.body.success, false);
    t.equal(bad.body.code, 'UNAUTHORIZED');
    t.equal(bad.body.path, '/api-auth');
    const missing = await anon.post('/api-auth', { endpoint: '/api-domains', method: 'GET' });
    t.equal(missing.status, 401);
    t.equal(missing.body.success, false);
    const invalid = await anon.post('/api-auth', { apiKey: token, endpoint: '/api-domains', method: 'FETCH' });
    t.equal(invalid.status, 400);
    t.match(invalid.body.error, /method/);

    // A revoked token no longer authenticates.
    const other = await s.app.services.access.createToken({ team: 'user-api-team', name: 'short-lived' });
    t.equal((await anon.post('/api-auth', { apiKey: other.token, endpoint: '/x', method: 'GET' })).status, 200);
    await s.app.services.access.revokeToken(other.id);
    t.equal((await anon.post('/api-auth', { apiKey: other.token, endpoint: '/x', method: 'GET' })).status, 401);
  });

  t.test('the three ways to pass the token, and 401 without one', async (t) => {
    t.equal((await anon.get('/api-domains')).status, 401);
    t.equal((await anon.get(`/api-domains?api_key=${token}`)).status, 200);
    const viaBody = await anon.post('/api-domains', { api_key: token, domain: 'body-key.example' });
    t.equal(viaBody.status, 201);
    t.equal(viaBody.body.domain, 'body-key.example');
    t.equal((await api.delete(`/api-domains/${viaBody.body.id}`)).status, 200);
  });

  let domainId = '';
  t.test('/api-domains: create, list, get (include_endpoints), update, bulk', async (t) => {
    const c = await api.post('/api-domains', { domain: 'alpha.example', notes: 'first' });
    t.equal(c.status, 201);
    t.equal(c.body.is_verified, false);
    t.match(c.body.verification_token, /^dommon-verify-[0-9a-f]{32}$/);
    domainId = c.body.id;

    const dup = await api.post('/api-domains', { domain: 'alpha.example' });
    t.equal(dup.status, 409);
    t.equal(dup.body.code, 'DOMAIN_EXISTS');
    t.equal((await api.post('/api-domains', { notes: 'no name' })).status, 400);

    const bulk = await api.post('/api-domains/bulk', {
      operation: 'create',
      domains: [{ domain: 'beta.example' }, { domain: 'gamma.example' }, { domain: 'not a domain' }],
    });
    t.equal(bulk.status, 201);
    t.same(
      bulk.body.domains.map((d: any) => d.domain),
      ['beta.example', 'gamma.example'],
    );
    t.equal(bulk.body.created, 2);
    t.equal(bulk.body.failed, 1);
    t.match(bulk.body.message, /2 created, 1 failed/);
    t.equal(
      (await api.post('/api-domains/bulk', { operation: 'delete', domains: [{ domain: 'x.example' }] })).status,
      400,
    );

    const list = await api.get('/api-domains');
    t.equal(list.status, 200);
    t.same(list.body.data.map((d: any) => d.domain).sort(), ['alpha.example', 'beta.example', 'gamma.example']);
    t.same(list.body.pagination, { total: 3, limit: 50, offset: 0, has_more: false });
    const paged = await api.get('/api-domains?limit=2&offset=1');
    t.equal(paged.body.data.length, 2);
    t.same(paged.body.pagination, { total: 3, limit: 2, offset: 1, has_more: false });
    t.equal((await api.get('/api-domains?limit=1')).body.pagination.has_more, true);
    t.equal((await api.get('/api-domains?limit=500')).body.pagination.limit, 100, 'limit is capped at 100');
    t.equal((await api.get('/api-domains?limit=0')).status, 400);
    const filtered = await api.get('/api-domains?domain=gam');
    t.same(
      filtered.body.data.map((d: any) => d.domain),
      ['gamma.example'],
    );

    const one = await api.get(`/api-domains/${domainId}`);
    t.equal(one.status, 200);
    t.equal(one.body.domain, 'alpha.example');
    t.equal(one.body.endpoints, undefined, 'no endpoints without include_endpoints');
    // Each of the new domain's first background look-ups changes its answers: compared once they ran.
    await firstLookupsDone(s, domainId);
    t.same(
      (await api.get(`/api-domains/${domainId}`)).body,
      (await api.get(`/api/v1/domains/${domainId}`)).body,
      'same answer as the Public API',
    );

    const up = await api.put(`/api-domains/${domainId}`, { notes: 'updated' });
    t.equal(up.status, 200);
    t.equal(up.body.notes, 'updated');
    t.equal((await api.get(`/api-domains/00000000-0000-4000-8000-000000000000`)).status, 404);
    t.equal((await api.put(`/api-domains/00000000-0000-4000-8000-000000000000`, { notes: 'x' })).status, 404);
  });

  let endpointId = '';
  let downEndpointId = '';
  t.test('/api-endpoints: create, list filters, get, update, bulk', async (t) => {
    const c = await api.post('/api-endpoints', {
      domain_id: domainId,
      name: 'web',
      // http: the daemon's own TLS inspection of an https endpoint that cannot be reached here would
      // make it critical at some point of the test (a race under load); its health is liveness only.
      endpoint_type: 'http',
      subdomain: 'www',
    });
    t.equal(c.status, 201);
    t.equal(c.body.full_url, 'http://www.alpha.example/');
    endpointId = c.body.id;
    const dup = await api.post('/api-endpoints', { domain_id: domainId, name: 'web', endpoint_type: 'http' });
    t.equal(dup.status, 409);
    t.equal(dup.body.code, 'ENDPOINT_EXISTS');
    t.equal((await api.post('/api-endpoints', { domain_id: domainId, name: 'x', endpoint_type: 'ftp' })).status, 400);

    const bulk = await api.post('/api-endpoints/bulk', {
      operation: 'create',
      endpoints: [
        { domain_id: domainId, name: 'api', endpoint_type: 'http', subdomain: 'api', path: '/health' },
        { domain_id: domainId, name: 'smtp', endpoint_type: 'port', subdomain: 'mail', port: 25 },
      ],
    });
    t.equal(bulk.status, 201);
    t.same(
      bulk.body.endpoints.map((e: any) => e.full_url),
      ['http://api.alpha.example/health', 'mail.alpha.example:25'],
    );
    downEndpointId = bulk.body.endpoints[0].id;
    // The bulk actions' twin (extension): an endpoint without liveness checks cannot be paused.
    const acted = await api.post('/api-endpoints/bulk-actions', { action: 'pause', endpoint_ids: [downEndpointId] });
    t.match(acted.body, { action: 'pause', failed: 1, results: [{ endpoint_id: downEndpointId, status: 409 }] });

    const list = await api.get(`/api-endpoints?domain_id=${domainId}`);
    t.equal(list.body.pagination.total, 3);
    t.equal(list.body.pagination.limit, 50);
    t.same(
      (await api.get('/api-endpoints?endpoint_type=port')).body.data.map((e: any) => e.name),
      ['smtp'],
    );
    t.equal((await api.get('/api-endpoints?is_enabled=false')).body.data.length, 0);

    const one = await api.get(`/api-endpoints/${endpointId}`);
    t.equal(one.status, 200);
    t.equal(one.body.ssl_status, 'unknown');
    t.equal(one.body.liveness_enabled, false);
    const up = await api.put(`/api-endpoints/${endpointId}`, { timeout_seconds: 20 });
    t.equal(up.body.timeout_seconds, 20);
    // A push endpoint's pings read through the User API as through the Public API.
    const job = await api.post('/api-endpoints', { domain_id: domainId, name: 'nightly', endpoint_type: 'push' });
    t.equal(job.status, 201);
    const pings = await api.get(`/api-endpoints/${job.body.id}/pings`);
    t.equal(pings.status, 200);
    t.same(pings.body.pings, [], 'no ping yet');
    t.ok([200, 204].includes((await api.delete(`/api-endpoints/${job.body.id}`)).status), 'removed again');

    const withEps = await api.get(`/api-domains/${domainId}?include_endpoints=true`);
    t.same(withEps.body.endpoints.map((e: any) => e.name).sort(), ['api', 'smtp', 'web']);
  });

  let livenessId = '';
  let downLivenessId = '';
  t.test('/api-liveness: create, list, get, update, results, stats, status', async (t) => {
    // Outcomes are recorded below as the scheduler would; the daemon's own probes (a new config runs
    // within a second, whatever its interval) of these unreachable endpoints would race with them.
    await s.app.probing.stop(0);
    const c = await api.post('/api-liveness', { endpoint_id: endpointId, interval_seconds: 86400 });
    t.equal(c.status, 201);
    t.equal(c.body.expected_status_code, 200);
    livenessId = c.body.id;
    const dup = await api.post('/api-liveness', { endpoint_id: endpointId });
    t.equal(dup.status, 409);
    t.equal(dup.body.code, 'LIVENESS_EXISTS');
    const d = await api.post('/api-liveness/bulk', {
      liveness: [{ endpoint_id: downEndpointId, interval_seconds: 86400 }, { endpoint_id: endpointId }],
    });
    t.match(d.body, { created: 1, failed: 1, errors: [{ index: 1, code: 'LIVENESS_EXISTS' }] });
    downLivenessId = d.body.liveness[0].id;

    const list = await api.get('/api-liveness');
    t.equal(list.body.data.length, 2);
    t.same(list.body.pagination, { total: 2, limit: 50, offset: 0, has_more: false });
    t.same(
      (await api.get(`/api-liveness?endpoint_id=${endpointId}`)).body.data.map((x: any) => x.id),
      [livenessId],
    );
    const one = await api.get(`/api-liveness/${livenessId}`);
    t.equal(one.body.endpoint_url, 'http://www.alpha.example/');
    t.equal((await api.put(`/api-liveness/${livenessId}`, { timeout_seconds: 15 })).body.timeout_seconds, 15);

    // Probe outcomes as the scheduler would record them: 3 successes for one, 2 failures for the other.
    const teamId = me.team_id;
    const now = Date.now();
    const cfg = await s.app.services.liveness.get(teamId, livenessId);
    const ep = await s.app.services.endpoints.get(teamId, endpointId);
    const cfgDown = await s.app.services.liveness.get(teamId, downLivenessId);
    const epDown = await s.app.services.endpoints.get(teamId, downEndpointId);
    await s.app.services.monitor.record([
      ...[3, 2, 1].map((m) => ({
        config: cfg,
        endpoint: ep,
        at: now - m * 60_000,
        outcome: { ok: true, responseTimeMs: 100 + m, statusCode: 200, error: null },
      })),
      ...[2, 1].map((m) => ({
        config: cfgDown,
        endpoint: epDown,
        at: now - m * 60_000,
        outcome: { ok: false, responseTimeMs: 5, statusCode: 503, error: 'HTTP 503' },
      })),
    ]);

    const res = await api.get(`/api-liveness/${livenessId}/results`);
    t.equal(res.status, 200);
    t.equal(res.body.data.length, 3);
    t.same(res.body.pagination, { total: 3, limit: 50, offset: 0, has_more: false });
    t.equal(res.body.data[0].is_successful, true);
    t.same(res.body.data.map((x: any) => x.response_time_ms).sort(), [101, 102, 103]);
    const page = await api.get(`/api-liveness/${livenessId}/results?limit=1&offset=1&hours=1`);
    t.same(page.body.pagination, { total: 3, limit: 1, offset: 1, has_more: true });

    const stats = await api.get(`/api-liveness/${livenessId}/stats`);
    t.equal(stats.status, 200);
    t.ok(Array.isArray(stats.body.data));
    const today = new Date(Math.floor(now / DAY) * DAY).toISOString().slice(0, 10);
    const todays = stats.body.data.find((x: any) => x.date === today) ?? stats.body.data[stats.body.data.length - 1];
    t.equal(
      stats.body.data.reduce((n: number, x: any) => n + x.total_tests, 0),
      3,
    );
    t.equal(todays.success_rate <= 100, true);
    t.equal(stats.body.total_tests, 3);
    t.equal(stats.body.success_rate, 100);
    t.equal((await api.get(`/api-liveness/${livenessId}/stats?days=0`)).status, 400);
    const hourly = await api.get(`/api-liveness/${livenessId}/hourly?hours=2`);
    t.equal(
      hourly.body.data.reduce((n: number, x: any) => n + x.total_tests, 0),
      3,
      'the hourly aggregates (extension) hold the same three checks',
    );
    t.equal((await api.get(`/api-endpoints/${endpointId}/certificates`)).body.endpoint_id, endpointId);

    const st = await api.get(`/api-liveness/${livenessId}/status`);
    t.equal(st.body.status, 'up');
    t.equal(st.body.uptime_24h, 100);
    t.equal(st.body.last_check_successful, true);
    const down = await api.get(`/api-liveness/${downLivenessId}/status`);
    t.equal(down.body.status, 'down');
    t.equal(down.body.consecutive_failures, 2);
    t.equal((await api.get('/api-liveness/00000000-0000-4000-8000-000000000000/status')).status, 404);
  });

  t.test('/api-endpoint-status (list with summary and filters), /{id}, /api-domain-status/{id}', async (t) => {
    const all = await api.get('/api-endpoint-status');
    t.equal(all.status, 200);
    // web: liveness up -> healthy; api: liveness down -> critical; smtp: nothing checked -> unknown.
    t.same(all.body.summary, { healthy: 1, warning: 0, critical: 1, unknown: 1, total: 3 });
    t.equal(all.body.data.length, 3);
    t.same(all.body.pagination, { total: 3, limit: 50, offset: 0, has_more: false });
    const crit = await api.get('/api-endpoint-status?health=critical');
    t.same(
      crit.body.data.map((x: any) => x.endpoint.name),
      ['api'],
    );
    t.equal(crit.body.pagination.total, crit.body.data.length);
    t.equal(
      crit.body.summary.critical,
      crit.body.data.length,
      'summary counts every endpoint, before the health filter',
    );
    t.same(
      (await api.get('/api-endpoint-status?health=healthy')).body.data.map((x: any) => x.endpoint_id),
      [endpointId],
    );
    t.equal((await api.get('/api-endpoint-status?health=purple')).status, 400);
    const other = await api.post('/api-domains', { domain: 'other.example' });
    t.equal((await api.get(`/api-endpoint-status?domain_id=${other.body.id}`)).body.data.length, 0);
    t.equal((await api.get(`/api-endpoint-status?domain_id=${domainId}&limit=2`)).body.pagination.has_more, true);

    const one = await api.get(`/api-endpoint-status/${endpointId}`);
    t.equal(one.status, 200);
    t.equal(one.body.endpoint_id, endpointId);
    t.equal(one.body.overall_health, 'healthy');
    t.equal(one.body.liveness.status, 'up');
    await agree(
      t,
      `/api-endpoint-status/${endpointId}`,
      `/api/v1/endpoints/${endpointId}/status`,
      'same answer as the Public API',
    );
    t.equal((await api.get('/api-endpoint-status/00000000-0000-4000-8000-000000000000')).status, 404);
    t.equal((await api.get('/api-endpoint-status/not-a-uuid')).status, 404);

    const ds = await api.get(`/api-domain-status/${domainId}`);
    t.equal(ds.status, 200);
    t.equal(ds.body.domain_id, domainId);
    t.equal(ds.body.domain, 'alpha.example');
    t.equal(ds.body.overall_status, 'critical');
    t.equal(ds.body.endpoints.length, 3);
    await agree(
      t,
      `/api-domain-status/${domainId}`,
      `/api/v1/domains/${domainId}/status`,
      'same answer as the Public API',
    );
    t.equal((await api.get('/api-domain-status/00000000-0000-4000-8000-000000000000')).status, 404);
  });

  t.test('deletes: liveness, endpoint, domain (cascade)', async (t) => {
    const dl = await api.delete(`/api-liveness/${livenessId}`);
    t.equal(dl.status, 200);
    t.equal(dl.body.deleted_liveness.id, livenessId);
    t.equal((await api.get(`/api-liveness/${livenessId}`)).status, 404);
    t.equal((await api.get(`/api-liveness/${livenessId}/results`)).status, 404);

    const de = await api.delete(`/api-endpoints/${endpointId}`);
    t.equal(de.status, 200);
    t.same(de.body.deleted_endpoint, { id: endpointId, name: 'web', domain_id: domainId });
    t.equal((await api.get(`/api-endpoints/${endpointId}`)).status, 404);

    const dd = await api.delete(`/api-domains/${domainId}`);
    t.equal(dd.status, 200);
    t.match(dd.body.message, /deleted/);
    t.same(dd.body.deleted_domain, { id: domainId, domain: 'alpha.example' });
    t.equal((await api.get(`/api-domains/${domainId}`)).status, 404);
    t.equal((await api.get(`/api-endpoints/${downEndpointId}`)).status, 404, 'endpoints went with the domain');
    t.equal((await api.get(`/api-liveness/${downLivenessId}`)).status, 404, 'liveness went with the endpoint');
    t.equal((await api.delete(`/api-domains/${domainId}`)).status, 404);
  });

  t.test('another team sees none of it', async (t) => {
    const other = client(s.url, await s.token('someone-else'));
    const list = await other.get('/api-domains');
    t.equal(list.body.pagination.total, 0);
    const all = await other.get('/api-endpoint-status');
    t.same(all.body.summary, { healthy: 0, warning: 0, critical: 0, unknown: 0, total: 0 });
  });

  t.test('unknown routes and methods answer the error body (checked against the document too)', async (t) => {
    const r = await api.get('/api-nothing');
    t.equal(r.status, 404);
    t.equal(r.body.code, 'ROUTE_NOT_FOUND');
    const m = await request(s.url, 'PATCH', '/api-domains', { token });
    t.equal(m.status, 405);
  });

  t.test('domain intelligence and renewals under /api-domains/{id}/... and /api-renewals', async (t) => {
    // DNS, RDAP and WHOIS point at closed loopback ports in startApp: the answers say so, never a 500.
    const created = await api.post('/api-domains', { domain: 'intel-user-api.example' });
    t.equal(created.status, 201);
    const domainId = created.body.id as string;
    t.equal((await api.get(`/api-domains/${domainId}/security`)).status, 200);
    t.equal((await api.post(`/api-domains/${domainId}/security`)).status, 200);
    t.equal((await api.get(`/api-domains/${domainId}/registration`)).body.id, domainId);
    t.equal((await api.post(`/api-domains/${domainId}/registration`)).status, 200);
    t.equal((await api.get(`/api-domains/${domainId}/verification`)).body.is_verified, false);
    t.equal((await api.post(`/api-domains/${domainId}/verification`)).body.is_verified, false);
    t.equal(
      (await api.put(`/api-domains/${domainId}/exposure`, { enabled: false })).body.exposure_monitoring_enabled,
      false,
    );
    t.equal((await api.put(`/api-domains/${domainId}/exposure`, { enabled: true })).status, 403);
    t.ok(Array.isArray((await api.get('/api-renewals?type=certificates')).body.data));
  });

  t.test('every documented User API answer was received and checked above', async (t) => {
    const missing: string[] = [];
    for (const op of OPERATIONS) {
      const p = op.alias ?? (op.path.startsWith('/api-') ? op.path : undefined);
      if (!p) continue;
      for (const status of Object.keys(op.responses)) {
        const key = `${op.method.toUpperCase()} ${toOpenApiPath(p)} ${status}`;
        if (!responsesSeen().has(key)) missing.push(key);
      }
    }
    t.same(missing, []);
  });
});
