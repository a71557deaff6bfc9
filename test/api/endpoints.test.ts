// /api/v1/endpoints: CRUD, bulk, full_url for every type/subdomain/port/path combination, filters,
// pagination, 400/402/404/409 and the variant shapes.
import t from 'tap';
import { client, startApp } from '../support/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('create, get, update, delete an endpoint', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const c = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' });
  t.equal(c.status, 201);
  t.match(c.body, {
    domain_id: d.id,
    domain: 'example.com',
    name: 'web',
    endpoint_type: 'https',
    subdomain: null,
    path: null,
    port: null,
    is_enabled: true,
    timeout_seconds: 10,
    notes: null,
    full_url: 'https://example.com/',
  });
  t.match(c.body.id, UUID);
  const id = c.body.id;

  const g = await api.get(`/api/v1/endpoints/${id}`);
  t.equal(g.status, 200);
  t.match(g.body, { id, name: 'web', full_url: 'https://example.com/', liveness_enabled: false });
  t.ok('ssl_status' in g.body && 'ssl_expiry_date' in g.body && 'health_score' in g.body, 'detail fields');

  const u = await api.put(`/api/v1/endpoints/${id}`, {
    name: 'site',
    subdomain: 'www',
    port: 8443,
    path: 'health',
    is_enabled: false,
    timeout_seconds: 30,
    notes: 'n',
  });
  t.equal(u.status, 200);
  t.match(u.body, {
    id,
    name: 'site',
    subdomain: 'www',
    port: 8443,
    path: '/health',
    is_enabled: false,
    timeout_seconds: 30,
    notes: 'n',
    full_url: 'https://www.example.com:8443/health',
  });
  t.type(u.body.updated_at, 'string', 'variant: id, name, is_enabled, updated_at are there');
  const cleared = await api.put(`/api/v1/endpoints/${id}`, { subdomain: null, port: null, path: null });
  t.equal(cleared.body.full_url, 'https://example.com/');
  const toPort = await api.put(`/api/v1/endpoints/${id}`, { endpoint_type: 'port' });
  t.equal(toPort.status, 400, 'a port endpoint needs a port');
  t.match(toPort.body.error, /port/);
  t.equal(
    (await api.put(`/api/v1/endpoints/${id}`, { endpoint_type: 'port', port: 22 })).body.full_url,
    'example.com:22',
  );
  t.equal((await api.put(`/api/v1/endpoints/${id}`, { domain_id: d.id })).status, 400, 'domain_id cannot be changed');
  t.equal((await api.put(`/api/v1/endpoints/${MISSING}`, { name: 'x' })).status, 404);

  const del = await api.delete(`/api/v1/endpoints/${id}`);
  t.equal(del.status, 200);
  t.type(del.body.message, 'string');
  t.match(del.body.deleted_endpoint, { id, name: 'site' });
  t.equal((await api.get(`/api/v1/endpoints/${id}`)).status, 404);
  t.equal((await api.delete(`/api/v1/endpoints/${id}`)).status, 404);
});

t.test('full_url for every type, subdomain, port and path combination', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'Example.co.uk' })).body;
  const cases: [Record<string, unknown>, string][] = [];
  for (const type of ['https', 'http'] as const) {
    const def = type === 'https' ? 443 : 80;
    const other = type === 'https' ? 80 : 443;
    for (const sub of [undefined, 'www', 'api.eu']) {
      for (const port of [undefined, def, other, 8443]) {
        for (const path of [undefined, '/', '/status', 'no-slash', '/a/b?x=1']) {
          const host = sub ? `${sub}.example.co.uk` : 'example.co.uk';
          const p = port && port !== def ? `:${port}` : '';
          const pathPart = path === undefined ? '/' : path.startsWith('/') ? path : `/${path}`;
          cases.push([{ endpoint_type: type, subdomain: sub, port, path }, `${type}://${host}${p}${pathPart}`]);
        }
      }
    }
  }
  for (const sub of [undefined, 'mail']) {
    for (const port of [22, 443, 5432]) {
      cases.push([{ endpoint_type: 'port', subdomain: sub, port }, `${sub ? `${sub}.` : ''}example.co.uk:${port}`]);
    }
  }
  // one bulk call creates them all; then each is read back by list and by id
  const items = cases.map(([c], i) => ({
    domain_id: d.id,
    name: `e${i}`,
    ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)),
  }));
  const bulk = await api.post('/api/v1/endpoints/bulk', { endpoints: items });
  t.equal(bulk.status, 201);
  t.equal(bulk.body.failed, 0, JSON.stringify(bulk.body.errors?.[0]));
  const byName = new Map<string, any>(bulk.body.data.map((e: any) => [e.name, e]));
  cases.forEach(([c, want], i) => t.equal(byName.get(`e${i}`)?.full_url, want, `${JSON.stringify(c)} -> ${want}`));
  t.same(
    bulk.body.endpoints.slice(0, 2),
    bulk.body.data.slice(0, 2).map((e: any) => ({ id: e.id, name: e.name, full_url: e.full_url })),
  );
  const one = bulk.body.data[7];
  t.equal((await api.get(`/api/v1/endpoints/${one.id}`)).body.full_url, one.full_url);
  const sub = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'upper',
    endpoint_type: 'https',
    subdomain: 'WWW.',
  });
  t.equal(sub.body.full_url, 'https://www.example.co.uk/', 'subdomain normalised');
  for (const bad of ['*', 'a b', '-x', 'x..y', 'a/b', 'https://x']) {
    const r = await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: `bad ${bad}`,
      endpoint_type: 'https',
      subdomain: bad,
    });
    t.equal(r.status, 400, `subdomain ${bad}`);
  }
  t.equal(
    (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'sp', endpoint_type: 'https', path: '/a b' })).status,
    400,
  );
});

