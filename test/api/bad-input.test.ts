// Bad input never produces a 500: malformed JSON, wrong types, unknown fields, bodies over 1 MB,
// SQL-looking strings (stored verbatim), non-UUID path ids, a fuzz loop over every POST/PUT, numbers
// out of range, Content-Encodings, deep JSON and large bodies written by a raw client.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import { client, request, startApp } from '../support/app.js';
import { checkResponse } from '../support/openapi.js';
import { loadSchemas, SCHEMA_DIR } from '../../src/api/validation.js';

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
  const form = await request(s.url, 'POST', '/api/v1/domains', {
    token,
    body: 'domain=a.com',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(form.status, 400);
  const text = await request(s.url, 'POST', '/api/v1/domains', {
    token,
    body: '{"domain":"texty.com"}',
    headers: { 'content-type': 'text/plain' },
  });
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
  const bigBulk = await api.post(
    '/api/v1/domains/bulk',
    JSON.stringify({ domains: Array.from({ length: 40000 }, (_, i) => ({ domain: `d${i}.example-long-name.com` })) }),
  );
  t.equal(bigBulk.status, 413);
  const bigPut = await api.put('/api/v1/portfolios/00000000-0000-4000-8000-000000000000', big);
  t.equal(bigPut.status, 413);
  // just under the limit is fine as far as size goes (then validation speaks)
  const under = await api.post(
    '/api/v1/domains',
    JSON.stringify({ domain: 'under.com', notes: 'x'.repeat(900 * 1024) }),
  );
  t.equal(under.status, 400, 'notes over 5000 characters');
  t.match(under.body.error, /notes/);
  t.equal((await api.get('/api/v1/domains?domain=big')).body.total, 0, 'nothing oversized was created');
  t.equal((await api.get('/api/v1/domains?domain=under')).body.total, 0);
});

