// Everything generated from the registry: schemas/channels/<kind>.json, every channel enum in
// schemas/ and docs/channels.md. scripts/channels.mjs writes them (npm run build); a test fails when a
// committed file differs from what the registry generates.
import { CHANNEL_URLS } from '../config/index.js';
import { CHANNELS, channels, type Channel } from './index.js';
import type { ChannelPlugin, JsonSchema } from './types.js';

/** One-line JSON with spaces, as the hand-written schemas have it: `{ "type": "string", "enum": ["a", "b"] }`. */
function inlineJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(inlineJson).join(', ')}]`;
  if (v && typeof v === 'object') {
    const e = Object.entries(v).filter(([, x]) => x !== undefined);
    return e.length ? `{ ${e.map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`).join(', ')} }` : '{}';
  }
  return JSON.stringify(v) ?? 'null';
}

/** JSON with objects and arrays that fit in 100 columns on one line. */
function prettyJson(value: unknown, indent = '', prefix = 0): string {
  const flat = inlineJson(value);
  if (value === null || typeof value !== 'object' || indent.length + prefix + flat.length <= 100) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + prettyJson(v, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner, JSON.stringify(k).length + 2)}`).join(',\n')}\n${indent}}`;
}

/** A rewritten schema keeps its file's layout: `JSON.stringify(_, null, 2)` files stay so, others get prettyJson. */
function layoutLike(raw: string, value: unknown): string {
  const expanded = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  return expanded(JSON.parse(raw)) === raw ? expanded(value) : `${prettyJson(value)}\n`;
}

/**
 * The channel's config schema as a file: its secret keys are marked `writeOnly` (JSON Schema's word for
 * a value sent but never read back in full), which the dashboard's forms show as password fields.
 */
export function channelSchema(kind: Channel): JsonSchema {
  const p = channels[kind];
  const props = p.configSchema.properties as Record<string, JsonSchema> | undefined;
  const marked = props
    ? Object.fromEntries(
        Object.entries(props).map(([k, v]) => [k, p.secrets.includes(k) ? { ...v, writeOnly: true } : v]),
      )
    : undefined;
  return { $id: `channels/${kind}`, ...p.configSchema, ...(marked ? { properties: marked } : {}) };
}

/** True for an enum of channel kinds: only strings, at least two of them channel kinds. */
function isChannelEnum(e: unknown): e is string[] {
  return (
    Array.isArray(e) &&
    e.every((x) => typeof x === 'string') &&
    e.filter((x) => (CHANNELS as string[]).includes(x)).length >= 2
  );
}

/** The schema with every channel enum set to the registry's kinds. */
function syncChannelEnums(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(syncChannelEnums);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'enum' && isChannelEnum(v) ? [...CHANNELS] : syncChannelEnums(v)]),
  );
}

/** Whether a schema holds a channel enum (such files are rewritten by syncChannelEnums). */
function hasChannelEnum(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasChannelEnum);
  if (!schema || typeof schema !== 'object') return false;
  return Object.entries(schema).some(([k, v]) => (k === 'enum' && isChannelEnum(v)) || hasChannelEnum(v));
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => `\`${s}\``;

function typeOf(p: JsonSchema): string {
  if (p.type === 'array') return `array of ${typeOf((p.items as JsonSchema) ?? {})}`;
  return Array.isArray(p.type) ? p.type.join(' or ') : String(p.type ?? 'any');
}

function baseUrlOf(kind: string): { env: string; default: string; meaning: string } | undefined {
  return (CHANNEL_URLS as Record<string, { env: string; default: string; meaning: string }>)[kind];
}

function section(kind: Channel, p: ChannelPlugin<unknown>): string {
  const props = (p.configSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (p.configSchema.required as string[] | undefined) ?? [];
  const rows = Object.entries(props).map(
    ([k, s]) =>
      `| ${code(k)} | ${typeOf(s)} | ${required.includes(k) ? 'yes' : 'no'} | ${p.secrets.includes(k) ? 'yes' : p.destinations.includes(k) ? 'destination' : 'no'} | ${cell(String(s.description ?? ''))} |`,
  );
  const base = baseUrlOf(kind);
  const body = { delivery_class: 'instant', config: p.example };
  return [
    `### ${p.title} (\`${kind}\`)`,
    '',
    `${p.api}.${p.instantOnly ? ' Instant delivery only (a digest row is a 400).' : ''}${base ? ` Base URL: \`${base.env}\` (default \`${base.default}\`).` : ''}`,
    ...(p.notes ? ['', p.notes] : []),
    '',
    `Test send recipient: ${p.test.what}.`,
    '',
    '| config key | type | required | secret | meaning |',
    '|---|---|---|---|---|',
    ...(rows.length ? rows : ['| (none) | | | | |']),
    '',
    '```sh',
    `curl -X PUT "$DOMMON/api/v1/notifications/settings/${kind}" -H "Authorization: Bearer $TOKEN" \\`,
    `  -H 'content-type: application/json' -d '${JSON.stringify(body)}'`,
    '```',
  ].join('\n');
}

