// api/local.ts serves the Public API in-process for the command line: every answer (status and body)
// is the one the daemon gives over HTTP for the same request by the same caller: reads, writes,
// refused input (schema errors, bodies too deep or too large), unknown resources, routes and methods.
import { pino } from 'pino';
import t from 'tap';
import { createLocalApi } from '../../src/api/local.js';
import { createValidator } from '../../src/api/validation.js';
import { systemClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/types.js';
import { VERSION } from '../../src/package.js';
import { client, request, startApp } from '../support/app.js';

/** An answer with what differs by nature between two calls (an error's timestamp) left out. */
function comparable(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'timestamp' in body && 'error' in body) {
    const { timestamp, ...rest } = body as Record<string, unknown>;
    return { ...rest, timestamp: typeof timestamp };
  }
  return body;
}

t.test('the in-process API answers as the daemon over HTTP', async (t) => {
  // No workers (DOMMON_ROLE=api): nothing changes the data between the two reads of one request.
  const ta = await startApp({ DOMMON_ROLE: 'api' });
  t.teardown(() => ta.close());
  const token = await ta.token('ops');
  const http = client(ta.url, token);
  const who = (await http.post('/api/v1/auth')).body as Record<string, string>;
  const principal: Principal = {
    token_id: who.token_id!,
    token_name: who.token_name!,
    team_id: who.team_id!,
    team_name: who.team!,
    user_id: who.user_id!,
    user_email: who.user!,
    read_only: false,
    role: 'owner',
  };
  const { app } = ta;
  const local = createLocalApi(
    {
      config: ta.config,
      services: app.services,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      version: VERSION,
      validator: createValidator(),
      databaseUp: () => app.store.ping(),
      stamp: (m) => app.store.readStamp(m),
    },
    principal,
  );
  /**
   * The same request through both doors: the answers are equal, but for the origin a push endpoint's
   * ping URL is built on (the host the request was sent to: the daemon's address, or localhost).
   */
  const same = async (method: string, path: string, body?: unknown) => {
    const over = await request(ta.url, method, path, { token, body, unchecked: true });
    const mine = await local.request(method, path, body);
    const origin = (b: unknown): unknown =>
      b === undefined ? b : JSON.parse(JSON.stringify(b).replaceAll(ta.url, 'http://localhost'));
    t.equal(mine.status, over.status, `${method} ${path}: status ${over.status}`);
    t.same(comparable(mine.body), comparable(origin(over.body)), `${method} ${path}: body`);
    return mine;
  };

  // Data written over HTTP, read through both doors.
  const d = (await http.post('/api/v1/domains', { domain: 'example.com', notes: 'ü and "quotes"' })).body as {
    id: string;
  };
  await http.post('/api/v1/domains', { domain: 'example.org' });
  const p = (await http.post('/api/v1/portfolios', { name: 'main' })).body as { id: string };
  const e = (await http.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https', path: '/x' }))
    .body as { id: string };
  const push = (await http.post('/api/v1/endpoints', { domain_id: d.id, name: 'job', endpoint_type: 'push' })).body as {
    id: string;
  };
  await http.post('/api/v1/liveness', { endpoint_id: e.id, interval_seconds: 60 });

  for (const path of [
    '/api/v1/domains',
    '/api/v1/domains?limit=1&offset=1',
    '/api/v1/domains?domain=org',
    `/api/v1/domains/${d.id}`,
    `/api/v1/domains/${d.id}?include_endpoints=true`,
    `/api/v1/domains/${d.id.toUpperCase()}/`,
    '/api/v1/endpoints',
    `/api/v1/endpoints/${e.id}`,
    `/api/v1/endpoints/${push.id}/pings`,
    '/api/v1/liveness',
    '/api/v1/portfolios',
    `/api/v1/portfolios/${p.id}`,
    '/api/v1/notifications/settings',
    '/api/v1/renewals',
    '/api/v1/home',
    '/api-endpoint-status',
    `/api-endpoint-status/${e.id}`,
    `/api/v1/domains/${d.id}/status`,
    '/api-domains',
    '/api/v1/validate',
    '/api/v1/nodes',
    // refused: a bad query, a resource that is not there, a path id that is no id, no such route
    '/api/v1/domains?limit=0',
    '/api/v1/domains?limit=abc',
    '/api/v1/domains?bogus=1',
    '/api/v1/domains/0190f3c4-0000-7000-8000-000000000000',
    '/api/v1/domains/not-an-id',
    '/api/v1/domains/%E0%A4%A',
    '/api/v1/nothing-here',
  ])
    await same('GET', path);

  // Writes refused alike: schema errors, a name taken, a body too deep or too large, a method not served.
  await same('POST', '/api/v1/domains', { domain: 'example.com' });
  await same('POST', '/api/v1/domains', { domain: 'bad_domain!' });
  await same('POST', '/api/v1/domains', { domain: 'x.test', extra: 1 });
  await same('POST', '/api/v1/domains', {});
  await same('POST', '/api/v1/domains', undefined);
  let deep: unknown = 'leaf';
  for (let i = 0; i < 70; i++) deep = [deep];
  await same('POST', '/api/v1/domains', { domain: 'deep.test', notes: deep });
  await same('POST', '/api/v1/domains/bulk', { domains: Array.from({ length: 12_000 }, (_, i) => `n${i}.example`) });
  await same('PATCH', '/api/v1/domains');
  await same('DELETE', '/api/v1/domains');
  await same('PUT', `/api/v1/endpoints/${e.id}`, { interval: 'soon' });

  // A write through the local door is the one the API then reads back.
  const created = await local.request('POST', '/api/v1/domains', { domain: 'local.example', notes: 'n' });
  t.equal(created.status, 201);
  const id = (created.body as { id: string }).id;
  // (a domain's detail has fields of its own beyond the create's answer: the grade's reasons, its delegation)
  t.has((await http.get(`/api/v1/domains/${id}`)).body, created.body as object, 'read back over HTTP');
  const updated = await local.request('PUT', `/api/v1/domains/${id}`, { notes: 'changed' });
  t.equal(updated.status, 200);
  t.equal((updated.body as { notes: string }).notes, 'changed');
  await same('GET', `/api/v1/domains/${id}`);
  const removed = await local.request('DELETE', `/api/v1/domains/${id}`);
  t.equal(removed.status, 200);
  await same('GET', `/api/v1/domains/${id}`);
  await same('DELETE', `/api/v1/domains/${id}`);

  // Every route of the daemon's API that a token may call is served in-process too (a route module
  // added to api/server.ts and not to api/local.ts would answer ROUTE_NOT_FOUND to the command line).
  // Documents for browsers and editors, /metrics, /health and the ping URLs are the daemon's alone.
  const notForCommands =
    /^\/(docs|health|metrics|status\/|badge\/|ping\/|ui\/|api\/v1\/openapi\.json|api\/v1\/config\/schema\.json)/;
  const served = app.router.stack.flatMap((layer) =>
    typeof layer.path === 'string'
      ? layer.methods.filter((m) => m !== 'HEAD').map((m) => ({ method: m, path: layer.path as string }))
      : [],
  );
  const apiRoutes = served.filter((r) => /^\/api/.test(r.path) && !notForCommands.test(r.path));
  t.ok(apiRoutes.length > 50, `${apiRoutes.length} routes of the API`);
  const missing: string[] = [];
  for (const r of apiRoutes) {
    // Any id: an unknown resource is a 404 NOT_FOUND, a missing body a 400, never ROUTE_NOT_FOUND or a 405.
    const path = r.path.replace(/:[A-Za-z]+/g, '0190f3c4-0000-7000-8000-00000000dead');
    const res = await local.request(r.method, path, r.method === 'GET' || r.method === 'DELETE' ? undefined : {});
    const code = (res.body as { code?: string } | undefined)?.code;
    if (code === 'ROUTE_NOT_FOUND' || res.status === 405) missing.push(`${r.method} ${r.path}`);
  }
  t.same(missing, [], 'every API route is served in-process');
});
