// /api/v1/domains: CRUD, bulk, detail with include_endpoints, name normalisation, verification token,
// literal partial-match filter, pagination bounds, 402/404/409 and the variant superset shapes.
import t from 'tap';
import { SECURITY_CHECKS } from '../../src/domain/security.js';
import { client, startApp } from '../support/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('create, get, update, delete a domain', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const p = (await api.post('/api/v1/portfolios', { name: 'prod' })).body;

  const c = await api.post('/api/v1/domains', { domain: 'Example.COM.', portfolio_id: p.id, notes: 'main site' });
  t.equal(c.status, 201);
  t.match(c.body, {
    domain: 'example.com',
    portfolio_id: p.id,
    notes: 'main site',
    is_verified: false,
    exposure_monitoring_enabled: false,
  });
  t.match(c.body.id, UUID);
  t.match(c.body.verification_token, /^dommon-verify-[0-9a-f]{32}$/);
  t.match(c.body.created_at, ISO);
  t.match(c.body.updated_at, ISO);
  t.ok('health_score' in c.body && 'health_grade' in c.body && 'expiry_date' in c.body);
  const id = c.body.id;
  const other = await api.post('/api/v1/domains', { domain: 'example.org' });
  t.not(other.body.verification_token, c.body.verification_token, 'tokens are random');

  const g = await api.get(`/api/v1/domains/${id}`);
  t.equal(g.status, 200);
  const { health_reasons: reasons, delegation, ...detail } = g.body;
  t.same(detail, { ...c.body }, 'detail equals what create answered, plus the reasons of its (unknown) grade');
  // The nameserver watch's first look (due at once; DNS here is a closed port) may have run already.
  t.ok(delegation === null || /ECONNREFUSED/.test(delegation.error), 'the delegation: not looked at, or failed');
  const rows = reasons.map((r: { input: string; counted: boolean }) => [r.input, r.counted]);
  t.same(
    rows.slice(0, 3),
    [
      ['registration', false],
      ['certificates', false],
      ['liveness', false],
    ],
    'nothing checked yet: every input is left out, and says why',
  );
  // DNS security is one row until its first look-up, then a row per part (the daemon's intel may
  // have run between the create and this read); either way nothing is counted yet.
  t.ok(rows.length > 3, 'security has its rows');
  for (const [input, counted] of rows.slice(3)) {
    t.ok(['security', 'transfer_lock', ...SECURITY_CHECKS].includes(input), `${input} is a part of DNS security`);
    t.equal(counted, false, `${input} left out`);
  }
  // Likewise the registration look-up (RDAP and WHOIS are a closed port here).
  t.match(
    reasons[0].reason,
    /^registration expiry unknown \((no registry date and no manual date yet|RDAP 127\.0\.0\.1:9: ECONNREFUSED; WHOIS 127\.0\.0\.1:9: ECONNREFUSED)\); left out of the score$/,
  );
  t.same(g.body.whois, { registrar: null, expiry_date: null, nameservers: [] }, 'detail has whois');
  t.notOk('endpoints' in g.body, 'no endpoints unless asked');

  const u = await api.put(`/api/v1/domains/${id}`, { notes: 'changed', portfolio_id: null });
  t.equal(u.status, 200);
  t.match(u.body, { id, domain: 'example.com', notes: 'changed', portfolio_id: null });
  const renamed = await api.put(`/api/v1/domains/${id}`, { domain: 'WWW.Example.net' });
  t.equal(renamed.body.domain, 'www.example.net', 'rename is normalised');
  t.equal((await api.put(`/api/v1/domains/${id}`, {})).status, 200, 'empty update is allowed');
  t.equal(
    (await api.put(`/api/v1/domains/${id}`, { domain: 'example.org' })).status,
    409,
    'rename onto an existing name',
  );
  t.equal((await api.put(`/api/v1/domains/${id}`, { domain: 'co.uk' })).status, 400);
  t.equal((await api.put(`/api/v1/domains/${id}`, { portfolio_id: MISSING })).status, 404, 'unknown portfolio');
  t.equal((await api.put(`/api/v1/domains/${MISSING}`, { notes: 'x' })).status, 404);

  const d = await api.delete(`/api/v1/domains/${id}`);
  t.equal(d.status, 200);
  t.type(d.body.message, 'string');
  t.same(d.body.deleted_domain, { id, domain: 'www.example.net' });
  t.equal((await api.get(`/api/v1/domains/${id}`)).status, 404);
  t.equal((await api.delete(`/api/v1/domains/${id}`)).status, 404);
});

