// The registry is the only list of channels: every generated file (config schemas, channel enums in
// schemas/, docs/channels.md), the OpenAPI document and the CLI agree with it, and each plug-in's
// declarations hold together (its example is a valid config, its secrets are config keys).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { CHANNELS, channels } from '../../src/channels/index.js';
import type { ChannelPlugin } from '../../src/channels/types.js';
import { channelArtifacts, channelSchema } from '../../src/channels/artifacts.js';
import { CHANNEL_URLS, loadConfig } from '../../src/config/index.js';
import { CHANNELS as CLI_CHANNELS } from '../../src/cli/commands/notifications.js';
import { PACKAGE_ROOT } from '../../src/package.js';

const read = (rel: string) => fs.readFileSync(path.join(PACKAGE_ROOT, rel), 'utf8');
function schemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const ent of fs.readdirSync(path.join(PACKAGE_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${ent.name}`;
      if (ent.isDirectory()) walk(rel);
      else if (ent.name.endsWith('.json')) out[rel] = read(rel);
    }
  };
  walk('schemas');
  return out;
}

t.test('the committed generated files are what the registry generates (run npm run build)', async (t) => {
  const files = schemaFiles();
  const want = channelArtifacts(files);
  for (const [rel, text] of want)
    t.equal(fs.existsSync(path.join(PACKAGE_ROOT, rel)) ? read(rel) : null, text, `${rel} up to date`);
  const stale = Object.keys(files).filter((f) => f.startsWith('schemas/channels/') && !want.has(f));
  t.same(stale, [], 'no schema of an unregistered channel');
  // Every channel enum anywhere in schemas/ (requests, queries, responses) lists exactly the registry.
  const enums: string[][] = [];
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'enum' && Array.isArray(x) && x.includes('webhook')) enums.push(x as string[]);
        else collect(x);
      }
    }
  };
  for (const [f, raw] of Object.entries(files)) if (!f.startsWith('schemas/channels/')) collect(JSON.parse(raw));
  t.ok(enums.length >= 6, `${enums.length} channel enums (request, query, responses, OpenAPI)`);
  for (const e of enums) t.same(e, CHANNELS);
});

t.test('docs/channels.md has one table row and one section per channel, and every DOMMON_*_URL', async (t) => {
  const doc = read('docs/channels.md');
  for (const kind of CHANNELS) {
    t.match(doc, new RegExp(`^\\| \`${kind}\` \\| ${channels[kind].title} \\|`, 'm'), `${kind} row`);
    t.match(doc, `### ${channels[kind].title} (\`${kind}\`)`, `${kind} section`);
  }
  for (const v of Object.values(CHANNEL_URLS)) t.match(doc, `| \`${v.env}\` |`, v.env);
});

t.test('the CLI offers exactly the registry', async (t) => {
  t.same([...CLI_CHANNELS], CHANNELS);
});

t.test('the OpenAPI document lists the registry for PUT /notifications/settings/{type}', async (t) => {
  const doc = JSON.parse(read('schemas/openapi.json'));
  const param = doc.paths['/api/v1/notifications/settings/{type}'].put.parameters.find(
    (p: { name: string }) => p.name === 'type',
  );
  t.same(param.schema.enum, CHANNELS);
  for (const kind of CHANNELS)
    t.match(
      doc.components.schemas[`channels.${kind}`],
      { type: 'object', additionalProperties: false },
      `${kind} config schema in components`,
    );
});

