// The endpoint-type registry is the one list: every type is one plug-in file plus its line in
// src/probes/registry.ts. The domain's rules read the shapes the registry hands them; the committed
// JSON Schemas (enums and descriptions), the OpenAPI document, the CLI's --type choices and its
// completion, and the table of docs/endpoint-types.md all list the registry's types, and the
// generators pick up a type they were never told of (a made-up plug-in below) with no other edit.
import t from 'tap';
import {
  defineEndpointTypes,
  endpointShape,
  fullUrl,
  wantsTls,
  type EndpointShape,
  type EndpointType,
} from '../../src/domain/endpoint.js';
import { ENDPOINT_PLUGINS, ENDPOINT_TYPES, pluginOf } from '../../src/probes/registry.js';
import type { EndpointPlugin } from '../../src/probes/plugin.js';
import {
  FIELD_MARK,
  endpointFieldProperties,
  endpointFieldsTable,
  endpointTypeDescription,
  endpointTypesTable,
  withEndpointFieldsTable,
  withEndpointTypesTable,
} from '../../src/probes/artifacts.js';
import {
  ENDPOINT_FIELD_SCHEMAS,
  endpointTypeEnums,
  writeEndpointFields,
  writeEndpointTypeEnums,
} from '../../src/api/schema-enums.js';
import { createValidator } from '../../src/api/validation.js';
import { loadSchemas, SCHEMA_DIR } from '../../src/api/validation.js';
import { buildOpenApi } from '../../src/api/openapi/document.js';
import { buildProgram } from '../../src/cli/program.js';
import { PACKAGE_ROOT } from '../../src/package.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Nothing here lists the registry's types in full: adding a type (one file, one registry line, npm
// run build) leaves this test green. The spec's three types and the issue's smtp and imap are pinned.
const plugins = Object.values(ENDPOINT_PLUGINS) as EndpointPlugin[];
const EXTENSIONS = ENDPOINT_TYPES.filter((x) => ENDPOINT_PLUGINS[x].extension);
const DESCRIPTION = endpointTypeDescription();

/** A type the registry does not have: what a new plug-in file declares. */
const madeUp = {
  name: 'madeup',
  defaultPort: 7070,
  url: 'service',
  certificate: 'never',
  extension: true,
  docs: { liveness: 'the server answers hello', certificate: 'none' },
  liveness: async () => ({ ok: true, statusCode: null, responseTimeMs: 1, reason: null, error: null }),
  upSummary: () => 'hello answered',
} as unknown as EndpointPlugin;

/** Every `endpoint_type` (property or query parameter) in an OpenAPI document: its enum and description. */
function openApiSites(doc: unknown): { at: string; values: unknown; description: unknown }[] {
  const out: { at: string; values: unknown; description: unknown }[] = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${at}[${i}]`));
    else if (node && typeof node === 'object') {
      const o = node as Record<string, any>;
      if (o.in === 'query' && o.name === 'endpoint_type')
        out.push({ at, values: o.schema?.enum, description: o.description });
      for (const [k, v] of Object.entries(o)) {
        if (k === 'endpoint_type' && v && typeof v === 'object' && !Array.isArray(v))
          out.push({ at: `${at}.${k}`, values: v.enum, description: v.description });
        visit(v, `${at}.${k}`);
      }
    }
  };
  visit(doc, '$');
  return out;
}

t.test('every endpoint type is one plug-in, and the domain sees its shape', async (t) => {
  t.same(
    ENDPOINT_TYPES.filter((x) => !ENDPOINT_PLUGINS[x].extension),
    ['https', 'http', 'port'],
    "the spec's types, first",
  );
  t.same(ENDPOINT_TYPES.slice(0, 3), ['https', 'http', 'port']);
  t.same(
    ['smtp', 'imap'].filter((x) => EXTENSIONS.includes(x as EndpointType)),
    ['smtp', 'imap'],
    'smtp and imap, extensions',
  );
  t.same(Object.keys(ENDPOINT_PLUGINS), [...ENDPOINT_TYPES], 'one plug-in per type, in the same order');
  for (const type of ENDPOINT_TYPES) {
    const p = pluginOf(type);
    t.equal(p.name, type, `${type}: its name`);
    // The probe-side members (conditions it supplies, an HTTP request it sends) are not the domain's shape.
    const { name: _n, liveness: _l, inspect, docs, placeholders: _p, httpRequest: _h, upSummary: _u, ...shape } = p;
    t.same(endpointShape(type), shape, `${type}: the domain rules read the plug-in's shape`);
    t.equal(typeof p.liveness, 'function', `${type}: a liveness probe`);
    t.equal(
      typeof inspect === 'function',
      p.certificate !== 'never',
      `${type}: a TLS inspection exactly when it carries a certificate`,
    );
    t.ok(docs.liveness && docs.certificate, `${type}: its docs row`);
  }
  t.same(
    ENDPOINT_TYPES.filter((x) => endpointShape(x).extension),
    EXTENSIONS,
    'the extensions beyond the spec, as the domain sees them',
  );
  t.throws(() => endpointShape('madeup' as EndpointType), /unknown endpoint type madeup/);
});

