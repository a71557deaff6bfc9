// Contract tests of the OpenAPI document: valid OpenAPI 3.0.3, the same paths and methods as the koa
// router (both ways), served at /api/v1/openapi.json without auth, and schemas/openapi.json up to date.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createValidator, loadSchemas, SCHEMA_DIR } from '../../src/api/validation.js';
import { buildOpenApi, toOpenApiPath, toOpenApiSchema } from '../../src/api/openapi/document.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { startApp, request } from '../support/app.js';
import { checkResponse, openApiDocument } from '../support/openapi.js';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

t.test(
  'every schema in schemas/ is a valid JSON Schema and compiles (the server skips this check at start)',
  async (t) => {
    const schemas = loadSchemas();
    const v = createValidator(schemas, { checkSchemas: true });
    const ids = Object.keys(schemas);
    t.ok(ids.length > 40, `${ids.length} schemas`);
    for (const id of ids) t.doesNotThrow(() => v.check(id, {}), id);
    t.throws(
      () => createValidator({ Broken: { $id: 'Broken', type: 'object', required: 'name' } }, { checkSchemas: true }),
      /schema is invalid/,
      'a broken schema is caught',
    );
  },
);

t.test(
  'as the server checks them (each added when first asked for), every schema compiles with the ones it references',
  async (t) => {
    const schemas = loadSchemas();
    const referring = Object.keys(schemas).filter((id) => JSON.stringify(schemas[id]).includes('"$ref"'));
    t.ok(referring.length > 30, `${referring.length} schemas reference others`);
    // A fresh validator per schema: one that already holds another schema's references would hide a missed one.
    for (const id of referring) t.doesNotThrow(() => createValidator(schemas).check(id, {}), id);
    t.throws(
      () => createValidator({ Lone: { $id: 'Lone', $ref: 'Missing' } }).check('Lone', {}),
      /can't resolve reference Missing/,
      'a reference to no schema is an error when the schema compiles',
    );
  },
);

t.test('the document is valid OpenAPI 3.0.3, version 2.0.0, with every operation complete', async (t) => {
  const doc = buildOpenApi(loadSchemas()) as any;
  const v = new Validator();
  const r = await v.validate(doc);
  t.same(r.errors, undefined, 'no validation errors');
  t.equal(r.valid, true);
  t.equal(v.version, '3.0');
  t.equal(doc.openapi, '3.0.3');
  t.equal(doc.info.version, '2.0.0');
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['apiKeyQuery', 'bearerAuth']);
  t.same(doc.components.securitySchemes.apiKeyQuery, {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description: doc.components.securitySchemes.apiKeyQuery.description,
  });
  // Both surfaces in one document.
  t.ok(doc.paths['/api/v1/domains'] && doc.paths['/api-domains'] && doc.paths['/api-auth']);
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(item)) {
      const where = `${m.toUpperCase()} ${p}`;
      t.ok(op.operationId && op.summary, `${where}: id and summary`);
      t.ok(op.responses['500'], `${where}: documents 500`);
      t.ok(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        `${where}: a success status`,
      );
      for (const name of [...p.matchAll(/\{(\w+)\}/g)].map((x) => x[1])) {
        t.ok(
          op.parameters?.some((x: any) => x.in === 'path' && x.name === name && x.required),
          `${where}: path parameter ${name}`,
        );
      }
      if (
        p === '/health' ||
        p === '/api/v1/openapi.json' ||
        p === '/api/v1/config/schema.json' ||
        p.startsWith('/docs') ||
        p === '/api-auth' ||
        p === '/metrics' ||
        p.startsWith('/status/') ||
        p.startsWith('/badge/') ||
        p.startsWith('/ping/') ||
        p.startsWith('/api/push/') ||
        p === '/api/v1/endpoints/{key}/external'
      ) {
        t.same(op.security, [], `${where}: no auth`);
      } else {
        t.same(op.security, [{ bearerAuth: [] }, { apiKeyQuery: [] }], `${where}: bearer and query key`);
        t.equal(op['x-api-key-body'], true, `${where}: body key`);
        t.ok(op.responses['401'] && op.responses['429'], `${where}: 401 and 429`);
        if (op.requestBody)
          t.ok(op.requestBody.content['application/json'].schema.properties.api_key, `${where}: body api_key field`);
      }
      for (const [status, res] of Object.entries<any>(op.responses)) {
        if (Number(status) >= 400 && !res.content)
          t.match(res.$ref, /^#\/components\/responses\/E\d+$/, `${where} ${status}: the error body`);
      }
    }
  }
  const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  // The error body and a list answer, as the spec shows them.
  t.same(doc.components.schemas.Error.required, ['error', 'timestamp', 'path']);
  t.same(doc.components.schemas.DomainList.properties.data, {
    type: 'array',
    items: { $ref: '#/components/schemas/Domain' },
  });
  // Query parameters come from the query schemas.
  const params = doc.paths['/api-endpoint-status'].get.parameters;
  const list = params
    .filter((x: any) => x.in === 'query')
    .map((x: any) => x.name)
    .sort();
  t.same(list, ['domain_id', 'health', 'limit', 'offset']);
  // JSON reads take If-None-Match (a header) and answer 304 when it names the current ETag.
  t.match(
    params.find((x: any) => x.in === 'header'),
    { name: 'If-None-Match', required: false },
  );
  t.ok(doc.paths['/api-endpoint-status'].get.responses['304'], 'a JSON read documents its 304');
  t.notOk(doc.paths['/api/v1/domains'].post.responses['304'], 'a write has none');
  const limit = doc.paths['/api-domains'].get.parameters.find((x: any) => x.name === 'limit');
  t.same(limit.schema, { type: 'integer', minimum: 1, maximum: 2147483647, default: 50 });
});

