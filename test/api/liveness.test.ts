// /api/v1/liveness: CRUD, defaults (interval_seconds 60, minimum 1; failure_threshold), 409
// LIVENESS_EXISTS, filters, pagination and the delete shape (deleted_liveness + deleted_id).
import t from 'tap';
import { client, startApp } from '../support/app.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('liveness configuration CRUD with defaults', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const e = (
    await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https', subdomain: 'www' })
  ).body;
  const c = await api.post('/api/v1/liveness', { endpoint_id: e.id });
  t.equal(c.status, 201);
  t.match(c.body, {
    endpoint_id: e.id,
    is_enabled: true,
    timeout_seconds: 10,
    expected_status_code: 200,
    interval_seconds: 60,
    failure_threshold: 1,
  });
  const id = c.body.id;
  const dup = await api.post('/api/v1/liveness', { endpoint_id: e.id, timeout_seconds: 5 });
  t.equal(dup.status, 409);
  t.equal(dup.body.code, 'LIVENESS_EXISTS');
  t.equal(dup.body.path, '/api/v1/liveness');

  const g = await api.get(`/api/v1/liveness/${id}`);
  t.equal(g.status, 200);
  t.match(g.body, { id, endpoint_id: e.id, endpoint_url: 'https://www.example.com/', interval_seconds: 60 });

  const u = await api.put(`/api/v1/liveness/${id}`, {
    is_enabled: false,
    timeout_seconds: 3,
    expected_status_code: 204,
    interval_seconds: 1,
    failure_threshold: 3,
  });
  t.equal(u.status, 200);
  t.match(u.body, {
    id,
    is_enabled: false,
    timeout_seconds: 3,
    expected_status_code: 204,
    interval_seconds: 1,
    failure_threshold: 3,
  });
  t.equal(
    (await api.get(`/api/v1/endpoints/${e.id}`)).body.liveness_enabled,
    false,
    'endpoint detail follows the switch',
  );
  await api.put(`/api/v1/liveness/${id}`, { is_enabled: true });
  t.equal((await api.get(`/api/v1/endpoints/${e.id}`)).body.liveness_enabled, true);
  for (const bad of [
    { interval_seconds: 0 },
    { interval_seconds: 1.5 },
    { failure_threshold: 0 },
    { timeout_seconds: 0 },
    { expected_status_code: 99 },
    { expected_status_code: 600 },
    { endpoint_id: e.id },
    { is_enabled: 'no' },
  ]) {
    const r = await api.put(`/api/v1/liveness/${id}`, bad);
    t.equal(r.status, 400, JSON.stringify(bad));
    t.match(r.body.error, new RegExp(Object.keys(bad)[0]!));
  }
  t.equal((await api.put(`/api/v1/liveness/${MISSING}`, { is_enabled: true })).status, 404);

  const del = await api.delete(`/api/v1/liveness/${id}`);
  t.equal(del.status, 200);
  t.type(del.body.message, 'string');
  t.equal(del.body.deleted_id, id);
  t.match(del.body.deleted_liveness, { id, endpoint_id: e.id });
  t.equal((await api.get(`/api/v1/liveness/${id}`)).status, 404);
  t.equal((await api.delete(`/api/v1/liveness/${id}`)).status, 404);
  t.equal(
    (await api.post('/api/v1/liveness', { endpoint_id: e.id, interval_seconds: 1 })).body.interval_seconds,
    1,
    'recreate after delete; minimum 1',
  );
});

t.test('create errors', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  t.equal((await api.post('/api/v1/liveness', {})).status, 400);
  t.match((await api.post('/api/v1/liveness', {})).body.error, /endpoint_id/);
  t.equal((await api.post('/api/v1/liveness', { endpoint_id: 'x' })).status, 400);
  t.equal((await api.post('/api/v1/liveness', { endpoint_id: MISSING })).status, 404);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  for (const bad of [
    { interval_seconds: 0 },
    { interval_seconds: -5 },
    { interval_seconds: '60' },
    { failure_threshold: 0 },
    { timeout_seconds: 301 },
    { foo: 1 },
  ]) {
    const r = await api.post('/api/v1/liveness', { endpoint_id: e.id, ...bad });
    t.equal(r.status, 400, JSON.stringify(bad));
    t.match(r.body.error, new RegExp(Object.keys(bad)[0]!));
  }
  const ok = await api.post('/api/v1/liveness', {
    endpoint_id: e.id,
    is_enabled: false,
    timeout_seconds: 30,
    expected_status_code: 301,
    interval_seconds: 300,
    failure_threshold: 2,
  });
  t.equal(ok.status, 201);
  t.match(ok.body, {
    is_enabled: false,
    timeout_seconds: 30,
    expected_status_code: 301,
    interval_seconds: 300,
    failure_threshold: 2,
  });
});

t.test('list: filters by endpoint, domain and is_enabled; pagination; variants', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d1 = (await api.post('/api/v1/domains', { domain: 'one.com' })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'two.com' })).body;
  const eps = (
    await api.post('/api/v1/endpoints/bulk', {
      endpoints: Array.from({ length: 60 }, (_, i) => ({
        domain_id: i < 40 ? d1.id : d2.id,
        name: `e${i}`,
        endpoint_type: 'https',
      })),
    })
  ).body.data;
  for (const [i, e] of eps.entries()) {
    const r = await api.post('/api/v1/liveness', { endpoint_id: e.id, is_enabled: i % 3 !== 0 });
    t.equal(r.status, 201);
  }
  const def = await api.get('/api/v1/liveness');
  t.equal(def.body.data.length, 50);
  t.same(def.body.pagination, { total: 60, limit: 50, offset: 0, has_more: true });
  t.same(def.body.configs, def.body.data, 'variant B: configs');
  t.equal(def.body.total, 60);
  t.equal((await api.get('/api/v1/liveness?limit=1000')).body.data.length, 60);
  t.equal((await api.get('/api/v1/liveness?offset=50')).body.data.length, 10);
  t.equal((await api.get(`/api/v1/liveness?domain_id=${d2.id}`)).body.total, 20);
  const one = await api.get(`/api/v1/liveness?endpoint_id=${eps[5].id}`);
  t.equal(one.body.total, 1);
  t.equal(one.body.data[0].endpoint_id, eps[5].id);
  t.equal((await api.get('/api/v1/liveness?is_enabled=false')).body.total, 20);
  t.equal((await api.get(`/api/v1/liveness?is_enabled=true&domain_id=${d1.id}`)).body.total, 40 - 14);
  for (const q of ['limit=0', 'offset=-2', 'endpoint_id=zz', 'is_enabled=2'])
    t.equal((await api.get(`/api/v1/liveness?${q}`)).status, 400, q);
});