t.test("each type's words for a check that passed (`dommon check` prints them)", async (t) => {
  const at = (endpoint_type: EndpointType, port: number | null = null, subdomain: string | null = null) => ({
    endpoint_type,
    domain: 'example.com',
    subdomain,
    port,
    path: null,
  });
  const up = { ok: true, reason: null, error: null, responseTimeMs: 12 } as const;
  const words: Record<EndpointType, string[]> = {
    https: [pluginOf('https').upSummary({ ...up, statusCode: 200 }, at('https'))],
    http: [pluginOf('http').upSummary({ ...up, statusCode: 301 }, at('http'))],
    port: [pluginOf('port').upSummary({ ...up, statusCode: null }, at('port', 5432))],
    smtp: [
      pluginOf('smtp').upSummary({ ...up, statusCode: 220 }, at('smtp', 587)),
      pluginOf('smtp').upSummary({ ...up, statusCode: 220 }, at('smtp', 465)),
    ],
    imap: [
      pluginOf('imap').upSummary({ ...up, statusCode: null }, at('imap', 143)),
      pluginOf('imap').upSummary({ ...up, statusCode: null }, at('imap', 993)),
    ],
    icmp: [
      pluginOf('icmp').upSummary(
        {
          ...up,
          responseTimeMs: 1,
          statusCode: null,
          detail: {
            icmp: {
              packets_sent: 3,
              packets_received: 2,
              loss_percent: 33.33,
              rtt_min_ms: 0.5,
              rtt_avg_ms: 1.2,
              rtt_max_ms: 2,
              rtt_mdev_ms: 0.6,
            },
          },
        },
        at('icmp'),
      ),
    ],
    push: [pluginOf('push').upSummary({ ...up, responseTimeMs: 0, statusCode: null }, at('push'))],
    dns: [
      pluginOf('dns').upSummary({ ...up, statusCode: null }, at('dns', null, 'www')),
      pluginOf('dns').upSummary({ ...up, statusCode: null }, { ...at('dns'), settings: { record_type: 'MX' } }),
    ],
  };
  t.same(words, {
    https: ['HTTP 200 in 12 ms'],
    http: ['HTTP 301 in 12 ms'],
    port: ['TCP connect in 12 ms'],
    smtp: ['SMTP greeting 220 and STARTTLS in 12 ms', 'SMTP greeting 220 and implicit TLS in 12 ms'],
    imap: ['IMAP greeting * OK and STARTTLS in 12 ms', 'IMAP greeting * OK and implicit TLS in 12 ms'],
    icmp: ['ICMP echo: 2 of 3 replies, mean round trip 1 ms'],
    push: ['heartbeat: the job pinged in time and its last run did not fail'],
    dns: ['DNS A answer for www.example.com in 12 ms', 'DNS MX answer for example.com in 12 ms'],
  });
});