t.test('SQL-looking and unusual strings are stored verbatim', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const nasty = [
    "'; DROP TABLE domains; --",
    'Robert"); DELETE FROM endpoints; --',
    "1' OR '1'='1",
    '%_%\\',
    'emoji 🚀 and ünïcode',
    '<script>alert(1)</script>',
    'line\nbreak\ttab',
    // (A NUL character is refused: test/api/nul-text.test.ts.)
  ];
  for (const n of nasty) {
    const p = await api.post('/api/v1/portfolios', { name: n, description: n });
    t.equal(p.status, 201, JSON.stringify(n));
    t.equal(p.body.name, n.trim());
    t.equal(p.body.description, n);
    t.equal((await api.get(`/api/v1/portfolios/${p.body.id}`)).body.description, n);
    const d = await api.post('/api/v1/domains', { domain: `d${nasty.indexOf(n)}.com`, notes: n });
    t.equal(d.status, 201);
    t.equal((await api.get(`/api/v1/domains/${d.body.id}`)).body.notes, n);
    const e = await api.post('/api/v1/endpoints', {
      domain_id: d.body.id,
      name: n.trim() || 'x',
      endpoint_type: 'https',
      notes: n,
    });
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
  const ids = [
    'abc',
    '1',
    '00000000-0000-0000-0000-00000000000',
    "1' or '1'='1",
    '%25',
    '..',
    'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
    'x'.repeat(5000),
    '%F0%9F%9A%80',
    '00000000-0000-4000-8000-000000000000%00',
  ];
  const bases = [
    '/api/v1/portfolios',
    '/api/v1/domains',
    '/api/v1/endpoints',
    '/api/v1/liveness',
    '/api-domains',
    '/api-endpoints',
    '/api-liveness',
  ];
  for (const base of bases) {
    for (const id of ids) {
      for (const [verb, body] of [
        ['get', undefined],
        ['put', {}],
        ['delete', undefined],
      ] as const) {
        const r = await api[verb](`${base}/${id}`, body);
        // fetch resolves dot segments: `/api-domains/..` is a request for `/`, the web dashboard's page.
        if (verb === 'get' && new URL(`${base}/${id}`, 'http://x').pathname === '/') {
          t.equal(r.status, 200, `${base}/${id} is / (the web dashboard)`);
          continue;
        }
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
  const fields = [
    'domain',
    'name',
    'notes',
    'portfolio_id',
    'domain_id',
    'endpoint_id',
    'endpoint_type',
    'subdomain',
    'path',
    'port',
    'is_enabled',
    'timeout_seconds',
    'expected_status_code',
    'interval_seconds',
    'failure_threshold',
    'description',
    'domains',
    'endpoints',
    'operation',
    'api_key',
    'expiry_date',
    'dkim_selectors',
    '__proto__',
    'constructor',
  ];
  const scalar = (): unknown =>
    pick([
      () => null,
      () => true,
      () => false,
      () => Math.floor(rand() * 1e6) - 5e5,
      () => rand() * 1e12,
      () => -0,
      () => 1e308,
      () => '',
      () => 'x'.repeat(Math.floor(rand() * 300)),
      () => "'; drop table domains; --",
      () => d.id,
      () => e.id,
      () => p.id,
      () => 'https',
      () => 'port',
      () => 'create',
      () => 'ex.com',
      () => '2026-13-45',
      () => '\u0000',
      () => '🚀'.repeat(5),
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
    ['post', '/api/v1/portfolios'],
    ['put', `/api/v1/portfolios/${p.id}`],
    ['post', '/api/v1/domains'],
    ['post', '/api/v1/domains/bulk'],
    ['put', `/api/v1/domains/${d.id}`],
    ['post', '/api/v1/endpoints'],
    ['post', '/api/v1/endpoints/bulk'],
    ['put', `/api/v1/endpoints/${e.id}`],
    ['post', '/api/v1/liveness'],
    ['put', `/api/v1/liveness/${l.id}`],
    ['post', '/api/v1/auth'],
    ['post', '/api-domains'],
    ['post', '/api-endpoints/bulk'],
  ];
  let n = 0;
  const statuses = new Map<number, number>();
  for (let round = 0; round < 25; round++) {
    for (const [verb, path] of targets) {
      let body: unknown = rand() < 0.85 ? obj(0) : value(0);
      if (path.endsWith('/bulk') && rand() < 0.5)
        body = { [path.includes('domains') ? 'domains' : 'endpoints']: Array.from({ length: 3 }, () => obj(1)) };
      const r = await (api as any)[verb](path, JSON.stringify(body));
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500)
        t.fail(`${verb} ${path} ${JSON.stringify(body).slice(0, 300)} -> ${r.status} ${r.text.slice(0, 200)}`);
      else if (r.status >= 400 && typeof r.body?.error !== 'string')
        t.fail(`${verb} ${path}: ${r.status} without the error body`);
      n++;
    }
  }
  t.equal(n, 25 * targets.length);
  t.notOk(
    [...statuses.keys()].some((k) => k >= 500),
    `statuses seen: ${JSON.stringify([...statuses])}`,
  );
  t.ok(statuses.get(400)! > 0, 'most random bodies are refused');
  // the seeded rows survived the storm in a usable state
  t.equal((await api.get(`/api/v1/endpoints/${e.id}`)).status, 200);
  t.equal((await api.get('/health')).status, 200);
});

// Issue 18: numbers out of range, odd Content-Encodings, deep JSON and large bodies are 4xx answers
// with the error body, never a 500 or a reset connection (docs/input-limits.md).
function isErrorBody(t: Test, r: { status: number; body: any }, status: number, path: string, what: string): void {
  t.equal(r.status, status, what);
  t.type(r.body?.error, 'string', `${what}: error`);
  t.type(r.body?.code, 'string', `${what}: code`);
  t.ok(!Number.isNaN(Date.parse(r.body?.timestamp)), `${what}: timestamp`);
  t.equal(r.body?.path, path, `${what}: path`);
}

t.test('every numeric query parameter has a finite minimum and maximum in schemas/queries', async (t) => {
  const schemas = loadSchemas(path.join(SCHEMA_DIR, 'queries'));
  let n = 0;
  for (const [id, schema] of Object.entries<any>(schemas)) {
    for (const [name, p] of Object.entries<any>(schema.properties ?? {})) {
      if (p.type !== 'integer' && p.type !== 'number') continue;
      n++;
      t.ok(
        Number.isFinite(p.minimum) && Number.isFinite(p.maximum) && p.maximum <= 2 ** 31 - 1,
        `${id}.${name}: [${p.minimum}, ${p.maximum}]`,
      );
    }
  }
  t.ok(n >= 20, `${n} numeric query parameters`);
});

t.test('numeric query parameters out of range answer 400 on every list route', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'numbers.com' })).body;
  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const l = (await api.post('/api/v1/liveness', { endpoint_id: e.id })).body;
  const lists: [string, string[]][] = [
    ['/api/v1/portfolios', ['limit', 'offset']],
    ['/api/v1/domains', ['limit', 'offset']],
    ['/api-domains', ['limit', 'offset']],
    ['/api/v1/endpoints', ['limit', 'offset']],
    ['/api-endpoints', ['limit', 'offset']],
    ['/api-endpoint-status', ['limit', 'offset']],
    ['/api/v1/liveness', ['limit', 'offset']],
    [`/api/v1/liveness/${l.id}/results`, ['limit', 'offset', 'hours']],
    [`/api-liveness/${l.id}/results`, ['limit', 'offset', 'hours']],
    [`/api/v1/liveness/${l.id}/stats`, ['days']],
    ['/api/v1/renewals', ['limit', 'offset']],
    ['/api/v1/notifications/log', ['limit', 'offset']],
    ['/api/v1/exposure/findings', ['limit', 'offset']],
    [`/api/v1/domains/${d.id}/exposure/scans`, ['limit', 'offset']],
  ];
  const bad = [
    '1e400',
    'Infinity',
    '-Infinity',
    '99999999999999999999',
    '1e20',
    '2147483648',
    'NaN',
    '-1',
    '1.5',
    'abc',
    '0x',
  ];
  for (const [path, params] of lists) {
    for (const param of params) {
      for (const v of bad) {
        const r = await api.get(`${path}?${param}=${encodeURIComponent(v)}`);
        isErrorBody(t, r, 400, path, `${path}?${param}=${v}`);
        t.match(r.body?.error, new RegExp(`^${param}: `), `${path}?${param}=${v} names the parameter`);
      }
    }
  }
  // the edges that are in range still answer
  t.equal((await api.get('/api/v1/domains?offset=2147483647')).body.data.length, 0);
  t.equal((await api.get('/api/v1/domains?offset=-0')).body.data.length, 1);
  t.equal(
    (await api.get('/api/v1/domains?limit=2147483647')).body.pagination.limit,
    100,
    'large page sizes are capped at 100',
  );
  t.equal((await api.get('/api/v1/domains?limit=1e3')).body.pagination.limit, 100);
  t.equal((await api.get(`/api/v1/liveness/${l.id}/results?hours=8760`)).status, 200);
  t.equal((await api.get(`/api/v1/liveness/${l.id}/stats?days=366`)).status, 200);
  // and the same numbers in a JSON body (1e400 parses as Infinity) are refused by the body schemas
  const inf = await api.post(
    '/api/v1/endpoints',
    `{"domain_id":"${d.id}","name":"x","endpoint_type":"https","port":1e400}`,
  );
  isErrorBody(t, inf, 400, '/api/v1/endpoints', 'port 1e400 in a body');
  const lv = await api.put(`/api/v1/liveness/${l.id}`, '{"timeout_seconds":-1e400}');
  isErrorBody(t, lv, 400, `/api/v1/liveness/${l.id}`, 'timeout_seconds -1e400 in a body');
});

