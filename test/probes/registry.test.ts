// The endpoint-type registry is the one list: every type has its plug-in (name and shape as the
// domain table says, an inspection exactly when it carries a certificate), and the committed JSON
// Schemas, the OpenAPI document, the CLI's --type choices and its completion all list the same types.
import t from 'tap';
import { ENDPOINT_SHAPES, fullUrl, wantsTls } from '../../src/domain/endpoint.js';
import { ENDPOINT_TYPES } from '../../src/domain/types.js';
import { ENDPOINT_PLUGINS, pluginOf } from '../../src/probes/registry.js';
import { endpointTypeEnums } from '../../src/api/schema-enums.js';
import { loadSchemas, SCHEMA_DIR } from '../../src/api/validation.js';
import { buildOpenApi } from '../../src/api/openapi/document.js';
import { buildProgram } from '../../src/cli/program.js';
import fs from 'node:fs';
import path from 'node:path';

t.test('every endpoint type has one plug-in matching its shape', async (t) => {
  t.same([...ENDPOINT_TYPES], ['https', 'http', 'port', 'smtp', 'imap']);
  t.same(Object.keys(ENDPOINT_PLUGINS), [...ENDPOINT_TYPES], 'one plug-in per type, in the same order');
  for (const type of ENDPOINT_TYPES) {
    const p = pluginOf(type);
    t.equal(p.name, type, `${type}: its name`);
    const { name: _n, liveness: _l, inspect, ...shape } = p;
    t.same(shape, ENDPOINT_SHAPES[type], `${type}: the shape of the domain table`);
    t.equal(typeof p.liveness, 'function', `${type}: a liveness probe`);
    t.equal(
      typeof inspect === 'function',
      p.certificate !== 'never',
      `${type}: a TLS inspection exactly when it carries a certificate`,
    );
  }
  t.same(
    ENDPOINT_TYPES.filter((x) => ENDPOINT_SHAPES[x].extension),
    ['smtp', 'imap'],
    'the extensions beyond the spec',
  );
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

t.test("the committed schemas list exactly the registry's types (npm run build rewrites them)", async (t) => {
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
  for (const s of sites) t.same(s.values, [...ENDPOINT_TYPES], `${s.file} ${s.at}`);

  const committed = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'openapi.json'), 'utf8'));
  const built = buildOpenApi(loadSchemas()) as any;
  for (const doc of [committed, built]) {
    t.same(
      doc.components.schemas['endpoint-create'].properties.endpoint_type.enum,
      [...ENDPOINT_TYPES],
      'OpenAPI: endpoint-create',
    );
    t.match(doc.components.schemas['endpoint-create'].properties.endpoint_type.description, /smtp.*imap.*extensions/);
  }
});

t.test("the CLI offers the registry's types (choices and completion)", async (t) => {
  const program = buildProgram();
  const endpoints = program.commands.find((c) => c.name() === 'endpoints')!;
  for (const sub of ['list', 'add', 'update']) {
    const opt = endpoints.commands.find((c) => c.name() === sub)!.options.find((o) => o.long === '--type')!;
    t.same(opt.argChoices, [...ENDPOINT_TYPES], `endpoints ${sub} --type`);
  }
});