t.test('JSON Schema -> OpenAPI 3.0 schema conversion', async (t) => {
  t.same(toOpenApiSchema({ $id: 'x', type: ['string', 'null'], format: 'uuid' }), {
    type: 'string',
    format: 'uuid',
    nullable: true,
  });
  t.same(toOpenApiSchema({ const: 'a' }), { enum: ['a'] });
  t.same(toOpenApiSchema({ type: 'number', exclusiveMinimum: 0 }), {
    type: 'number',
    minimum: 0,
    exclusiveMinimum: true,
  });
  t.same(toOpenApiSchema({ items: { $ref: 'Domain' } }), { items: { $ref: '#/components/schemas/Domain' } });
  t.same(toOpenApiSchema({ $ref: 'Domain', description: 'd' }), {
    description: 'd',
    allOf: [{ $ref: '#/components/schemas/Domain' }],
  });
  t.same(toOpenApiSchema({ type: ['string', 'integer', 'null'] }), {
    anyOf: [{ type: 'string' }, { type: 'integer' }],
    nullable: true,
  });
  t.same(
    toOpenApiSchema({
      type: 'object',
      if: { required: ['a'] },
      then: { required: ['b'] },
      patternProperties: { '^x': {} },
      'x-keep': 1,
    }),
    {
      type: 'object',
      'x-if': { required: ['a'] },
      'x-then': { required: ['b'] },
      'x-patternProperties': { '^x': {} },
      'x-keep': 1,
    },
  );
  // A converted schema using every draft-07 keyword above still makes a valid document.
  const extra = {
    ...loadSchemas(),
    Odd: {
      $id: 'Odd',
      type: 'object',
      if: { required: ['a'] },
      then: { required: ['b'] },
      properties: { v: { type: ['string', 'number'], const: 'x' } },
    },
  };
  const r = await new Validator().validate(buildOpenApi(extra) as any);
  t.equal(r.valid, true, JSON.stringify(r.errors));
  t.equal(toOpenApiPath('/api/v1/liveness/:livenessId/stats'), '/api/v1/liveness/{livenessId}/stats');
});