t.test('Content-Encoding: gzip, deflate and br are read; a broken body is 400, any other encoding 415', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const token = await s.token();
  // Bytes as given (request() would JSON-encode a Buffer); the answer is checked against the document.
  const send = async (body: Buffer, encoding: string | undefined) => {
    const res = await fetch(`${s.url}/api/v1/domains`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(encoding ? { 'content-encoding': encoding } : {}),
      },
      body,
    });
    const text = await res.text();
    const parsed = JSON.parse(text);
    checkResponse({
      method: 'POST',
      path: '/api/v1/domains',
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: parsed,
      text,
    });
    return { status: res.status, body: parsed };
  };
  const json = (name: string) => Buffer.from(JSON.stringify({ domain: name }));
  // plain JSON with a compression header: the decompressor fails -> 400 (was a 500)
  for (const enc of ['gzip', 'deflate', 'br', 'GZIP']) {
    const r = await send(json('plain.com'), enc);
    isErrorBody(t, r, 400, '/api/v1/domains', `uncompressed body with ${enc}`);
    t.equal(r.body.code, 'INVALID_CONTENT_ENCODING');
  }
  // truncated gzip
  const truncated = zlib.gzipSync(json('cut.com')).subarray(0, 12);
  t.equal((await send(truncated, 'gzip')).status, 400, 'truncated gzip');
  // unknown or stacked encodings -> 415
  for (const enc of ['compress', 'x-foo', 'zstd', 'gzip, gzip', 'gzip;q=1', '*']) {
    const r = await send(json('odd.com'), enc);
    isErrorBody(t, r, 415, '/api/v1/domains', `encoding ${enc}`);
    t.equal(r.body.code, 'UNSUPPORTED_CONTENT_ENCODING');
    t.match(r.body.error, /gzip, deflate, br/);
  }
  // real compressed bodies are read (any case of the header)
  t.equal((await send(zlib.gzipSync(json('gz.com')), 'gzip')).status, 201);
  t.equal((await send(zlib.gzipSync(json('gz-upper.com')), 'GZip')).status, 201);
  t.equal((await send(zlib.deflateSync(json('deflate.com')), 'deflate')).status, 201);
  t.equal((await send(zlib.brotliCompressSync(json('br.com')), 'br')).status, 201);
  t.equal((await send(json('identity.com'), 'identity')).status, 201);
  // the 1 MB limit is on the decompressed body (a 20 KB gzip of 20 MB is refused)
  const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 32));
  t.ok(bomb.length < 100_000);
  isErrorBody(t, await send(bomb, 'gzip'), 413, '/api/v1/domains', 'gzip bomb');
  // a request without a body is not decoded: the header alone changes nothing
  const list = await request(s.url, 'GET', '/api/v1/domains', { token, headers: { 'content-encoding': 'gzip' } });
  t.equal(list.status, 200);
  t.same(list.body.data.map((x: { domain: string }) => x.domain).sort(), [
    'br.com',
    'deflate.com',
    'gz-upper.com',
    'gz.com',
    'identity.com',
  ]);
});