t.test('the domain takes the shapes once (pure data, no probe)', async (t) => {
  t.doesNotThrow(() => defineEndpointTypes({ ...ENDPOINT_PLUGINS }), 'the same table again is fine');
  t.equal(Object.isFrozen(endpointShape('smtp')), true, 'frozen');
  t.notOk('liveness' in endpointShape('smtp'), 'only the shape is kept, not the probe');
  t.throws(
    () => defineEndpointTypes({ ...ENDPOINT_PLUGINS, madeup: madeUp } as Record<EndpointType, EndpointShape>),
    /defined once/,
    'another table later is refused',
  );
  t.throws(() => endpointShape('madeup' as EndpointType), /unknown/, 'and left the table as it was');
});

t.test('the pure rules read the shapes (spec types unchanged)', async (t) => {
  const e = (endpoint_type: (typeof ENDPOINT_TYPES)[number], port: number | null, path: string | null = null) => ({
    endpoint_type,
    domain: 'example.com',
    subdomain: 'mail',
    port,
    path,
  });
  t.same(
    [
      fullUrl(e('https', null, 'x')),
      fullUrl(e('https', 443)),
      fullUrl(e('http', 8080)),
      fullUrl(e('port', 22)),
      fullUrl(e('smtp', null)),
      fullUrl(e('smtp', 465)),
      fullUrl(e('imap', 993, '/ignored')),
    ],
    [
      'https://mail.example.com/x',
      'https://mail.example.com/',
      'http://mail.example.com:8080/',
      'mail.example.com:22',
      'smtp://mail.example.com:25',
      'smtp://mail.example.com:465',
      'imap://mail.example.com:993',
    ],
  );
  t.same(
    [
      wantsTls(e('https', null)),
      wantsTls(e('http', 443)),
      wantsTls(e('port', 22)),
      wantsTls(e('port', 993)),
      wantsTls(e('smtp', 25)),
      wantsTls(e('imap', 143)),
    ],
    [true, false, false, true, true, true],
  );
});

t.test("the committed schemas and the OpenAPI document list exactly the registry's types", async (t) => {
  t.ok(
    DESCRIPTION.startsWith("`https`, `http` or `port` (the spec's types); `smtp`") &&
      DESCRIPTION.endsWith(' are extensions (docs/endpoint-types.md).'),
    `the description, from the extension flags: ${DESCRIPTION}`,
  );
  for (const x of EXTENSIONS) t.match(DESCRIPTION, `\`${x}\``, `it names ${x}`);
  const sites = endpointTypeEnums(SCHEMA_DIR);
  t.same(
    [...new Set(sites.map((s) => s.file))].sort(),
    [
      'queries/endpoint-list.json',
      'requests/endpoint-create.json',
      'requests/endpoint-update.json',
      'responses/endpoint-detail.json',
      'responses/endpoint-status.json',
      'responses/endpoint.json',
    ].map((f) => f.split('/').join(path.sep)),
  );
  for (const s of sites) {
    t.same(s.values, [...ENDPOINT_TYPES], `${s.file} ${s.at}`);
    if ('description' in s) t.equal(s.description, DESCRIPTION, `${s.file} ${s.at} description`);
  }
  t.equal(sites.filter((s) => 'description' in s).length, 3, 'the request bodies and the list query describe it');

  const committed = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'openapi.json'), 'utf8'));
  const built = buildOpenApi(loadSchemas());
  for (const [name, doc] of [
    ['committed', committed],
    ['built', built],
  ] as const) {
    const found = openApiSites(doc);
    t.ok(found.length >= 8, `${name}: ${found.length} endpoint_type sites`);
    for (const f of found) {
      t.same(f.values, [...ENDPOINT_TYPES], `${name} ${f.at}`);
      if (f.description !== undefined) t.equal(f.description, DESCRIPTION, `${name} ${f.at} description`);
    }
  }
});