t.test('create errors: 400 names the field, 409 DOMAIN_EXISTS, 404 unknown portfolio', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const missing = await api.post('/api/v1/domains', {});
  t.equal(missing.status, 400);
  t.match(missing.body.error, /domain/);
  t.equal(missing.body.path, '/api/v1/domains');
  const wrongType = await api.post('/api/v1/domains', { domain: 42 });
  t.equal(wrongType.status, 400);
  t.match(wrongType.body.error, /domain/);
  const unknown = await api.post('/api/v1/domains', { domain: 'a.com', colour: 'red' });
  t.equal(unknown.status, 400);
  t.match(unknown.body.error, /colour/);
  t.equal((await api.post('/api/v1/domains', { domain: 'a.com', portfolio_id: 'nope' })).status, 400);
  t.equal((await api.post('/api/v1/domains', { domain: 'a.com', portfolio_id: MISSING })).status, 404);

  t.equal((await api.post('/api/v1/domains', { domain: 'dup.com' })).status, 201);
  for (const again of ['dup.com', 'DUP.com', 'dup.com.']) {
    const r = await api.post('/api/v1/domains', { domain: again });
    t.equal(r.status, 409, again);
    t.equal(r.body.code, 'DOMAIN_EXISTS');
    t.type(r.body.error, 'string');
    t.match(r.body.timestamp, ISO);
  }
});

t.test('domain names are normalised and must be registrable', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const good: [string, string][] = [
    ['EXAMPLE.com', 'example.com'],
    ['example.co.uk', 'example.co.uk'],
    ['shop.example.co.uk.', 'shop.example.co.uk'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['münchen.example.com', 'xn--mnchen-3ya.example.com'],
    ['  spaced.org  ', 'spaced.org'],
    ['internal.test', 'internal.test'],
  ];
  for (const [input, want] of good) {
    const r = await api.post('/api/v1/domains', { domain: input });
    t.equal(r.status, 201, input);
    t.equal(r.body.domain, want, `${input} -> ${want}`);
  }
  const bad = [
    'co.uk',
    'com',
    'localhost',
    'https://example.com',
    'example.com/path',
    'example.com:443',
    'exa mple.com',
    '-bad.com',
    'bad-.com',
    'a..b.com',
    '192.168.1.1',
    'user@example.com',
    '.',
    'x'.repeat(64) + '.com',
    `${'a.'.repeat(130)}com`,
  ];
  for (const input of bad) {
    const r = await api.post('/api/v1/domains', { domain: input });
    t.equal(r.status, 400, JSON.stringify(input));
    t.match(r.body.error, /domain/, 'message names the field');
  }
  // IDN and punycode spellings of one name are the same domain
  t.equal((await api.post('/api/v1/domains', { domain: 'xn--bcher-kva.de' })).status, 409);
});

t.test('plan limit: 402 past DOMMON_MAX_DOMAINS, per team', async (t) => {
  const s = await startApp({ DOMMON_MAX_DOMAINS: '2' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('a'));
  t.equal((await api.post('/api/v1/domains', { domain: 'one.com' })).status, 201);
  t.equal((await api.post('/api/v1/domains', { domain: 'two.com' })).status, 201);
  const r = await api.post('/api/v1/domains', { domain: 'three.com' });
  t.equal(r.status, 402);
  t.type(r.body.error, 'string');
  t.equal(r.body.path, '/api/v1/domains');
  const bulk = await api.post('/api/v1/domains/bulk', { domains: [{ domain: 'four.com' }] });
  t.equal(bulk.status, 201);
  t.equal(bulk.body.created, 0);
  t.equal(bulk.body.failed, 1);
  t.match(bulk.body.errors[0], { index: 0, error: /limit/ });
  const b = client(s.url, await s.token('b'));
  t.equal((await b.post('/api/v1/domains', { domain: 'three.com' })).status, 201, 'other team has its own quota');
  // freeing one makes room again
  const list = await api.get('/api/v1/domains');
  await api.delete(`/api/v1/domains/${list.body.data[0].id}`);
  t.equal((await api.post('/api/v1/domains', { domain: 'three.com' })).status, 201);
});

t.test('bulk create reports per item; both variants; operation', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  await api.post('/api/v1/domains', { domain: 'exists.com' });
  const r = await api.post('/api/v1/domains/bulk', {
    domains: [
      { domain: 'A.com' },
      { domain: 'exists.com' },
      { domain: 'co.uk' },
      { domain: 'b.com', extra: 1 },
      { domain: 'a.com' },
      { domain: 'c.com', notes: 'n' },
    ],
  });
  t.equal(r.status, 201);
  t.equal(r.body.created, 2);
  t.equal(r.body.failed, 4);
  t.type(r.body.message, 'string');
  t.same(
    r.body.data.map((d: any) => d.domain),
    ['a.com', 'c.com'],
  );
  t.match(r.body.data[0].verification_token, /^dommon-verify-/);
  t.same(
    r.body.domains,
    r.body.data.map((d: any) => ({ id: d.id, domain: d.domain })),
    'variant B summary array',
  );
  t.same(
    r.body.errors.map((e: any) => e.index),
    [1, 2, 3, 4],
  );
  t.match(r.body.errors[0], { code: 'DOMAIN_EXISTS' });
  t.match(r.body.errors[2].error, /extra/);
  t.match(r.body.errors[3], { code: 'DOMAIN_EXISTS' }, 'duplicate within the same batch');
  t.equal((await api.get('/api/v1/domains')).body.total, 3);

  const op = await api.post('/api/v1/domains/bulk', { operation: 'create', domains: [{ domain: 'd.com' }] });
  t.equal(op.status, 201);
  t.equal(op.body.created, 1);
  for (const body of [
    { operation: 'delete', domains: [{ domain: 'e.com' }] },
    { operation: 'CREATE', domains: [{ domain: 'e.com' }] },
    { domains: [] },
    { domains: 'x' },
    {},
    { domains: [{ domain: 'e.com' }], other: 1 },
    { domains: ['e.com'] },
  ]) {
    const bad = await api.post('/api/v1/domains/bulk', body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.body.path, '/api/v1/domains/bulk');
  }
  t.equal((await api.get('/api/v1/domains?domain=e.com')).body.total, 0, 'a refused bulk creates nothing');
});