t.test('JSON nested deeper than 64 levels is a 400, at parse time', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000', DOMMON_NOTIFY_INTERVAL: '3600' });
  t.teardown(() => s.close());
  const token = await s.token();
  const api = client(s.url, token);
  const nest = (levels: number) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  const test = (metadata: unknown) =>
    api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: 'http://127.0.0.1:9/hook', metadata });
  // 4,100 levels overflowed the stack in JSON.stringify (a 500)
  const deep = await test(nest(4100));
  isErrorBody(t, deep, 400, '/api/v1/notifications/test', '4100 levels');
  t.equal(deep.body.code, 'JSON_TOO_DEEP');
  t.match(deep.body.error, /deeper than 64 levels/);
  // the body is level 1: metadata may hold 63 levels, not 64
  t.equal((await test(nest(63))).status, 201, '64 levels in all');
  t.equal((await test(nest(64))).status, 400, '65 levels in all');
  // half a million levels of brackets within 1 MB
  const brackets = '['.repeat(400_000) + ']'.repeat(400_000);
  isErrorBody(t, await api.post('/api/v1/domains', brackets), 400, '/api/v1/domains', '400,000 brackets');
  // GET bodies are read too (fetch cannot send one)
  const get = await new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      `${s.url}/api/v1/domains`,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(brackets),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(brackets);
  });
  isErrorBody(t, get, 400, '/api/v1/domains', 'deep body on a GET');
  t.equal((await api.get('/health')).status, 200);
});

