// Bad input never produces a 500: malformed JSON, wrong types, unknown fields, bodies over 1 MB,
// SQL-looking strings (stored verbatim), non-UUID path ids, and a fuzz loop over every POST/PUT.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';

// Many requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(120_000);

t.test('malformed JSON, wrong content, oversized bodies', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const token = await s.token();
  const api = client(s.url, token);
  for (const raw of ['{', '{"domain": }', 'not json', '{"domain":"a.com"}}', '\u0000', '[1,2', "{'domain':'a.com'}"]) {
    const r = await api.post('/api/v1/domains', raw);
    t.equal(r.status, 400, JSON.stringify(raw));
    t.type(r.body?.error, 'string');
    t.equal(r.body?.path, '/api/v1/domains');
  }
  // JSON that is not an object
  for (const raw of ['[]', '"a.com"', '42', 'null', 'true']) {
    const r = await api.post('/api/v1/domains', raw);
    t.equal(r.status, 400, `body ${raw}`);
    t.equal(r.body?.path, '/api/v1/domains');
  }
  // form-encoded and text bodies are read as JSON or refused, never a 500
  const form = await request(s.url, 'POST', '/api/v1/domains', { token, body: 'domain=a.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 400);
  const text = await request(s.url, 'POST', '/api/v1/domains', { token, body: '{"domain":"texty.com"}', headers: { 'content-type': 'text/plain' } });
  t.ok(text.status === 201 || text.status === 400 || text.status === 415, `text/plain JSON: ${text.status}`);
  // empty body on a create is a 400 naming the missing field
  const empty = await api.post('/api/v1/domains');
  t.equal(empty.status, 400);
  t.match(empty.body.error, /domain/);

  const big = JSON.stringify({ domain: 'big.com', notes: 'x'.repeat(2 * 1024 * 1024) });
  const r = await api.post('/api/v1/domains', big);
  t.equal(r.status, 413);
  t.type(r.body?.error, 'string');
  t.equal(r.body?.path, '/api/v1/domains');
  const bigBulk = await api.post('/api/v1/domains/bulk', JSON.stringify({ domains: Array.from({ length: 40000 }, (_, i) => ({ domain: `d${i}.example-long-name.com` })) }));
  t.equal(bigBulk.status, 413);
  const bigPut = await api.put('/api/v1/portfolios/00000000-0000-4000-8000-000000000000', big);
  t.equal(bigPut.status, 413);
  // just under the limit is fine as far as size goes (then validation speaks)
  const under = await api.post('/api/v1/domains', JSON.stringify({ domain: 'under.com', notes: 'x'.repeat(900 * 1024) }));
  t.equal(under.status, 400, 'notes over 5000 characters');
  t.match(under.body.error, /notes/);
  t.equal((await api.get('/api/v1/domains?domain=big')).body.total, 0, 'nothing oversized was created');
  t.equal((await api.get('/api/v1/domains?domain=under')).body.total, 0);
});

t.test('SQL-looking and unusual strings are stored verbatim', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const nasty = ["'; DROP TABLE domains; --", 'Robert"); DELETE FROM endpoints; --', "1' OR '1'='1", '%_%\\', 'emoji 🚀 and ünïcode', '<script>alert(1)</script>', 'line\nbreak\ttab', '\u0000nul'];
  for (const n of nasty) {
    const p = await api.post('/api/v1/portfolios', { name: n, description: n });
    t.equal(p.status, 201, JSON.stringify(n));
    t.equal(p.body.name, n.trim());
    t.equal(p.body.description, n);
    t.equal((await api.get(`/api/v1/portfolios/${p.body.id}`)).body.description, n);
    const d = await api.post('/api/v1/domains', { domain: `d${nasty.indexOf(n)}.com`, notes: n });
    t.equal(d.status, 201);
    t.equal((await api.get(`/api/v1/domains/${d.body.id}`)).body.notes, n);
    const e = await api.post('/api/v1/endpoints', { domain_id: d.body.id, name: n.trim() || 'x', endpoint_type: 'https', notes: n });
    t.equal(e.status, 201);
    t.equal(e.body.name, n.trim());
    t.equal(e.body.notes, n);
    const f = await api.get(`/api/v1/portfolios?name=${encodeURIComponent(n.trim())}`);
    t.equal(f.status, 200);
    t.ok(f.body.total >= 1, `filter finds ${JSON.stringify(n)}`);
    t.ok(f.body.data.some((x: any) => x.name === n.trim()));
  }
  t.equal((await api.get('/api/v1/domains')).body.total, nasty.length, 'no table was dropped');
  t.equal((await api.get('/api/v1/endpoints')).body.total, nasty.length);
  t.equal((await api.post('/api/v1/domains', { domain: "a.com'; drop table domains;--" })).status, 400);
});