t.test('a bulk create lists in its input order (ids count up within a millisecond)', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  // Not alphabetical, and most of them created in the same millisecond: only the ids order them.
  const names = Array.from({ length: 60 }, (_, i) => `z${(i * 37) % 60}-n.example.com`);
  const r = await api.post('/api/v1/domains/bulk', { domains: names.map((domain) => ({ domain })) });
  t.equal(r.body.created, 60);
  const listed = (await api.get('/api/v1/domains?limit=100')).body.data.map((d: any) => d.domain);
  t.same(listed, names);
  const ids = r.body.data.map((d: any) => d.id);
  t.same([...ids].sort(), ids, 'ids sort in creation order');
  t.match(ids[0], /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'UUIDv7');
});

t.test('detail with include_endpoints', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'ex.com' })).body;
  const e1 = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const e2 = (
    await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'api', endpoint_type: 'http', subdomain: 'api' })
  ).body;
  const other = (await api.post('/api/v1/domains', { domain: 'other.com' })).body;
  await api.post('/api/v1/endpoints', { domain_id: other.id, name: 'web', endpoint_type: 'https' });
  const withE = await api.get(`/api/v1/domains/${d.id}?include_endpoints=true`);
  t.equal(withE.status, 200);
  t.same(withE.body.endpoints.map((e: any) => e.id).sort(), [e1.id, e2.id].sort());
  t.equal(withE.body.endpoints.find((e: any) => e.id === e2.id).full_url, 'http://api.ex.com/');
  t.notOk('endpoints' in (await api.get(`/api/v1/domains/${d.id}?include_endpoints=false`)).body);
  t.equal((await api.get(`/api/v1/domains/${d.id}?include_endpoints=maybe`)).status, 400);
  const none = await api.get(`/api/v1/domains/${other.id}?include_endpoints=1`);
  t.equal(none.body.endpoints.length, 1);
});

