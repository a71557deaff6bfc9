// Property-based fuzz test (fast-check) of every operation the app's own OpenAPI document lists:
// valid bodies and query strings built from the document's schemas, then each field broken in turn,
// odd numbers (1e400, -0, NaN, huge integers, negatives), Content-Encodings (real, broken, unknown)
// and odd headers (Content-Type, Accept, giant headers), all over real HTTP to the real app on a
// loopback port. Invariants: no answer is a 5xx, every 4xx carries the error body (`error`,
// `code`, `timestamp`, `path`) with the request's path, and an answer on the operation's own path is
// documented there (status listed, body valid: test/support/openapi.ts).
//
// Seeds: with CI set the seed is fixed (FUZZ_SEED_CI) and the run bounded in time; by hand a random
// seed is drawn and printed. FUZZ_SEED=<n> replays one, FUZZ_RUNS=<n> sets the runs per operation.
// See docs/testing.md.
import http from 'node:http';
import zlib from 'node:zlib';
import t from 'tap';
import fc from 'fast-check';
import { client, startApp } from '../support/app.js';
import { checkResponse } from '../support/openapi.js';

const CI = Boolean(process.env.CI);
const FUZZ_SEED_CI = 18_2026;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : CI ? FUZZ_SEED_CI : (Math.random() * 2 ** 31) | 0;
const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : CI ? 30 : 60;
/**
 * Wall-clock budget of the whole property run (the file also starts an app and seeds rows): a guard, not
 * a pace. The CI run takes about 17 s alone and 25-32 s beside the suite's other files (`--jobs=3` on 2
 * busy cores); past the budget operations would be skipped, so it leaves room for a loaded machine.
 */
const budgetMs = 60_000;

t.setTimeout(budgetMs + 60_000);
// On stderr too, which every tap reporter passes through: the seed to replay a failure with.
process.stderr.write(`fuzz.test.ts: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}${CI ? ' (CI)' : ''}\n`);

type Json = Record<string, any>;

interface Operation {
  method: string;
  /** OpenAPI path: `/api/v1/domains/{domainId}`. */
  path: string;
  op: Json;
}