t.test('every route the server serves is documented, and every documented path is served', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const served = new Set<string>();
  for (const layer of s.app.router.stack) {
    for (const m of layer.methods) {
      const method = m.toLowerCase();
      if (!METHODS.includes(method)) continue; // HEAD is GET's, OPTIONS is the router's
      served.add(`${method} ${toOpenApiPath(String(layer.path))}`);
    }
  }
  // The ping URLs have their own middleware ahead of the router (a ping's body is any text, so no
  // JSON parser): an unknown key's plain-text 404 shows that it serves them.
  for (const path of ['/ping/{key}', '/ping/{key}/{action}'])
    for (const method of ['get', 'post']) {
      const url = path.replace('{key}', '00000000-0000-4000-8000-000000000000').replace('{action}', 'start');
      const r = await request(s.url, method.toUpperCase(), url);
      if (r.status === 404 && r.text === 'not found') served.add(`${method} ${path}`);
    }
  // Uptime Kuma's push URL, by the same middleware: Kuma's JSON 404.
  for (const method of ['get', 'post']) {
    const r = await request(s.url, method.toUpperCase(), '/api/push/00000000-0000-4000-8000-000000000000');
    if (r.status === 404 && r.body?.ok === false) served.add(`${method} /api/push/{key}`);
  }
  // Gatus's external-endpoint URL, by the same middleware: Gatus's plain-text 401 without a Bearer token.
  {
    const r = await request(s.url, 'POST', '/api/v1/endpoints/core_job/external?success=true');
    if (r.status === 401 && r.text === 'invalid Authorization header')
      served.add('post /api/v1/endpoints/{key}/external');
  }
  const doc = openApiDocument() as any;
  const documented = new Set<string>();
  for (const [p, item] of Object.entries<any>(doc.paths))
    for (const m of Object.keys(item)) documented.add(`${m} ${p}`);
  const missing = [...served].filter((x) => !documented.has(x)).sort();
  const stale = [...documented].filter((x) => !served.has(x)).sort();
  t.same(missing, [], 'routes missing from src/api/openapi/operations.ts');
  t.same(stale, [], 'documented operations the server does not serve');
  t.ok(served.size >= 60, `the walk saw the routes (${served.size})`);
  t.equal(
    documented.size,
    OPERATIONS.reduce((n, o) => n + (o.alias ? 2 : 1), 0),
  );
});