t.test("the CLI offers the registry's types (choices and completion)", async (t) => {
  const program = buildProgram();
  const endpoints = program.commands.find((c) => c.name() === 'endpoints')!;
  for (const sub of ['list', 'add', 'update']) {
    const opt = endpoints.commands.find((c) => c.name() === sub)!.options.find((o) => o.long === '--type')!;
    t.same(opt.argChoices, [...ENDPOINT_TYPES], `endpoints ${sub} --type`);
    t.match(opt.description, `(${EXTENSIONS.join(', ')}: extensions)`, `endpoints ${sub} --type names the extensions`);
  }
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  try {
    await buildProgram().parseAsync(['completion', 'bash'], { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  for (const sub of ['list', 'add', 'update'])
    t.match(out, `"endpoints ${sub} --type") words_="${ENDPOINT_TYPES.join(' ')}"`, `bash completion: ${sub}`);
});

t.test("docs/endpoint-types.md's table is the registry's (npm run build writes it)", async (t) => {
  const doc = fs.readFileSync(path.join(PACKAGE_ROOT, 'docs/endpoint-types.md'), 'utf8');
  t.equal(withEndpointTypesTable(doc), doc, 'up to date');
  for (const p of plugins)
    t.match(
      doc,
      `| \`${p.name}\`${p.extension ? ' (extension)' : ''} | ${p.url === 'name' ? 'none (no port)' : (p.defaultPort ?? 'none (`port` required)')} |`,
      `${p.name} row`,
    );
  t.match(doc, '| `smtp` (extension) | 25 | `smtp://host:port` | the server greets `220` and TLS completes |');
  t.match(
    doc,
    '| `port` | none (`port` required) | `host:port` | the TCP connection is accepted | on 443, 8443, 993, 995, 465 |',
  );
});

t.test('a new plug-in flows into every generated artifact with no other edit', async (t) => {
  const next = [...plugins, madeUp];
  const types = next.map((p) => p.name);
  const description = endpointTypeDescription(next);
  t.equal(description, DESCRIPTION.replace(/ and (`[a-z0-9]+`) are extensions/, ', $1 and `madeup` are extensions'));
  t.match(
    endpointTypesTable(next),
    '| `madeup` (extension) | 7070 | `madeup://host:port` | the server answers hello | none |',
  );
  // The schemas, rewritten in a copy, and the OpenAPI document built from them.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-eptypes-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(SCHEMA_DIR, dir, { recursive: true });
  t.same(writeEndpointTypeEnums(dir, types, description).length, 6, 'six schema files rewritten');
  for (const s of endpointTypeEnums(dir)) {
    t.same(s.values, types, `${s.file} ${s.at}`);
    if ('description' in s) t.equal(s.description, description);
  }
  const found = openApiSites(buildOpenApi(loadSchemas(dir)));
  t.ok(found.length >= 8);
  for (const f of found) t.same(f.values, types, `OpenAPI ${f.at}`);
  t.same(writeEndpointTypeEnums(dir, types, description), [], 'a second run changes nothing');
});

/** A made-up type with fields of its own: what a plug-in that declares `fields` looks like. */
const withFields = {
  ...madeUp,
  name: 'fieldful',
  fields: {
    mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast', description: 'how it asks' },
    tries: { type: 'integer', minimum: 1, maximum: 9, description: 'how often it asks' },
  },
} as unknown as EndpointPlugin;

t.test("a plug-in's fields flow into the schemas, the OpenAPI document, the CLI and the docs", async (t) => {
  const next = [...plugins, withFields];
  const props = endpointFieldProperties(next);
  t.match(props.mode, {
    type: 'string',
    enum: ['fast', 'slow'],
    default: 'fast',
    description: 'how it asks (endpoint_type `fieldful` only; docs/endpoint-types.md).',
    [FIELD_MARK]: ['fieldful'],
  });
  t.throws(
    () =>
      endpointFieldProperties([
        ...next,
        {
          ...withFields,
          name: 'other',
          fields: { mode: { type: 'integer', description: 'x' } },
        } as unknown as EndpointPlugin,
      ]),
    /endpoint field mode: declared with two different schemas/,
  );
  t.match(endpointFieldsTable(next), '| `fieldful` | `mode` | `fast` or `slow` | `"fast"` | how it asks |');
  t.match(endpointFieldsTable(next), '| `fieldful` | `tries` | integer 1-9 | required | how often it asks |');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-epfields-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(SCHEMA_DIR, dir, { recursive: true });
  writeEndpointTypeEnums(
    dir,
    next.map((p) => p.name),
    endpointTypeDescription(next),
  );
  t.same(
    writeEndpointFields(dir, props, FIELD_MARK),
    ENDPOINT_FIELD_SCHEMAS.map((s) => s.file),
    'the endpoint request and answer schemas rewritten',
  );
  t.same(writeEndpointFields(dir, props, FIELD_MARK), [], 'a second run changes nothing');
  const answer = JSON.parse(fs.readFileSync(path.join(dir, 'responses/endpoint.json'), 'utf8'));
  t.notOk('default' in answer.properties.mode, 'answers carry no default');
  t.notOk(answer.required.includes('mode'), 'and do not require a field (other types have none)');
  const keys = Object.keys(answer.properties);
  const at = keys.indexOf('notes') + 1;
  t.same(keys.slice(at, at + Object.keys(props).length), Object.keys(props), 'placed after notes');

  // ajv validates the field by its fragment.
  const v = createValidator(loadSchemas(dir));
  const base = { domain_id: '0190a0a0-0000-7000-8000-000000000000', name: 'x', endpoint_type: 'fieldful' };
  t.doesNotThrow(() => v.body('endpoint-create', { ...base, mode: 'slow', tries: 3 }));
  t.throws(() => v.body('endpoint-create', { ...base, mode: 'medium' }), /^mode: /);
  t.throws(() => v.body('endpoint-update', { tries: 10 }), /^tries: /);

  const doc = JSON.stringify(buildOpenApi(loadSchemas(dir)));
  t.match(doc, '"mode":{"type":"string","enum":["fast","slow"],"default":"fast"', 'in the OpenAPI document');

  // A field is removed again when its plug-in no longer has it.
  t.same(writeEndpointFields(dir, endpointFieldProperties(plugins), FIELD_MARK).length, 4);
  t.notOk('mode' in JSON.parse(fs.readFileSync(path.join(dir, 'requests/endpoint-create.json'), 'utf8')).properties);
  t.throws(
    () => writeEndpointFields(dir, { notes: { type: 'string', [FIELD_MARK]: ['x'] } }, FIELD_MARK),
    /endpoint field notes: the endpoint schema has it already/,
  );
});

t.test("the committed endpoint schemas and docs hold the registry's fields; the CLI offers them", async (t) => {
  t.same(writeEndpointFields(SCHEMA_DIR, endpointFieldProperties(), FIELD_MARK, true), [], 'schemas up to date');
  const doc = fs.readFileSync(path.join(PACKAGE_ROOT, 'docs/endpoint-types.md'), 'utf8');
  t.equal(withEndpointFieldsTable(doc), doc, 'docs/endpoint-types.md fields table up to date');
  const add = buildProgram()
    .commands.find((c) => c.name() === 'endpoints')!
    .commands.find((c) => c.name() === 'add')!;
  for (const p of plugins)
    for (const [name, f] of Object.entries(p.fields ?? {})) {
      const opt = add.options.find((o) => o.long === `--${name.replaceAll('_', '-')}`);
      t.ok(opt, `endpoints add --${name.replaceAll('_', '-')}`);
      t.match(opt?.description, f.description);
    }
});