t.test('non-UUID path ids answer 404 (never 500)', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const ids = ['abc', '1', '00000000-0000-0000-0000-00000000000', "1' or '1'='1", '%25', '..', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ', 'x'.repeat(5000), '%F0%9F%9A%80', '00000000-0000-4000-8000-000000000000%00'];
  const bases = ['/api/v1/portfolios', '/api/v1/domains', '/api/v1/endpoints', '/api/v1/liveness', '/api-domains', '/api-endpoints', '/api-liveness'];
  for (const base of bases) {
    for (const id of ids) {
      for (const [verb, body] of [['get', undefined], ['put', {}], ['delete', undefined]] as const) {
        const r = await api[verb](`${base}/${id}`, body);
        t.ok(r.status === 404 || r.status === 400, `${verb} ${base}/${id.slice(0, 40)}: ${r.status}`);
        t.type(r.body?.error, 'string');
      }
    }
  }
  for (const sub of ['status', 'results', 'stats']) {
    const r = await api.get(`/api/v1/liveness/not-a-uuid/${sub}`);
    t.equal(r.status, 404, sub);
  }
  // an upper-case UUID names the same resource
  const d = (await api.post('/api/v1/domains', { domain: 'upper.com' })).body;
  t.equal((await api.get(`/api/v1/domains/${d.id.toUpperCase()}`)).body.id, d.id);
});

// A small deterministic fuzz loop: random JSON values of random shapes against every POST and PUT.
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

t.test('fuzz: random bodies against every POST and PUT answer < 500', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'fuzz.com' })).body;
  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const l = (await api.post('/api/v1/liveness', { endpoint_id: e.id })).body;
  const p = (await api.post('/api/v1/portfolios', { name: 'p' })).body;
  const rand = rng(42);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const fields = ['domain', 'name', 'notes', 'portfolio_id', 'domain_id', 'endpoint_id', 'endpoint_type', 'subdomain', 'path', 'port',
    'is_enabled', 'timeout_seconds', 'expected_status_code', 'interval_seconds', 'failure_threshold', 'description', 'domains', 'endpoints',
    'operation', 'api_key', 'expiry_date', 'dkim_selectors', '__proto__', 'constructor'];
  const scalar = (): unknown => pick([
    () => null, () => true, () => false, () => Math.floor(rand() * 1e6) - 5e5, () => rand() * 1e12, () => -0, () => 1e308,
    () => '', () => 'x'.repeat(Math.floor(rand() * 300)), () => "'; drop table domains; --", () => d.id, () => e.id, () => p.id,
    () => 'https', () => 'port', () => 'create', () => 'ex.com', () => '2026-13-45', () => '\u0000', () => '🚀'.repeat(5),
  ])();
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 2 || r < 0.6) return scalar();
    if (r < 0.8) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
    return obj(depth + 1);
  };
  const obj = (depth: number): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    const n = Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) o[pick(fields)] = value(depth);
    return o;
  };
  const targets: [string, string][] = [
    ['post', '/api/v1/portfolios'], ['put', `/api/v1/portfolios/${p.id}`],
    ['post', '/api/v1/domains'], ['post', '/api/v1/domains/bulk'], ['put', `/api/v1/domains/${d.id}`],
    ['post', '/api/v1/endpoints'], ['post', '/api/v1/endpoints/bulk'], ['put', `/api/v1/endpoints/${e.id}`],
    ['post', '/api/v1/liveness'], ['put', `/api/v1/liveness/${l.id}`],
    ['post', '/api/v1/auth'], ['post', '/api-domains'], ['post', '/api-endpoints/bulk'],
  ];
  let n = 0;
  const statuses = new Map<number, number>();
  for (let round = 0; round < 25; round++) {
    for (const [verb, path] of targets) {
      let body: unknown = rand() < 0.85 ? obj(0) : value(0);
      if (path.endsWith('/bulk') && rand() < 0.5) body = { [path.includes('domains') ? 'domains' : 'endpoints']: Array.from({ length: 3 }, () => obj(1)) };
      const r = await (api as any)[verb](path, JSON.stringify(body));
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500) t.fail(`${verb} ${path} ${JSON.stringify(body).slice(0, 300)} -> ${r.status} ${r.text.slice(0, 200)}`);
      else if (r.status >= 400 && typeof r.body?.error !== 'string') t.fail(`${verb} ${path}: ${r.status} without the error body`);
      n++;
    }
  }
  t.equal(n, 25 * targets.length);
  t.notOk([...statuses.keys()].some((k) => k >= 500), `statuses seen: ${JSON.stringify([...statuses])}`);
  t.ok(statuses.get(400)! > 0, 'most random bodies are refused');
  // the seeded rows survived the storm in a usable state
  t.equal((await api.get(`/api/v1/endpoints/${e.id}`)).status, 200);
  t.equal((await api.get('/health')).status, 200);
});