/** A raw HTTP/1.1 POST of `size` bytes written in 64 KB chunks; resolves with what the server answered. */
function rawPost(
  url: string,
  path: string,
  token: string,
  size: number,
  keepAlive: boolean,
): Promise<{ head: string; body: string; writeError?: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), '127.0.0.1');
    let got = '';
    let writeError: string | undefined;
    sock.on('data', (d: Buffer) => (got += d.toString()));
    sock.on('error', (e: NodeJS.ErrnoException) => (writeError = e.code));
    const done = () => {
      const [head = '', body = ''] = got.split('\r\n\r\n');
      resolve({ head, body, writeError });
    };
    sock.on('close', done);
    sock.setTimeout(30_000, () => reject(new Error(`no answer: ${got.slice(0, 200)}`)));
    sock.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${size}\r\n${keepAlive ? '' : 'Connection: close\r\n'}\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let left = size;
    const pump = () => {
      while (left > 0) {
        const c = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= c.length;
        if (!sock.write(c)) return void sock.once('drain', pump);
      }
      // a keep-alive client keeps the connection: end it once the answer had time to arrive
      if (keepAlive) setTimeout(() => sock.end(), 500);
      else sock.end();
    };
    pump();
  });
}

t.test('a body over 1 MB: the client still writing reads the 413 (no EPIPE)', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const token = await s.token();
  for (const mb of [2, 5]) {
    for (const keepAlive of [false, true]) {
      const r = await rawPost(s.url, '/api/v1/domains', token, mb * 1024 * 1024, keepAlive);
      const what = `${mb} MB, ${keepAlive ? 'keep-alive' : 'Connection: close'}`;
      t.equal(r.writeError, undefined, `${what}: every byte was written`);
      t.match(r.head, /^HTTP\/1\.1 413 /, `${what}: 413`);
      const body = JSON.parse(r.body.slice(r.body.indexOf('{'), r.body.lastIndexOf('}') + 1));
      t.equal(body.code, 'PAYLOAD_TOO_LARGE');
      t.equal(body.path, '/api/v1/domains');
    }
  }
  // several at once, as under load
  const many = await Promise.all(
    Array.from({ length: 4 }, () => rawPost(s.url, '/api/v1/domains/bulk', token, 3 * 1024 * 1024, false)),
  );
  t.same(
    many.map((r) => [r.head.split('\r\n')[0], r.writeError]),
    Array(4).fill(['HTTP/1.1 413 Payload Too Large', undefined]),
  );
  t.equal((await request(s.url, 'GET', '/health')).status, 200);
});

t.test("requests Node's parser refuses (head over 16 KB, broken request line) get the error body too", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const raw = (text: string) =>
    new Promise<{ head: string; body: any }>((resolve, reject) => {
      const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1');
      let got = '';
      sock.on('data', (d: Buffer) => (got += d.toString()));
      sock.on('error', reject);
      sock.on('close', () => {
        const [head = '', body = ''] = got.split('\r\n\r\n');
        resolve({ head, body: body ? JSON.parse(body) : undefined });
      });
      sock.end(text);
    });
  const giant = await raw(`GET /api/v1/domains?x=1 HTTP/1.1\r\nHost: a\r\nX-Giant: ${'g'.repeat(20_000)}\r\n\r\n`);
  t.match(giant.head, /^HTTP\/1\.1 431 /);
  t.match(giant.body, { error: /16 KB/, code: 'HEADERS_TOO_LARGE', path: '/api/v1/domains' });
  t.ok(!Number.isNaN(Date.parse(giant.body.timestamp)));
  const broken = await raw('GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n');
  t.match(broken.head, /^HTTP\/1\.1 400 /);
  t.match(broken.body, { error: 'malformed HTTP request', code: 'BAD_REQUEST', path: '/health' });
  const garbage = await raw('\u0001\u0002 nonsense\r\n\r\n');
  t.match(garbage.head, /^HTTP\/1\.1 400 /);
  t.equal(garbage.body.path, '/');
  t.equal((await request(s.url, 'GET', '/health')).status, 200);
});