t.test('create errors: 400, 404 unknown domain, 409 ENDPOINT_EXISTS, 402 DOMMON_MAX_ENDPOINTS', async (t) => {
  const s = await startApp({ DOMMON_MAX_ENDPOINTS: '3' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const bads: [string, Record<string, unknown>, RegExp][] = [
    ['missing name', { domain_id: d.id, endpoint_type: 'https' }, /name/],
    ['missing type', { domain_id: d.id, name: 'x' }, /endpoint_type/],
    ['missing domain', { name: 'x', endpoint_type: 'https' }, /domain_id/],
    ['bad type', { domain_id: d.id, name: 'x', endpoint_type: 'ftp' }, /endpoint_type/],
    ['port 0', { domain_id: d.id, name: 'x', endpoint_type: 'https', port: 0 }, /port/],
    ['port 70000', { domain_id: d.id, name: 'x', endpoint_type: 'https', port: 70000 }, /port/],
    ['port string', { domain_id: d.id, name: 'x', endpoint_type: 'https', port: '443' }, /port/],
    ['port type without port', { domain_id: d.id, name: 'x', endpoint_type: 'port' }, /port/],
    ['blank name', { domain_id: d.id, name: '   ', endpoint_type: 'https' }, /name/],
    ['timeout 0', { domain_id: d.id, name: 'x', endpoint_type: 'https', timeout_seconds: 0 }, /timeout_seconds/],
    ['is_enabled string', { domain_id: d.id, name: 'x', endpoint_type: 'https', is_enabled: 'yes' }, /is_enabled/],
    ['unknown field', { domain_id: d.id, name: 'x', endpoint_type: 'https', url: 'https://x' }, /url/],
    ['domain_id not uuid', { domain_id: 'abc', name: 'x', endpoint_type: 'https' }, /domain_id/],
  ];
  for (const [what, body, field] of bads) {
    const r = await api.post('/api/v1/endpoints', body);
    t.equal(r.status, 400, what);
    t.match(r.body.error, field, `${what}: names the field`);
  }
  t.equal((await api.post('/api/v1/endpoints', { domain_id: MISSING, name: 'x', endpoint_type: 'https' })).status, 404);

  t.equal((await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).status, 201);
  const dup = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'http' });
  t.equal(dup.status, 409);
  t.equal(dup.body.code, 'ENDPOINT_EXISTS');
  t.equal(
    (await api.post('/api/v1/endpoints', { domain_id: d2.id, name: 'web', endpoint_type: 'https' })).status,
    201,
    'unique per domain only',
  );
  const e3 = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'api', endpoint_type: 'https' });
  t.equal(e3.status, 201);
  const rename = await api.put(`/api/v1/endpoints/${e3.body.id}`, { name: 'web' });
  t.equal(rename.status, 409, 'rename onto an existing name');
  t.equal(rename.body.code, 'ENDPOINT_EXISTS');

  const over = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'fourth', endpoint_type: 'https' });
  t.equal(over.status, 402);
  t.type(over.body.error, 'string');
  const bulk = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [{ domain_id: d.id, name: 'fifth', endpoint_type: 'https' }],
  });
  t.equal(bulk.body.failed, 1);
  t.match(bulk.body.errors[0].error, /limit/);
});

