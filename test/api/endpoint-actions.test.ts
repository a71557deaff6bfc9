// POST /api/v1/endpoints/bulk-actions (extension): pause, resume or delete many endpoints at once,
// answered per endpoint with the status its single route would give; another team's endpoints are
// not found and never touched; the limits and the request schema refuse a bad body with nothing done.
import t from 'tap';
import { client, startApp } from '../support/app.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

t.setTimeout(120_000);

t.test('bulk actions on endpoints: per-item codes, team scoping, limits', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  // The daemon's own probes of these unreachable endpoints are not the subject here.
  await s.app.probing.stop(0);
  const api = client(s.url, await s.token('ops'));
  const other = client(s.url, await s.token('others'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const theirDomain = (await other.post('/api/v1/domains', { domain: 'example.net' })).body;
  const endpoint = async (c: typeof api, domainId: string, name: string, extra: Record<string, unknown> = {}) => {
    const r = await c.post('/api/v1/endpoints', { domain_id: domainId, name, endpoint_type: 'https', ...extra });
    t.equal(r.status, 201, `endpoint ${name} created`);
    return r.body;
  };
  const a = await endpoint(api, domain.id, 'a', { liveness: { interval_seconds: 60 } });
  const b = await endpoint(api, domain.id, 'b', { liveness: { interval_seconds: 60 } });
  const bare = await endpoint(api, domain.id, 'bare');
  const theirs = await endpoint(other, theirDomain.id, 'theirs', { liveness: { interval_seconds: 60 } });
  const enabled = async (c: typeof api, id: string) =>
    (await c.get(`/api/v1/liveness?endpoint_id=${id}`)).body.data.map((l: { is_enabled: boolean }) => l.is_enabled);

  const pause = await api.post('/api/v1/endpoints/bulk-actions', {
    action: 'pause',
    endpoint_ids: [a.id, bare.id, theirs.id, b.id, MISSING],
  });
  t.equal(pause.status, 200);
  t.same(
    pause.body.results.map((r: { status: number; code?: string }) => [r.status, r.code ?? null]),
    [
      [200, null],
      [409, 'NO_LIVENESS'],
      [404, 'NOT_FOUND'],
      [200, null],
      [404, 'NOT_FOUND'],
    ],
    'each endpoint answered as its own route would, in the order sent',
  );
  t.same(
    pause.body.results.map((r: { endpoint_id: string }) => r.endpoint_id),
    [a.id, bare.id, theirs.id, b.id, MISSING],
  );
  t.match(pause.body, { action: 'pause', message: '2 paused, 3 failed', succeeded: 2, failed: 3 });
  t.same(
    pause.body.errors.map((e: { index: number; input: string; code: string }) => [e.index, e.input, e.code]),
    [
      [1, bare.id, 'NO_LIVENESS'],
      [2, theirs.id, 'NOT_FOUND'],
      [4, MISSING, 'NOT_FOUND'],
    ],
    'the failures as the bulk creates list them',
  );
  t.same(await enabled(api, a.id), [false], 'a paused');
  t.same(await enabled(api, b.id), [false], 'b paused');
  t.same(await enabled(other, theirs.id), [true], "another team's endpoint untouched");
  const home = (await api.get('/api/v1/home?type=endpoint')).body.data;
  t.same(
    home.map((r: { name: string; state: string }) => [r.name, r.state]),
    [
      ['a', 'paused'],
      ['b', 'paused'],
      ['bare', 'unknown'],
    ],
    'the home shows them paused',
  );

  // Pausing what is paused is done (no change); resume brings one back.
  const again = await api.post('/api/v1/endpoints/bulk-actions', { action: 'pause', endpoint_ids: [a.id] });
  t.match(again.body, { succeeded: 1, failed: 0, results: [{ endpoint_id: a.id, status: 200 }] });
  const resume = await api.post('/api/v1/endpoints/bulk-actions', { action: 'resume', endpoint_ids: [a.id] });
  t.match(resume.body, { action: 'resume', message: '1 resumed, 0 failed', errors: [] });
  t.same(await enabled(api, a.id), [true], 'a resumed');
  t.same(await enabled(api, b.id), [false], 'b still paused');

  // Delete: the team's endpoints go with their liveness; another team's id is a 404 and stays.
  const del = await api.post('/api/v1/endpoints/bulk-actions', {
    action: 'delete',
    endpoint_ids: [a.id, theirs.id, b.id],
  });
  t.match(del.body, { action: 'delete', message: '2 deleted, 1 failed', succeeded: 2, failed: 1 });
  t.same(
    del.body.results.map((r: { status: number }) => r.status),
    [200, 404, 200],
  );
  t.equal((await api.get(`/api/v1/endpoints/${a.id}`)).status, 404, 'a deleted');
  t.equal((await api.get(`/api/v1/endpoints/${b.id}`)).status, 404, 'b deleted');
  t.same(await enabled(api, a.id), [], "a's liveness went with it");
  t.equal((await other.get(`/api/v1/endpoints/${theirs.id}`)).status, 200, "another team's endpoint stays");
  t.equal((await api.get(`/api/v1/endpoints/${bare.id}`)).status, 200, 'an endpoint not named stays');

  // A bad body is a 400 with the usual error body, and nothing is done.
  const ids = (n: number) =>
    Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  for (const [what, body] of [
    ['an unknown action', { action: 'explode', endpoint_ids: [bare.id] }],
    ['no ids', { action: 'delete', endpoint_ids: [] }],
    ['1001 ids', { action: 'delete', endpoint_ids: ids(1001) }],
    ['an id twice', { action: 'delete', endpoint_ids: [bare.id, bare.id] }],
    ['an id that is not a UUID', { action: 'delete', endpoint_ids: [bare.id, 'nope'] }],
    ['an unknown field', { action: 'delete', endpoint_ids: [bare.id], force: true }],
    ['no action', { endpoint_ids: [bare.id] }],
  ] as const) {
    const r = await api.post('/api/v1/endpoints/bulk-actions', body);
    t.equal(r.status, 400, `${what}: 400`);
    t.match(r.body, {
      code: 'VALIDATION_ERROR',
      error: String,
      timestamp: String,
      path: '/api/v1/endpoints/bulk-actions',
    });
  }
  t.equal((await api.get(`/api/v1/endpoints/${bare.id}`)).status, 200, 'nothing deleted by a refused body');
  // 1000 ids is the limit, not past it: each unknown id is its own 404.
  const most = await api.post('/api/v1/endpoints/bulk-actions', { action: 'resume', endpoint_ids: ids(1000) });
  t.match(most.body, { succeeded: 0, failed: 1000 });
  t.ok(
    most.body.results.every((r: { status: number }) => r.status === 404),
    'every unknown id a 404',
  );
  // The User API path answers the same.
  const user = await api.post('/api-endpoints/bulk-actions', { action: 'pause', endpoint_ids: [bare.id] });
  t.match(user.body, { results: [{ endpoint_id: bare.id, status: 409, code: 'NO_LIVENESS' }] });
});
