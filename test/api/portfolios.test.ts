// /api/v1/portfolios: CRUD, name filter, pagination, 409 PORTFOLIO_NOT_EMPTY.
import t from 'tap';
import { client, startApp } from '../support/app.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('portfolio CRUD and PORTFOLIO_NOT_EMPTY', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const c = await api.post('/api/v1/portfolios', { name: ' Production ', description: 'live sites' });
  t.equal(c.status, 201);
  t.match(c.body, { name: 'Production', description: 'live sites' });
  const id = c.body.id;
  t.match((await api.get(`/api/v1/portfolios/${id}`)).body, { id, name: 'Production', description: 'live sites' });
  const u = await api.put(`/api/v1/portfolios/${id}`, { description: null });
  t.equal(u.status, 200);
  t.match(u.body, { id, name: 'Production', description: null });
  t.equal((await api.put(`/api/v1/portfolios/${id}`, { name: 'Prod' })).body.name, 'Prod');
  for (const bad of [{ name: '' }, { name: '   ' }, { name: 5 }, { colour: 'x' }]) {
    t.equal((await api.put(`/api/v1/portfolios/${id}`, bad)).status, 400, JSON.stringify(bad));
  }
  for (const bad of [
    {},
    { description: 'x' },
    { name: '' },
    { name: null },
    { name: 'x'.repeat(201) },
    { name: 'ok', foo: 1 },
  ]) {
    const r = await api.post('/api/v1/portfolios', bad);
    t.equal(r.status, 400, JSON.stringify(bad));
    t.equal(r.body.path, '/api/v1/portfolios');
  }
  t.equal((await api.get(`/api/v1/portfolios/${MISSING}`)).status, 404);
  t.equal((await api.put(`/api/v1/portfolios/${MISSING}`, { name: 'x' })).status, 404);
  t.equal((await api.delete(`/api/v1/portfolios/${MISSING}`)).status, 404);

  const d = (await api.post('/api/v1/domains', { domain: 'example.com', portfolio_id: id })).body;
  const busy = await api.delete(`/api/v1/portfolios/${id}`);
  t.equal(busy.status, 409);
  t.equal(busy.body.code, 'PORTFOLIO_NOT_EMPTY');
  t.type(busy.body.error, 'string');
  t.equal((await api.get(`/api/v1/portfolios/${id}`)).status, 200, 'still there');
  await api.put(`/api/v1/domains/${d.id}`, { portfolio_id: null });
  const del = await api.delete(`/api/v1/portfolios/${id}`);
  t.equal(del.status, 200);
  t.type(del.body.message, 'string');
  t.match(del.body.deleted_portfolio, { id, name: 'Prod' });
  t.equal((await api.get(`/api/v1/portfolios/${id}`)).status, 404);
});

t.test('portfolio list: pagination, name filter, variants', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  for (let i = 0; i < 55; i++)
    t.equal((await api.post('/api/v1/portfolios', { name: i % 5 ? `team ${i}` : `Client ${i}` })).status, 201);
  const def = await api.get('/api/v1/portfolios');
  t.equal(def.body.data.length, 50);
  t.same(def.body.pagination, { total: 55, limit: 50, offset: 0, has_more: true });
  t.same(def.body.portfolios, def.body.data);
  const second = await api.get('/api/v1/portfolios?offset=50');
  t.equal(second.body.data.length, 5);
  t.equal(second.body.pagination.has_more, false);
  t.equal((await api.get('/api/v1/portfolios?name=client')).body.total, 11);
  t.equal((await api.get('/api/v1/portfolios?name=CLIENT 1')).body.total, 2, 'Client 10 and Client 15');
  for (const q of ['limit=0', 'offset=-1', 'limit=x'])
    t.equal((await api.get(`/api/v1/portfolios?${q}`)).status, 400, q);
  t.equal((await api.get('/api/v1/portfolios?limit=100')).body.data.length, 55);
});