t.test('bulk: per-item report, operation, refused bodies', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const r = await api.post('/api/v1/endpoints/bulk', {
    operation: 'create',
    endpoints: [
      { domain_id: d.id, name: 'a', endpoint_type: 'https' },
      { domain_id: d.id, name: 'a', endpoint_type: 'http' },
      { domain_id: MISSING, name: 'b', endpoint_type: 'https' },
      { domain_id: d.id, name: 'c', endpoint_type: 'gopher' },
      { domain_id: d.id, name: 'd', endpoint_type: 'port', port: 25 },
    ],
  });
  t.equal(r.status, 201);
  t.equal(r.body.created, 2);
  t.equal(r.body.failed, 3);
  t.type(r.body.message, 'string');
  t.same(
    r.body.data.map((e: any) => e.name),
    ['a', 'd'],
  );
  t.same(
    r.body.endpoints.map((e: any) => e.full_url),
    ['https://example.com/', 'example.com:25'],
  );
  t.match(r.body.errors, [
    { index: 1, code: 'ENDPOINT_EXISTS' },
    { index: 2, code: 'NOT_FOUND' },
    { index: 3, error: /endpoint_type/ },
  ]);
  for (const body of [
    { operation: 'update', endpoints: [{ domain_id: d.id, name: 'z', endpoint_type: 'https' }] },
    { endpoints: [] },
    {},
    { endpoints: {} },
  ]) {
    t.equal((await api.post('/api/v1/endpoints/bulk', body)).status, 400, JSON.stringify(body));
  }
  t.equal((await api.get('/api/v1/endpoints')).body.total, 2);
});

t.test('list: filters, pagination bounds, both variants', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d1 = (await api.post('/api/v1/domains', { domain: 'one.com' })).body;
  const d2 = (await api.post('/api/v1/domains', { domain: 'two.com' })).body;
  const items: {
    domain_id: string;
    name: string;
    endpoint_type: 'https' | 'http' | 'port';
    port: number | undefined;
    is_enabled: boolean;
  }[] = [];
  for (let i = 0; i < 110; i++) {
    items.push({
      domain_id: i % 2 ? d2.id : d1.id,
      name: `e${i}`,
      endpoint_type: (['https', 'http', 'port'] as const)[i % 3],
      port: i % 3 === 2 ? 1000 + i : undefined,
      is_enabled: i % 5 !== 0,
    });
  }
  t.equal((await api.post('/api/v1/endpoints/bulk', { endpoints: items })).body.created, 110);
  const count = (pred: (x: (typeof items)[number]) => boolean) => items.filter(pred).length;
  const def = await api.get('/api/v1/endpoints');
  t.equal(def.body.data.length, 50);
  t.same(def.body.pagination, { total: 110, limit: 50, offset: 0, has_more: true });
  t.same(def.body.endpoints, def.body.data);
  t.equal(def.body.total, 110);
  t.equal((await api.get('/api/v1/endpoints?limit=101')).body.data.length, 100);
  t.equal(
    (await api.get(`/api/v1/endpoints?domain_id=${d1.id}`)).body.total,
    count((x) => x.domain_id === d1.id),
  );
  t.equal(
    (await api.get('/api/v1/endpoints?endpoint_type=port')).body.total,
    count((x) => x.endpoint_type === 'port'),
  );
  t.equal(
    (await api.get('/api/v1/endpoints?is_enabled=false')).body.total,
    count((x) => !x.is_enabled),
  );
  t.equal(
    (await api.get('/api/v1/endpoints?is_enabled=true')).body.total,
    count((x) => x.is_enabled),
  );
  const combo = await api.get(`/api/v1/endpoints?domain_id=${d2.id}&endpoint_type=http&is_enabled=true&limit=100`);
  t.equal(
    combo.body.total,
    count((x) => x.domain_id === d2.id && x.endpoint_type === 'http' && x.is_enabled),
  );
  t.ok(combo.body.data.every((e: any) => e.domain_id === d2.id && e.endpoint_type === 'http' && e.is_enabled));
  for (const q of ['limit=0', 'offset=-1', 'endpoint_type=ftp', 'is_enabled=maybe', 'domain_id=1']) {
    t.equal((await api.get(`/api/v1/endpoints?${q}`)).status, 400, q);
  }
  const user = await api.get('/api-endpoints?limit=5');
  t.equal(user.status, 200);
  t.equal(user.body.data.length, 5);
});