interface Sent {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with exactly these bytes and headers (fetch cannot send a GET body or broken framing). */
function send(base: string, r: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body) headers['content-length'] = r.body.length;
    const req = http.request(`${base}${r.path}${r.query}`, { method: r.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error('no answer in 20 s')));
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Percent-encoding that also takes lone surrogates (as U+FFFD). */
const enc = (x: string) => encodeURIComponent((x as string & { toWellFormed(): string }).toWellFormed());

// Odd values: for numbers, query strings and any field.
const ODD_NUMBER_TEXT = [
  '1e400',
  '-1e400',
  'Infinity',
  '-Infinity',
  'NaN',
  '-0',
  '0',
  '-1',
  '1.5',
  '99999999999999999999',
  '9007199254740993',
  '2147483648',
  '1e20',
  '0x10',
  '',
  ' ',
  '1e-400',
  '+1',
  '١٢',
];
const oddNumberText = fc.constantFrom(...ODD_NUMBER_TEXT);
const oddJsonNumber = fc.constantFrom(
  '1e400',
  '-1e400',
  '-0',
  '99999999999999999999',
  '1e-400',
  '-1',
  '0',
  '1.5',
  '2147483648',
  '9007199254740993',
  '1E308',
);
const oddString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    "'; DROP TABLE domains; --",
    '%_%',
    '🚀',
    '../../etc/passwd',
    'NaN',
    'null',
    'true',
    '<script>',
    'a'.repeat(5000),
    '\ud800',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
/** Any JSON value, as text (numbers written the odd ways JSON allows). */
const oddJsonValue: fc.Arbitrary<string> = fc.oneof(
  oddJsonNumber,
  oddString.map((s) => JSON.stringify(s)),
  fc.constantFrom(
    'null',
    'true',
    'false',
    '[]',
    '{}',
    '[null]',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

/** Nested arrays/objects `levels` deep, as text (the app refuses more than 64 levels). */
const deepJson = fc.integer({ min: 60, max: 5000 }).map((levels) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels));

t.test(`fuzz every operation of the OpenAPI document (seed ${seed}, ${runs} runs each)`, async (t) => {
  t.comment(`FUZZ_SEED=${seed} replays this run`);
  // Nothing may leave the machine: DNS, RDAP and WHOIS point at a closed loopback port (startApp),
  // and every outbound address is denied (webhook/chat URLs the fuzzer invents stay unsent).
  const s = await startApp({
    DOMMON_RATE_LIMIT: '1000000',
    // Many cases send no credential or a wrong one: at the default limit (20 a minute per address) the
    // fuzzer's own address is throttled and half of every run's requests were answered 429 unread.
    DOMMON_AUTH_FAILURE_LIMIT: '1000000',
    DOMMON_NOTIFY_INTERVAL: '3600',
    DOMMON_OUTBOUND_DENY: '0.0.0.0/0,::/0',
  });
  t.teardown(() => s.close());
  const token = await s.token('fuzz-team', 'fuzz@example.com');
  const api = client(s.url, token);

  // Rows the paths can name, so the valid cases reach the handlers.
  const pf = (await api.post('/api/v1/portfolios', { name: 'fuzz' })).body;
  const d = (await api.post('/api/v1/domains', { domain: 'fuzz.example', portfolio_id: pf.id })).body;
  const e = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const l = (await api.post('/api/v1/liveness', { endpoint_id: e.id })).body;
  const sub = (await api.post(`/api/v1/domains/${d.id}/exposure/subdomains`, { name: 'www.fuzz.example' })).body;
  const n = (await api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: 'http://127.0.0.1:9/hook' }))
    .body;
  const ids: Record<string, string[]> = {
    portfolioId: [pf.id],
    domainId: [d.id],
    endpointId: [e.id],
    livenessId: [l.id],
    subdomainId: [sub.id],
    id: [n?.id ?? n?.log_id].filter(Boolean),
    scanId: [],
    findingId: [],
  };
  const known = [pf.id, d.id, e.id, l.id, sub.id];

  const doc = JSON.parse(
    (await send(s.url, { method: 'GET', path: '/api/v1/openapi.json', query: '', headers: {} })).text,
  ) as Json;
  const resolve = (schema: Json | undefined): Json => {
    let x = schema ?? {};
    for (let i = 0; i < 10; i++) {
      if (typeof x.$ref === 'string') x = doc.components.schemas[x.$ref.split('/').pop()!];
      else if (Array.isArray(x.allOf) && x.allOf.length === 1) x = { ...x, ...resolve(x.allOf[0]), allOf: undefined };
      else break;
    }
    return x;
  };

  const uuidArb = (name?: string) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(name && ids[name]?.length ? ids[name]! : known)) },
      { weight: 1, arbitrary: fc.uuid() },
    );

  /** A value valid for `schema` (most of the time: patterns and cross-field rules are the server's to judge). */
  const valid = (schema0: Json | undefined, name = '', depth = 0): fc.Arbitrary<unknown> => {
    const schema = resolve(schema0);
    const nullable = schema.nullable === true;
    const wrap = (a: fc.Arbitrary<unknown>) =>
      nullable ? fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) }) : a;
    if (Array.isArray(schema.enum)) return wrap(fc.constantFrom(...schema.enum));
    if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
      const alts = (schema.oneOf ?? schema.anyOf) as Json[];
      if (schema.type === 'string') return wrap(valid({ type: 'string', ...alts[0] }, name, depth));
      return wrap(fc.oneof(...alts.map((a) => valid(a, name, depth + 1))));
    }
    switch (schema.type) {
      case 'boolean':
        return wrap(fc.boolean());
      case 'integer':
      case 'number': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
        const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
        return wrap(
          schema.type === 'integer'
            ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) })
            : fc.double({ min, max, noNaN: true }),
        );
      }
      case 'array': {
        const items = valid(schema.items, name, depth + 1);
        return wrap(fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) }));
      }
      case 'object': {
        if (depth > 4 || !schema.properties)
          return wrap(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }));
        const required = new Set<string>(schema.required ?? []);
        const props: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries<Json>(schema.properties)) props[k] = valid(v, k, depth + 1);
        return wrap(fc.record(props, { requiredKeys: [...required].filter((k) => k in props) }));
      }
      case 'string':
      default: {
        switch (schema.format) {
          case 'uuid':
            return wrap(uuidArb(name.replace(/_id$/, 'Id'))); // domain_id -> the seeded domainId
          case 'date':
            return wrap(
              fc
                .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
                .map((x) => x.toISOString().slice(0, 10)),
            );
          case 'date-time':
            return wrap(
              fc
                .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
                .map((x) => x.toISOString()),
            );
          case 'email':
            return wrap(fc.emailAddress());
          case 'uri':
          case 'url':
            return wrap(fc.constantFrom('http://127.0.0.1:9/hook', 'https://127.0.0.1:9/x', 'http://[::1]:9/'));
          default:
        }
        if (/domain|name|subdomain|recipient/.test(name) && !schema.pattern) {
          return wrap(
            fc.oneof(
              fc.domain(),
              fc.constantFrom('fuzz.example', 'www.fuzz.example', 'http://127.0.0.1:9/hook', 'ops@example.com'),
            ),
          );
        }
        if (typeof schema.pattern === 'string' && schema.pattern !== '\\S')
          return wrap(fc.stringMatching(new RegExp(schema.pattern)));
        return wrap(
          fc
            .string({
              minLength: Math.max(schema.minLength ?? 0, schema.pattern === '\\S' ? 1 : 0),
              maxLength: Math.min(schema.maxLength ?? 40, 40),
            })
            .map((x) => (schema.pattern === '\\S' && !/\S/.test(x) ? `x${x}` : x)),
        );
      }
    }
  };

  /** The body as text: valid, with one field broken, or something else entirely. */
  const bodyText = (schema: Json | undefined): fc.Arbitrary<string | undefined> => {
    const ok = valid(schema ?? { type: 'object', properties: {} });
    const broken = ok.chain((v) => {
      const o = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
      const keys = [...new Set([...Object.keys(o), ...Object.keys(resolve(schema).properties ?? {})])];
      if (!keys.length) return oddJsonValue.map((x) => `{"x":${x}}`);
      return fc
        .tuple(fc.constantFrom(...keys), fc.oneof(oddJsonValue, deepJson, fc.constant(undefined)))
        .map(([k, x]) => {
          const rest = Object.entries(o)
            .filter(([kk]) => kk !== k)
            .map(([kk, vv]) => `${JSON.stringify(kk)}:${JSON.stringify(vv)}`);
          if (x !== undefined) rest.push(`${JSON.stringify(k)}:${x}`); // undefined: the field left out
          return `{${rest.join(',')}}`;
        });
    });
    return fc.oneof(
      { weight: 4, arbitrary: ok.map((v) => JSON.stringify(v)) },
      { weight: 6, arbitrary: broken },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: oddJsonValue },
      { weight: 1, arbitrary: deepJson },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{',
          '{"a":}',
          'not json',
          '\u0000',
          "{'a':1}",
          '{"a":1}}',
          'domain=a.com',
          '\ufeff{}',
          '{"a":"\\ud800"}',
        ),
      },
    );
  };

  /** The query string: valid values, odd numbers, repeated and unknown parameters. */
  const queryText = (params: Json[]): fc.Arbitrary<string> => {
    const q = params.filter((p) => p.in === 'query');
    const one = (p: Json): fc.Arbitrary<[string, string][]> => {
      const schema = resolve(p.schema);
      const numeric = schema.type === 'integer' || schema.type === 'number';
      const value = fc.oneof(
        { weight: 3, arbitrary: valid(schema, p.name).map((v) => (v === null ? '' : String(v))) },
        { weight: numeric ? 4 : 1, arbitrary: oddNumberText },
        { weight: 1, arbitrary: oddString },
      );
      return fc.oneof(
        { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
        { weight: 4, arbitrary: value.map((v) => [[p.name, v]] as [string, string][]) },
        {
          weight: 1,
          arbitrary: fc.tuple(value, value).map(
            ([a, b]) =>
              [
                [p.name, a],
                [p.name, b],
              ] as [string, string][],
          ),
        },
      );
    };
    return fc
      .tuple(
        fc.tuple(...q.map(one)),
        fc.option(fc.tuple(fc.constantFrom('foo', 'limit[]', 'offset[a]', '__proto__', 'api_key'), oddString), {
          freq: 6,
        }),
      )
      .map(([parts, extra]) => {
        const all = parts.flat();
        if (extra) all.push(extra);
        return all.length ? `?${all.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}` : '';
      });
  };

  const pathText = (o: Operation): fc.Arbitrary<string> => {
    const names = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const params = (o.op.parameters ?? []) as Json[];
    const seg = (name: string) => {
      const schema = resolve(
        params.find((p) => p.in === 'path' && p.name === name)?.schema ?? { type: 'string', format: 'uuid' },
      );
      const good = schema.format === 'uuid' ? uuidArb(name) : valid(schema, name).map(String);
      return fc.oneof(
        { weight: 6, arbitrary: good },
        { weight: 1, arbitrary: oddString.map((x) => enc(x).slice(0, 300) || 'x') },
        { weight: 1, arbitrary: oddNumberText.map((x) => enc(x) || '0') },
        { weight: 1, arbitrary: fc.constantFrom('%ED%A0%80', '%FF', '%', '%00', '..', '.', '%2F', 'x;y', 'a?b') },
      );
    };
    if (!names.length) return fc.constant(o.path);
    return fc
      .tuple(...names.map(seg))
      .map((vals) => names.reduce((p, nm, i) => p.replace(`{${nm}}`, String(vals[i])), o.path));
  };

  const encodings = fc.oneof(
    { weight: 8, arbitrary: fc.constant<[string | undefined, boolean]>([undefined, false]) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<[string, boolean]>(
        ['gzip', true],
        ['deflate', true],
        ['br', true],
        ['GZIP', true],
        ['identity', false],
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<[string, boolean]>(
        ['gzip', false],
        ['deflate', false],
        ['br', false],
        ['compress', false],
        ['x-foo', false],
        ['gzip, br', false],
        ['zstd', false],
        ['', false],
      ),
    },
  );
  const contentTypes = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/xml',
    '*/*',
    'garbage',
    'application/merge-patch+json',
    undefined,
  );
  const accepts = fc.constantFrom(
    undefined,
    '*/*',
    'application/json',
    'text/html',
    'application/xml',
    'image/png',
    'garbage;;;q=x',
    'text/*;q=0',
  );
  // Up to 20 KB: Node's parser refuses heads over 16 KB (431, answered with the error body too).
  const extraHeaders = fc.oneof(
    { weight: 6, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((size) => ({ 'x-giant': 'g'.repeat(size) })) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 10, max: 200 })
        .map((count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, `v${i}`]))),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { authorization: 'Bearer ' },
        { authorization: 'Basic Zm9vOmJhcg==' },
        { authorization: `Bearer ${'x'.repeat(8000)}` },
        { 'x-forwarded-for': '1.2.3.4' },
        { 'if-none-match': '*' },
        { range: 'bytes=0-1' },
        { expect: '100-continue' },
      ),
    },
  );

  const operations: Operation[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item))
      operations.push({ method: method.toUpperCase(), path: p, op });
  // Deletes last, so the other operations still find the seeded rows.
  operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  t.ok(operations.length >= 80, `${operations.length} operations in the document`);

  const started = Date.now();
  const statuses = new Map<number, number>();
  let requests = 0;
  let interrupted = false;
  for (const o of operations) {
    const left = budgetMs - (Date.now() - started);
    if (left <= 0) {
      interrupted = true;
      break;
    }
    const bodySchema = o.op.requestBody?.content?.['application/json']?.schema as Json | undefined;
    const template = new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const arb = fc.record({
      path: pathText(o),
      query: queryText(o.op.parameters ?? []),
      body:
        o.method === 'GET' || o.method === 'DELETE'
          ? fc.option(bodyText(undefined), { freq: 6 }).map((x) => x ?? undefined)
          : bodyText(bodySchema),
      encoding: encodings,
      contentType: contentTypes,
      accept: accepts,
      auth: fc.constantFrom('header', 'header', 'header', 'header', 'query', 'none'),
      extra: extraHeaders,
    });
    const result = await fc.check(
      fc.asyncProperty(arb, async (c) => {
        const headers: Record<string, string> = { ...(c.extra as Record<string, string>) };
        let query = c.query;
        if (c.auth === 'header' && !headers.authorization) headers.authorization = `Bearer ${token}`;
        if (c.auth === 'query') query += `${query ? '&' : '?'}api_key=${token}`;
        if (c.contentType) headers['content-type'] = c.contentType;
        if (c.accept) headers.accept = c.accept;
        let body = c.body === undefined ? undefined : Buffer.from(c.body);
        const [encoding, compress] = c.encoding;
        if (encoding !== undefined) headers['content-encoding'] = encoding;
        if (body && compress) {
          const e = encoding!.toLowerCase();
          body =
            e === 'gzip'
              ? zlib.gzipSync(body)
              : e === 'deflate'
                ? zlib.deflateSync(body)
                : zlib.brotliCompressSync(body);
        }
        const req: Sent = { method: o.method, path: c.path, query, headers, body };
        const r = await send(s.url, req);
        requests++;
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        const what = `${o.method} ${c.path}${query.slice(0, 200)} -> ${r.status} ${r.text.slice(0, 300)}`;
        if (r.status >= 500) throw new Error(`5xx: ${what}`);
        // An answer on the operation's own path must be the documented one (status listed, body valid
        // against its schema). Paths that left the template (`..`) may be refused before routing.
        const sentPath = new URL(`${s.url}${c.path}${query}`).pathname;
        if (template.test(sentPath) && r.status !== 431) {
          let parsed: unknown;
          try {
            parsed = r.text ? JSON.parse(r.text) : undefined;
          } catch {
            parsed = undefined;
          }
          checkResponse({
            method: o.method,
            path: sentPath,
            status: r.status,
            contentType: (r.headers['content-type'] as string | undefined) ?? null,
            body: parsed,
            text: r.text,
          });
        }
        // A 4xx that the operation the path reached documents with an answer of its own (the status
        // pages' HTML 404, a ping URL's plain text, Uptime Kuma's JSON `{ok, msg}`), not the shared error
        // responses, is that answer (checkResponse above holds it to its schema), not an error body. A
        // trailing slash reaches the same operation (`/ping/{key}/.` is sent as `/ping/{key}/`).
        const type = String(r.headers['content-type'] ?? '');
        const otherType = operations.some((x) => {
          const content = x.op.responses?.[String(r.status)]?.content as Json | undefined;
          return (
            x.method === o.method &&
            new RegExp(`^${x.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`).test(sentPath) &&
            content &&
            Object.keys(content).some((ct) => type.startsWith(ct))
          );
        });
        if (r.status >= 400 && !otherType) {
          let b: Json;
          try {
            b = JSON.parse(r.text);
          } catch {
            throw new Error(`4xx without a JSON body: ${what}`);
          }
          if (
            typeof b.error !== 'string' ||
            typeof b.code !== 'string' ||
            typeof b.timestamp !== 'string' ||
            Number.isNaN(Date.parse(b.timestamp))
          ) {
            throw new Error(`4xx without the error body (error, code, timestamp): ${what}`);
          }
          // koa's ctx.path: the path as sent (dot segments resolved by the client, not percent-decoded)
          if (b.path !== sentPath)
            throw new Error(
              `4xx error body path ${JSON.stringify(b.path)}, expected ${JSON.stringify(sentPath)}: ${what}`,
            );
        }
      }),
      {
        seed: seed + operations.indexOf(o),
        numRuns: runs,
        interruptAfterTimeLimit: Math.max(1, left),
        markInterruptAsFailure: false,
      },
    );
    if (result.interrupted) interrupted = true;
    // fast-check counts a run interrupted before its first case as failed (no case passed): the budget
    // ran out as this operation started, which is no failure of the app. A failure has its case.
    if (result.failed && result.counterexample === null && result.interrupted) {
      t.pass(`${o.method} ${o.path}: not run (time budget reached)`);
    } else if (result.failed) {
      t.fail(
        `${o.method} ${o.path}: ${(result.errorInstance as Error | undefined)?.message?.slice(0, 600)}\n${(fc.defaultReportMessage(result) ?? '').slice(0, 1500)}\nreplay: FUZZ_SEED=${seed}`,
      );
    } else {
      t.pass(`${o.method} ${o.path}: ${result.numRuns} runs`);
    }
  }
  const ms = Date.now() - started;
  t.comment(
    `${requests} requests in ${ms} ms${interrupted ? ' (time budget reached: some operations ran fewer times)' : ''}; statuses ${JSON.stringify([...statuses].sort((a, b) => a[0] - b[0]))}`,
  );
  t.notOk(
    [...statuses.keys()].some((k) => k >= 500),
    'no 5xx at all',
  );
  t.ok(statuses.get(400)! > 0 && [...statuses.keys()].some((k) => k < 300), 'both refusals and successes were seen');
  t.equal((await api.get('/health')).status, 200, 'the app still answers');
});