t.test('GET /api/v1/openapi.json serves the document without a token', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const r = await request(s.url, 'GET', '/api/v1/openapi.json');
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /application\/json/);
  t.same(r.body, openApiDocument());
  t.equal(r.body.info.version, '2.0.0');

  // /docs: Swagger UI from the installed swagger-ui-dist, pointed at the document; no token, no CDN.
  const d = await request(s.url, 'GET', '/docs');
  t.equal(d.status, 200);
  t.match(d.headers.get('content-type'), /text\/html/);
  t.match(d.text, /<title>dommon API 2\.0\.0<\/title>/);
  t.notMatch(d.text, /https?:\/\//, 'no outside address');
  const refs = [...d.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).sort();
  t.same(refs, [
    '/api/v1/openapi.json',
    '/docs/dommon-docs.js',
    '/docs/favicon-16x16.png',
    '/docs/favicon-32x32.png',
    '/docs/swagger-ui-bundle.js',
    '/docs/swagger-ui.css',
  ]);
  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets: [string, RegExp, number][] = [
    ['swagger-ui.css', /^text\/css/, 100_000],
    ['swagger-ui-bundle.js', /^text\/javascript/, 1_000_000],
    ['favicon-32x32.png', /^image\/png$/, 200],
  ];
  for (const [name, type, size] of assets) {
    const a = await fetch(`${s.url}/docs/${name}`);
    const body = Buffer.from(await a.arrayBuffer());
    t.equal(a.status, 200, name);
    t.match(a.headers.get('content-type'), type, `${name} content type`);
    t.ok(body.length > size, `${name}: ${body.length} bytes`);
    t.ok(body.equals(fs.readFileSync(path.join(dist, name))), `${name} is the package's file`);
    t.equal(a.headers.get('cache-control'), 'public, max-age=86400');
    t.equal(a.headers.get('x-content-type-options'), 'nosniff');
    // (raw: fetch adds `Cache-Control: no-cache` to a conditional request, which forbids a 304)
    const again = await rawGet(s.url, `/docs/${name}`, { 'if-none-match': a.headers.get('etag')! });
    t.equal(again.status, 304, `${name} revalidates by ETag`);
    t.equal(again.body, '');
  }
  // The initializer (ours) starts Swagger UI on the document: the answer goes through the document check.
  const init = await request(s.url, 'GET', '/docs/dommon-docs.js');
  t.match(init.headers.get('content-type'), /^text\/javascript/);
  t.match(init.text, /SwaggerUIBundle\(\{\s*url: "\/api\/v1\/openapi\.json"/);
  // Only the allow-list: no other file of the package, nothing outside it, however the path is spelled.
  for (const p of [
    '/docs/../package.json',
    '/docs/..%2Fpackage.json',
    '/docs/%2e%2e%2fpackage.json',
    '/docs/..%5Cpackage.json',
    '/docs/package.json',
    '/docs/index.html',
    '/docs/swagger-ui.css.map',
    '/docs/constructor',
    '/docs/__proto__',
    '/docs/%2e%2e',
  ]) {
    const r = await rawGet(s.url, p);
    t.equal(r.status, 404, p);
    t.notMatch(r.body, /swagger-ui-dist|"version"/, `${p}: no file content`);
  }
});

/** A GET whose path goes out exactly as written (fetch would resolve `..`). */
function rawGet(
  base: string,
  p: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: new URL(base).port, path: p, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

t.test(
  'schemas/openapi.json is the built document (run `npm run build` after changing the table or schemas/)',
  async (t) => {
    const file = path.join(SCHEMA_DIR, 'openapi.json');
    t.ok(fs.existsSync(file), 'schemas/openapi.json exists');
    t.same(JSON.parse(fs.readFileSync(file, 'utf8')), openApiDocument());
  },
);

t.test('the response check of test/support fails loudly on drift', async (t) => {
  const ok = { method: 'GET', path: '/health', status: 200, contentType: 'application/json; charset=utf-8', text: 'x' };
  const health = {
    status: 'healthy',
    service: 'dommon',
    version: 'v1',
    app_version: '0.1.0',
    timestamp: '2026-01-01T00:00:00.000Z',
    database: 'connected',
  };
  t.doesNotThrow(() => checkResponse({ ...ok, body: health }));
  t.throws(
    () => checkResponse({ ...ok, body: { ...health, extra: 1 } }),
    /does not match schema Health.*"extra"/s,
    'undocumented field',
  );
  t.throws(
    () => checkResponse({ ...ok, body: { ...health, timestamp: 'yesterday' } }),
    /timestamp must match format "date-time"/,
    'wrong format',
  );
  t.throws(
    () => checkResponse({ ...ok, status: 418, body: {} }),
    /status 418 is not documented/,
    'undocumented status',
  );
  t.throws(
    () =>
      checkResponse({
        ...ok,
        method: 'PATCH',
        path: '/api/v1/domains/00000000-0000-4000-8000-000000000000/verification',
        status: 200,
        body: {},
      }),
    /not in the document/,
    'unknown operation',
  );
  t.throws(
    () => checkResponse({ ...ok, method: 'DELETE', path: '/health', status: 200, body: {} }),
    /not in the document/,
    'undocumented method',
  );
  const domains = {
    ...ok,
    path: '/api/v1/domains',
    body: {
      data: [],
      pagination: { total: 0, limit: 50, offset: 0, has_more: false },
      domains: [],
      total: 0,
      limit: 50,
      offset: 0,
    },
  };
  t.throws(
    () => checkResponse({ ...domains, headers: new Headers() }),
    /documented header X-RateLimit-Limit is missing/,
    'missing header',
  );
  t.doesNotThrow(() =>
    checkResponse({
      ...domains,
      headers: new Headers({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }),
    }),
  );
  // The router's own 404/405 answers for unknown paths are fine when they carry the error body.
  const err = { error: 'no route', code: 'ROUTE_NOT_FOUND', timestamp: '2026-01-01T00:00:00.000Z', path: '/nope' };
  t.doesNotThrow(() => checkResponse({ ...ok, path: '/nope', status: 404, body: err }));
  t.throws(
    () => checkResponse({ ...ok, path: '/nope', status: 404, body: { message: 'x' } }),
    /does not match schema Error/,
  );
  t.doesNotThrow(() =>
    checkResponse({
      ...ok,
      path: '/api/v1/domains/00000000-0000-4000-8000-000000000000',
      status: 404,
      body: { ...err, code: 'NOT_FOUND' },
    }),
  );
  // Literal segments win over parameters.
  t.throws(
    () => checkResponse({ ...ok, method: 'POST', path: '/api-domains/bulk', status: 201, body: { domains: [] } }),
    /schema DomainBulkResult/,
  );
});