t.test('list: pagination bounds, both variants, filters', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const p = (await api.post('/api/v1/portfolios', { name: 'p' })).body;
  const names: string[] = [];
  const items = [];
  for (let i = 0; i < 120; i++) {
    names.push(`d${String(i).padStart(3, '0')}.com`);
    items.push({ domain: names[i], ...(i % 10 === 0 ? { portfolio_id: p.id } : {}) });
  }
  const bulk = await api.post('/api/v1/domains/bulk', { domains: items });
  t.equal(bulk.body.created, 120);

  const def = await api.get('/api/v1/domains');
  t.equal(def.status, 200);
  t.equal(def.body.data.length, 50, 'default limit 50');
  t.same(def.body.pagination, { total: 120, limit: 50, offset: 0, has_more: true });
  t.same(def.body.domains, def.body.data, 'variant B array');
  t.equal(def.body.total, 120);
  t.equal(def.body.limit, 50);
  t.equal(def.body.offset, 0);
  const max = await api.get('/api/v1/domains?limit=500');
  t.equal(max.status, 200);
  t.equal(max.body.data.length, 100, 'limit capped at 100');
  t.equal(max.body.pagination.limit, 100);
  const last = await api.get('/api/v1/domains?limit=100&offset=100');
  t.equal(last.body.data.length, 20);
  t.equal(last.body.pagination.has_more, false);
  t.same(
    [...max.body.data, ...last.body.data].map((d: any) => d.domain).sort(),
    [...names].sort(),
    'pages cover every row once',
  );
  t.equal((await api.get('/api/v1/domains?offset=1000')).body.data.length, 0);
  for (const q of ['limit=0', 'limit=-1', 'offset=-1', 'limit=abc', 'offset=1.5', 'portfolio_id=nope']) {
    const r = await api.get(`/api/v1/domains?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.body.path, '/api/v1/domains');
  }
  const byPortfolio = await api.get(`/api/v1/domains?portfolio_id=${p.id}`);
  t.equal(byPortfolio.body.total, 12);
  t.ok(byPortfolio.body.data.every((d: any) => d.portfolio_id === p.id));
  const partial = await api.get('/api/v1/domains?domain=D11');
  // Rows of one bulk share a millisecond, so their order within it is not defined: compare as a set.
  t.same(partial.body.data.map((d: any) => d.domain).sort(), [
    'd110.com',
    'd111.com',
    'd112.com',
    'd113.com',
    'd114.com',
    'd115.com',
    'd116.com',
    'd117.com',
    'd118.com',
    'd119.com',
  ]);
  t.equal((await api.get(`/api/v1/domains?domain=d11&portfolio_id=${p.id}`)).body.total, 1, 'filters combine');
});

t.test('partial-match filter is literal for %, _ and quotes', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  await api.post('/api/v1/domains/bulk', {
    domains: [{ domain: 'a-b.com' }, { domain: 'ab.com' }, { domain: 'axb.com' }],
  });
  const q = (needle: string) => api.get(`/api/v1/domains?domain=${encodeURIComponent(needle)}`);
  t.equal((await q('%')).body.total, 0, '% matches only a literal %');
  t.equal((await q('_')).body.total, 0, '_ matches only a literal _');
  t.equal((await q('a_b')).body.total, 0);
  t.equal((await q("'")).body.total, 0);
  t.equal((await q('"')).body.total, 0);
  t.equal((await q('\\')).body.total, 0);
  t.equal((await q("' or '1'='1")).status, 200);
  t.equal((await q("' or '1'='1")).body.total, 0);
  t.equal((await q('a-b')).body.total, 1);
  t.equal((await q('b.c')).body.total, 3);
  // portfolios and notes keep quotes and wildcards verbatim, and the name filter matches them literally
  await api.post('/api/v1/portfolios', { name: "50%_off 'sale'" });
  await api.post('/api/v1/portfolios', { name: '50 off sale' });
  const pq = (needle: string) => api.get(`/api/v1/portfolios?name=${encodeURIComponent(needle)}`);
  t.equal((await pq('%')).body.total, 1);
  t.equal((await pq('_')).body.total, 1);
  t.equal((await pq("'sale'")).body.total, 1);
  t.equal((await pq('50%_OFF')).body.total, 1, 'case-insensitive');
  t.equal((await pq('sale')).body.total, 2);
});

t.test('the same name in two teams; the User API path answers the same', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const a = client(s.url, await s.token('a'));
  const b = client(s.url, await s.token('b'));
  const ra = await a.post('/api/v1/domains', { domain: 'shared.com' });
  const rb = await b.post('/api/v1/domains', { domain: 'shared.com' });
  t.equal(ra.status, 201);
  t.equal(rb.status, 201, 'another team may monitor the same name');
  t.not(ra.body.id, rb.body.id);
  const ua = await a.get('/api-domains');
  t.equal(ua.status, 200);
  t.same(
    ua.body.data.map((d: any) => d.id),
    [ra.body.id],
  );
  t.ok(ua.body.pagination);
});

t.test('list totals stay right across writes, also by another process', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  await api.post('/api/v1/domains/bulk', { domains: [{ domain: 'a.com' }, { domain: 'b.com' }] });
  t.equal((await api.get('/api/v1/domains?offset=0')).body.total, 2);
  t.equal((await api.get('/api/v1/domains?offset=1')).body.total, 2, 'same filter, other page');
  await api.post('/api/v1/domains', { domain: 'c.com' });
  t.equal((await api.get('/api/v1/domains?offset=2')).body.total, 3, 'a write in this process');
  const { openLocal } = await import('../../src/app.js');
  const other = await openLocal(s.config);
  const team = (await other.services.access.listTeams())[0]!;
  await other.services.domains.create(team.id, { domain: 'd.com' });
  await other.store.close();
  // SQLite: seen from the next event-loop turn (data_version); PostgreSQL: within one poll of the
  // server's snapshot (250 ms).
  if (s.config.database) await new Promise((r) => setTimeout(r, 400));
  const r = await api.get('/api/v1/domains?offset=3');
  t.equal(r.body.total, 4, 'a write by another process (the CLI)');
  t.same(
    r.body.data.map((d: any) => d.domain),
    ['d.com'],
  );
  t.equal((await api.get('/api/v1/domains?domain=d.c')).body.total, 1, 'another filter has its own total');
});
