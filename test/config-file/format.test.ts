// The configuration file's format (docs/configuration-file.md): its JSON Schema is the one the build
// generates from the API's schemas and registries, the daemon serves it, the documentation's full
// example reads without an error, and a bad file gets every error at its line and column.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildConfigSchema } from '../../src/api/config-schema.js';
import { formatError, parseConfigFile, referencedNames } from '../../src/api/config-file.js';
import { loadSchemas, SCHEMA_DIR } from '../../src/api/validation.js';
import { CHANNELS } from '../../src/channels/index.js';
import { ENDPOINT_TYPES } from '../../src/probes/registry.js';
import { request, startApp } from '../support/app.js';

const schemas = loadSchemas();
const file = path.join(SCHEMA_DIR, 'config', 'dommon.schema.json');
const committed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
const read = (text: string, env: Record<string, string> = {}) => parseConfigFile(text, 'f.yaml', env, schemas);
const errorsOf = (text: string, env: Record<string, string> = {}) => {
  const r = read(text, env);
  return r.errors.map((e) => formatError('f.yaml', e));
};

t.test('the committed schema is the generated one, with every channel and endpoint type', async (t) => {
  t.same(committed, JSON.parse(JSON.stringify(buildConfigSchema(schemas))), 'npm run build wrote it');
  const p = committed.properties as Record<string, { items: Record<string, unknown> }>;
  t.same((p.channels!.items.properties as { type: { enum: string[] } }).type.enum, CHANNELS);
  const endpoint = ((p.domains!.items.properties as Record<string, { items: Record<string, unknown> }>).endpoints!.items
    .properties as Record<string, { enum?: string[] }>)!;
  t.same(endpoint.type!.enum, ENDPOINT_TYPES);
  // A type's own field (push `schedule`, dns `record_type`) is there because the registry declares it.
  t.ok(endpoint.schedule && endpoint.record_type, 'type-specific fields from the registry');
  t.notMatch(JSON.stringify(committed), /"\$ref"/, 'self-contained: an editor needs only this file');
});

t.test('the daemon serves the schema', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const r = await request(s.url, 'GET', '/api/v1/config/schema.json', { unchecked: true });
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /^application\/schema\+json/);
  t.same(JSON.parse(r.text), committed);
});

t.test("the documentation's full example reads, variables resolved", async (t) => {
  const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/configuration-file.md'), 'utf8');
  const example = /## A full example\n\n```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
  t.same(referencedNames(example), ['API_TOKEN', 'SLACK_WEBHOOK_URL', 'WEBHOOK_SECRET']);
  const env = { WEBHOOK_SECRET: 'w-secret', API_TOKEN: 'tok-123', SLACK_WEBHOOK_URL: 'https://hooks.slack.test/T/B/x' };
  const r = read(example, env);
  t.same(r.errors, []);
  t.equal(r.doc!.channels![0]!.secret_key, 'w-secret');
  t.equal(r.doc!.channels![2]!.webhook_url, 'https://hooks.slack.test/T/B/x');
  const api = r.doc!.domains![0]!.endpoints![0]!;
  t.same(api.liveness!.auth, { type: 'bearer', token: 'tok-123' });
  t.equal(r.doc!.domains![0]!.manual_expiry, '2027-01-01', 'a date stays a string');
  const mail = example.split('\n').findIndex((l) => l.includes('- name: mail'));
  t.same(r.locate(['domains', 0, 'endpoints', 1]), { line: mail + 1, col: 9 }, 'a path is placed in the file');
  t.same(errorsOf(JSON.stringify({ version: 1, portfolios: [{ name: 'P' }] })), [], 'JSON is read too');
});

t.test('every error, each at its line and column', async (t) => {
  const text = [
    'version: 2', // 1
    'colour: red', // 2
    'channels:', // 3
    '  - type: webhook', // 4
    '    webhook_url: ftp://x', // 5
    '    secret_key: plain', // 6
    '  - type: pigeon', // 7
    'domains:', // 8
    '  - name: example.com', // 9
    '    endpoints:', // 10
    '      - name: a', // 11
    '        type: https', // 12
    '        port: 70000', // 13
    '        liveness: { timeout_seconds: 5, body: "${BODY}" }', // 14
    '      - name: b', // 15
    '        type: gopher', // 16
  ].join('\n');
  t.same(errorsOf(text), [
    'f.yaml:1:10: version: must be 1',
    'f.yaml:2:1: colour: unknown field',
    'f.yaml:5:18: channels.0.webhook_url: must match ^https?://',
    'f.yaml:6:17: channels.0.secret_key: a secret, so only a ${NAME} reference to an environment variable',
    'f.yaml:7:11: channels.1.type: must be one of ' + CHANNELS.join(', '),
    'f.yaml:13:15: domains.0.endpoints.0.port: must be <= 65535',
    'f.yaml:14:47: domains.0.endpoints.0.liveness.body: the variable BODY is not set',
    'f.yaml:16:15: domains.0.endpoints.1.type: must be one of ' + ENDPOINT_TYPES.join(', '),
  ]);
  t.same(errorsOf('version: 1\nportfolios:\n  - name: A\n    name: B\n'), ['f.yaml:4:5: Map keys must be unique']);
  t.same(errorsOf('version: 1\nportfolios: [ {name: A\n'), [
    'f.yaml:3:1: Flow map in block collection must be sufficiently indented and end with a }',
    'f.yaml:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]',
  ]);
  t.same(
    errorsOf(
      'version: 1\ndomains:\n  - name: a.com\n    endpoints:\n      - { name: x, type: http }\n      - { name: x, type: port }\n  - name: A.com.\n',
    ),
    [
      'f.yaml:6:9: endpoint of a.com "x" is already defined at domains.0.endpoints.0',
      'f.yaml:7:5: domain "A.com." is already defined at domains.0',
    ],
  );
  t.same(errorsOf('- 1\n'), ['f.yaml:1:1: the file must be a mapping with at least `version: 1`']);
});
