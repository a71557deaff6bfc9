// Team isolation: another team's ids answer 404 on every verb and never appear in lists or filters.
import t from 'tap';
import { client, startApp } from '../support/app.js';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test("another team's resources are invisible", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const a = client(s.url, await s.token('alpha'));
  const b = client(s.url, await s.token('beta'));

  const p = (await a.post('/api/v1/portfolios', { name: 'alpha-p' })).body;
  const d = (await a.post('/api/v1/domains', { domain: 'alpha.com', portfolio_id: p.id })).body;
  const e = (await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const l = (await a.post('/api/v1/liveness', { endpoint_id: e.id })).body;
  // beta has resources of its own so lists are not trivially empty
  const bp = (await b.post('/api/v1/portfolios', { name: 'beta-p' })).body;
  const bd = (await b.post('/api/v1/domains', { domain: 'beta.com' })).body;
  const be = (await b.post('/api/v1/endpoints', { domain_id: bd.id, name: 'web', endpoint_type: 'https' })).body;
  await b.post('/api/v1/liveness', { endpoint_id: be.id });

  const verbs: [string, string, unknown?][] = [
    ['GET', `/api/v1/portfolios/${p.id}`],
    ['PUT', `/api/v1/portfolios/${p.id}`, { name: 'stolen' }],
    ['DELETE', `/api/v1/portfolios/${p.id}`],
    ['GET', `/api/v1/domains/${d.id}`],
    ['GET', `/api/v1/domains/${d.id}?include_endpoints=true`],
    ['PUT', `/api/v1/domains/${d.id}`, { notes: 'stolen' }],
    ['DELETE', `/api/v1/domains/${d.id}`],
    ['GET', `/api/v1/domains/${d.id}/status`],
    ['GET', `/api/v1/endpoints/${e.id}`],
    ['PUT', `/api/v1/endpoints/${e.id}`, { name: 'stolen' }],
    ['DELETE', `/api/v1/endpoints/${e.id}`],
    ['GET', `/api/v1/endpoints/${e.id}/status`],
    ['GET', `/api/v1/liveness/${l.id}`],
    ['PUT', `/api/v1/liveness/${l.id}`, { is_enabled: false }],
    ['DELETE', `/api/v1/liveness/${l.id}`],
    ['GET', `/api/v1/liveness/${l.id}/results`],
    ['GET', `/api/v1/liveness/${l.id}/stats`],
    ['GET', `/api/v1/liveness/${l.id}/status`],
    ['GET', `/api-domains/${d.id}`],
    ['DELETE', `/api-endpoints/${e.id}`],
    ['PUT', `/api-liveness/${l.id}`, { is_enabled: false }],
  ];
  for (const [method, path, body] of verbs) {
    const r = await ({ GET: b.get, PUT: b.put, DELETE: b.delete } as const)[method as 'GET'](path, body);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body?.path, path.split('?')[0]);
  }
  // Creating under another team's parent is a 404 too, and the parent stays untouched
  t.equal((await b.post('/api/v1/domains', { domain: 'x.com', portfolio_id: p.id })).status, 404);
  t.equal((await b.put(`/api/v1/domains/${bd.id}`, { portfolio_id: p.id })).status, 404);
  t.equal((await b.post('/api/v1/endpoints', { domain_id: d.id, name: 'x', endpoint_type: 'https' })).status, 404);
  t.equal((await b.post('/api/v1/liveness', { endpoint_id: e.id })).status, 404);
  const bulk = await b.post('/api/v1/endpoints/bulk', {
    endpoints: [{ domain_id: d.id, name: 'y', endpoint_type: 'https' }],
  });
  t.equal(bulk.body.created, 0);

  // Lists never show alpha's rows, even when filtered by alpha's ids
  const lists: [string, string, string][] = [
    ['/api/v1/portfolios', 'portfolios', bp.id],
    ['/api/v1/domains', 'domains', bd.id],
    ['/api/v1/endpoints', 'endpoints', be.id],
    ['/api/v1/liveness', 'configs', ''],
  ];
  for (const [path, name, own] of lists) {
    const r = await b.get(path);
    t.equal(r.status, 200);
    t.equal(r.body.total, 1, `${path}: only beta's row`);
    t.equal(r.body[name].length, 1);
    if (own) t.equal(r.body.data[0].id, own);
    t.notOk(JSON.stringify(r.body).includes('alpha'), `${path}: nothing of alpha`);
  }
  for (const q of [
    `/api/v1/domains?portfolio_id=${p.id}`,
    `/api/v1/endpoints?domain_id=${d.id}`,
    `/api/v1/liveness?endpoint_id=${e.id}`,
    `/api/v1/liveness?domain_id=${d.id}`,
    '/api/v1/domains?domain=alpha',
    '/api/v1/portfolios?name=alpha',
  ]) {
    const r = await b.get(q);
    t.equal(r.status, 200, q);
    t.equal(r.body.total, 0, q);
  }
  // alpha's rows are all intact
  t.equal((await a.get(`/api/v1/portfolios/${p.id}`)).body.name, 'alpha-p');
  t.equal((await a.get(`/api/v1/domains/${d.id}`)).body.notes, null);
  t.equal((await a.get(`/api/v1/endpoints/${e.id}`)).body.name, 'web');
  t.equal((await a.get(`/api/v1/liveness/${l.id}`)).body.is_enabled, true);
  t.equal((await a.get('/api/v1/liveness')).body.total, 1);
});