t.test(
  'each plug-in: the example is a valid config; secrets, destinations and required keys are config keys',
  async (t) => {
    const ajv = new Ajv({ strict: false, strictNumbers: true });
    formatsPlugin.default(ajv);
    for (const kind of CHANNELS) {
      const p: ChannelPlugin<unknown> = channels[kind];
      const validate = ajv.compile(channelSchema(kind));
      t.ok(validate(p.example), `${kind} example valid: ${ajv.errorsText(validate.errors)}`);
      const props = Object.keys((p.configSchema.properties ?? {}) as object);
      for (const k of p.secrets) t.ok(props.includes(k), `${kind}: secret ${k} is a config key`);
      for (const k of p.destinations) t.ok(props.includes(k), `${kind}: destination ${k} is a config key`);
      // Any URL in a config chooses a host: it must be declared a destination, so no masked secret follows a new one.
      const schemaProps = (p.configSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [k, s] of Object.entries(schemaProps))
        if (s.format === 'uri' || /\^https\?/.test(String(s.pattern ?? '')))
          t.ok(p.destinations.includes(k), `${kind}: URL ${k} is declared a destination`);
      for (const k of (p.configSchema.required as string[] | undefined) ?? [])
        t.ok(props.includes(k), `${kind}: required ${k} is a config key`);
      // A masked secret as GET returns it passes the schema (so it can be sent back).
      const masked = Object.fromEntries(
        Object.entries(p.example).map(([k, v]) => [k, p.secrets.includes(k) ? `********${String(v).slice(-4)}` : v]),
      );
      t.ok(validate(masked), `${kind}: masked example valid`);
      t.equal(p.configSchema.additionalProperties, false, `${kind}: unknown config keys refused`);
      t.ok(p.title && p.api && p.test.what, `${kind}: described`);
    }
  },
);

t.test('DOMMON_*_URL: one per fixed-provider channel, defaults, overrides, validation', async (t) => {
  for (const kind of Object.keys(CHANNEL_URLS))
    t.ok((CHANNELS as string[]).includes(kind), `${kind} is a registered channel`);
  const d = loadConfig({}, {});
  t.same(d.channelUrls, {
    pushover: 'https://api.pushover.net',
    telegram: 'https://api.telegram.org',
    ntfy: 'https://ntfy.sh',
    pagerduty: 'https://events.pagerduty.com',
    opsgenie: 'https://api.opsgenie.com',
  });
  const c = loadConfig(
    {},
    { DOMMON_TELEGRAM_URL: 'http://127.0.0.1:8081/', DOMMON_OPSGENIE_URL: 'https://api.eu.opsgenie.com' },
  );
  t.equal(c.channelUrls.telegram, 'http://127.0.0.1:8081', 'trailing slash dropped');
  t.equal(c.channelUrls.opsgenie, 'https://api.eu.opsgenie.com');
  for (const v of Object.values(CHANNEL_URLS))
    t.throws(() => loadConfig({}, { [v.env]: 'ftp://x' }), new RegExp(v.env), `${v.env} must be http(s)`);
});

t.test('the CLI: `notifications set <channel>` and `--channel` take the registry; completion offers it', async (t) => {
  const { buildProgram } = await import('../../src/cli/program.js');
  const program = buildProgram();
  const noun = program.commands.find((c) => c.name() === 'notifications')!;
  const set = noun.commands.find((c) => c.name() === 'set')!;
  t.same(set.registeredArguments[0]!.argChoices, CHANNELS);
  for (const sub of ['test', 'log'])
    t.same(
      noun.commands.find((c) => c.name() === sub)!.options.find((o) => o.long === '--channel')!.argChoices,
      CHANNELS,
      `${sub} --channel`,
    );
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  try {
    await buildProgram().exitOverride().parseAsync(['node', 'dommon', 'completion', 'bash']);
  } finally {
    process.stdout.write = write;
  }
  const line = out.split('\n').find((l) => l.includes('"notifications set") words_='))!;
  for (const kind of CHANNELS) t.match(line, new RegExp(`[" ]${kind}[ "]`), `bash completion of set offers ${kind}`);
});

t.test('no channel-kind branches outside src/channels', async (t) => {
  const dirs = ['src/services', 'src/api', 'src/cli', 'src/store', 'src/domain', 'src/scheduler'];
  const hits: string[] = [];
  const walk = (dir: string) => {
    for (const ent of fs.readdirSync(path.join(PACKAGE_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${ent.name}`;
      if (ent.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(ent.name)) {
        const text = read(rel);
        for (const kind of CHANNELS)
          if (new RegExp(`[=!]==? ?'${kind}'|'${kind}' ?[=!]==?|case '${kind}'`).test(text))
            hits.push(`${rel}: ${kind}`);
      }
    }
  };
  dirs.forEach(walk);
  t.same(hits, [], 'a channel behaviour belongs in its plug-in');
});