/** docs/channels.md, entirely generated from the registry and config CHANNEL_URLS. */
function channelsDoc(): string {
  const table = CHANNELS.map((kind) => {
    const p: ChannelPlugin<unknown> = channels[kind];
    const base = baseUrlOf(kind);
    const secrets = p.secrets.length ? p.secrets.map(code).join(', ') : '-';
    return `| ${code(kind)} | ${p.title} | ${p.instantOnly ? 'instant' : 'instant, digest'} | ${secrets} | ${base ? code(base.env) : '-'} | ${cell(p.api)} |`;
  });
  const vars = Object.entries(CHANNEL_URLS).map(
    ([kind, v]) => `| ${code(v.env)} | ${cell(v.meaning)} (channel \`${kind}\`) | ${code(v.default)} |`,
  );
  return [
    '<!-- Generated from src/channels/index.ts by `npm run build` (scripts/channels.mjs); do not edit by hand. -->',
    '# Notification channels',
    '',
    `dommon delivers notifications through ${CHANNELS.length} channels. Each user configures a channel with`,
    '`PUT /api/v1/notifications/settings/<channel>` (or `dommon notifications set <channel>`); the `config`',
    'object is validated by `schemas/channels/<channel>.json`. Secret keys are masked on every read',
    '(`********` and the last 4 characters; sending the masked value back keeps the stored secret while every',
    '`destination` key is unchanged: with a new URL, homeserver or server it is a 422 `SECRET_REQUIRED` and the',
    'secret must be sent again), sealed at rest (docs/security.md) and never logged. Incoming-webhook URLs',
    '(Slack, Teams, Discord, Google Chat, Mattermost) are credentials as well: GET shows a row only to its',
    'owner (in full: it is no masked value, so the rule above never applies to it), and the team-wide delivery',
    'log shows scheme and host only (ntfy topics and PagerDuty/Opsgenie keys: the last 4 characters). Every',
    'request leaves through the',
    'guarded HTTP client (`DOMMON_OUTBOUND_DENY` / `DOMMON_OUTBOUND_ALLOW`, see docs/security.md).',
    '',
    'Each attempt is classified: 2xx success; 5xx, 408, 429 and network errors are retried (waits 1 s, 2 s,',
    "4 s); other statuses fail at once. A `Retry-After` (or the provider's documented field: Telegram",
    '`parameters.retry_after`, Matrix `retry_after_ms`, Discord `retry_after`) is honoured in full: the next',
    'attempt is never sooner. Waits over a minute return the delivery to the queue, due then; a wait over',
    'a day fails the delivery.',
    '',
    '| channel | name | delivery | secret keys | base URL variable | request |',
    '|---|---|---|---|---|---|',
    ...table,
    '',
    '## Environment',
    '',
    'Channels that talk to one fixed provider API take its base URL from a variable (tests and proxies',
    'point it elsewhere). Channels whose URL the user gives in full (webhook, Slack, Teams, Discord, Google',
    'Chat, Mattermost) or whose server is in its config (Matrix `homeserver_url`, ntfy `server_url`) need none.',
    '',
    '| variable | meaning | default |',
    '| --- | --- | --- |',
    ...vars,
    '',
    '## Channels',
    '',
    CHANNELS.map((kind) => section(kind, channels[kind] as ChannelPlugin<unknown>)).join('\n\n'),
    '',
    '## Adding a channel',
    '',
    'See src/channels/README.md: one file, one registry line, its test.',
    '',
  ].join('\n');
}

/**
 * The generated files, path (relative to the package root) -> text. `schemaFiles` are the JSON
 * schemas under schemas/ (relative path -> file text); those holding a channel enum are synced.
 */
export function channelArtifacts(schemaFiles: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const kind of CHANNELS) out.set(`schemas/channels/${kind}.json`, `${prettyJson(channelSchema(kind))}\n`);
  for (const [file, raw] of Object.entries(schemaFiles)) {
    if (file.startsWith('schemas/channels/') || file === 'schemas/openapi.json') continue;
    const schema: unknown = JSON.parse(raw);
    if (hasChannelEnum(schema)) out.set(file, layoutLike(raw, syncChannelEnums(schema)));
  }
  out.set('docs/channels.md', channelsDoc());
  return out;
}
