// The JSON Schema of the configuration file (`dommon apply`, `dommon export`, `serve --config`),
// generated from the API's own request schemas and the channel and endpoint-type registries' schemas
// in schemas/: a new channel kind or endpoint type, or a new field of one, is in the file format with
// no change here. scripts/config-schema.mjs writes it to schemas/config/dommon.schema.json (npm run
// build); the daemon serves it at GET /api/v1/config/schema.json.

import { pluginOf } from '../channels/index.js';
import { PING_KEY } from '../domain/push.js';

type Json = Record<string, unknown>;

/** `$id` of the file's schema (and its place under schemas/). */
export const CONFIG_SCHEMA_ID = 'config/dommon.schema';

/** `${NAME}`: a reference to an environment variable, resolved when the file is applied. */
export const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
// `writeOnly` marks every field `dommon export` never writes a value of (it writes a `${NAME}` reference):
// the secrets (only a reference is accepted) and the channels' credentials (a value is accepted too).
const SECRET_REF = {
  type: 'string',
  pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$',
  writeOnly: true,
  description: 'Secret: only a `${NAME}` reference to an environment variable, resolved when the file is applied.',
};
const CREDENTIAL_NOTE =
  'A credential (whoever holds it can post): `dommon export` writes a `${NAME}` reference, never the value.';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function props(schema: Json): Record<string, Json> {
  return clone((schema.properties ?? {}) as Record<string, Json>);
}

function pick(schemas: Record<string, object>, id: string): Json {
  const s = schemas[id] as Json | undefined;
  if (!s) throw new Error(`schema "${id}" is not in schemas/`);
  return s;
}

/** `properties` without the keys, in the same order. */
function without(p: Record<string, Json>, ...keys: string[]): Record<string, Json> {
  for (const k of keys) delete p[k];
  return p;
}

/** A name of another object of the file (or already stored for the team). */
const reference = (what: string, maxLength = 500): Json => ({
  type: 'string',
  minLength: 1,
  maxLength,
  description: `The name of ${what} in this file (or already stored for the team).`,
});

const names = (what: string): Json => ({
  type: 'array',
  maxItems: 500,
  uniqueItems: true,
  items: reference(what),
});

/** The liveness configuration of an endpoint: liveness-create without the id, credentials only as references. */
function livenessSchema(schemas: Record<string, object>): Json {
  const p = without(props(pick(schemas, 'liveness-create')), 'endpoint_id');
  const auth = p.auth as Json | undefined;
  for (const alt of (auth?.oneOf ?? []) as Json[]) {
    const ap = alt.properties as Record<string, Json> | undefined;
    if (!ap) continue;
    for (const [k, v] of Object.entries(ap)) if (v.writeOnly) ap[k] = { title: v.title, ...SECRET_REF };
  }
  return {
    type: 'object',
    additionalProperties: false,
    description: "The endpoint's liveness check: the fields of POST /api/v1/liveness without `endpoint_id`.",
    properties: p,
  };
}

function endpointSchema(schemas: Record<string, object>): Json {
  const create = pick(schemas, 'endpoint-create');
  const p = props(create);
  const type = p.endpoint_type!;
  const rest = without(p, 'domain_id', 'endpoint_type', 'liveness', 'name');
  return {
    type: 'object',
    required: ['name', 'type'],
    additionalProperties: false,
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        pattern: '^[^/]*\\S[^/]*$',
        description: 'Unique within the domain; other objects refer to it as `<domain>/<name>`.',
      },
      type,
      ...rest,
      ping_key: {
        type: 'string',
        pattern: PING_KEY.source,
        description:
          "push endpoints only: the key of its ping URL (`/ping/<key>`, and Uptime Kuma's `/api/push/<key>`; docs/push.md): 10 to 64 letters, digits, `-` and `_`, such as a random UUID or a Kuma push token (`dommon import uptime-kuma` keeps each monitor's). `dommon export` writes it, so the file applied elsewhere keeps every job's ping URL; left out, a new endpoint gets a random UUID. Unique across the installation; a UUID is read in any case, any other key exactly as written. It lets whoever holds it report the job's runs, no more: kept in clear like the URL in the job's crontab (a `${NAME}` reference works too).",
        'x-endpoint-types': ['push'],
      },
      liveness: livenessSchema(schemas),
    },
  };
}

function domainSchema(schemas: Record<string, object>): Json {
  const p = props(pick(schemas, 'domain-create'));
  return {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { ...p.domain, description: 'The domain name (the key of the domain in the file).' },
      portfolio: reference('a portfolio', 200),
      notes: p.notes,
      dkim_selectors: p.dkim_selectors,
      manual_expiry: p.expiry_date,
      endpoints: { type: 'array', maxItems: 10000, items: endpointSchema(schemas) },
    },
  };
}

/** One channel row: the settings' fields and, next to them, the channel's own config fields (secrets as references). */
function channelSchema(schemas: Record<string, object>, kinds: readonly string[]): Json {
  const setting = without(props(pick(schemas, 'notification-setting')), 'config');
  const rows: Record<string, Json> = { ...setting, delivery_class: { ...setting.delivery_class, default: 'instant' } };
  const branches = kinds.map((kind) => {
    const cs = pick(schemas, `channels/${kind}`);
    const own = props(cs);
    const credentials = pluginOf(kind)?.credentials ?? [];
    for (const [k, v] of Object.entries(own)) {
      if (k in rows || k === 'type') throw new Error(`channel ${kind}: config field ${k} is also a settings field`);
      if (v.writeOnly)
        own[k] = { ...SECRET_REF, description: `${String(v.description ?? '')} ${SECRET_REF.description}`.trim() };
      else if (credentials.includes(k))
        own[k] = { ...v, writeOnly: true, description: `${String(v.description ?? '')} ${CREDENTIAL_NOTE}`.trim() };
    }
    return {
      if: { properties: { type: { const: kind } }, required: ['type'] },
      then: {
        ...(cs.description ? { description: cs.description } : {}),
        additionalProperties: false,
        required: ['type', ...((cs.required as string[] | undefined) ?? [])],
        properties: { type: { const: kind }, ...rows, ...own },
      },
    };
  });
  return {
    type: 'object',
    required: ['type'],
    description:
      "A notification channel of the applying user: one per (type, delivery_class). The settings fields of PUT /api/v1/notifications/settings/:type and, beside them, the channel's config fields.",
    properties: { type: { type: 'string', enum: [...kinds] }, ...rows },
    allOf: branches,
  };
}

function statusPageSchema(schemas: Record<string, object>): Json {
  const p = without(props(pick(schemas, 'status-page-create')), 'portfolio_id', 'endpoints');
  const eps = pick(schemas, 'status-page-endpoints');
  const item = props((eps.items ?? {}) as Json);
  return {
    type: 'object',
    required: ['slug', 'title', 'portfolio'],
    additionalProperties: false,
    properties: {
      slug: p.slug,
      portfolio: reference('the portfolio whose endpoints the page may show', 200),
      ...without(p, 'slug'),
      endpoints: {
        type: 'array',
        maxItems: eps.maxItems,
        description: eps.description,
        items: {
          type: 'object',
          required: ['endpoint'],
          additionalProperties: false,
          properties: {
            endpoint: { ...reference('an endpoint, as `<domain>/<endpoint name>`,'), pattern: '^[^/]+/[^/]+$' },
            display_name: item.display_name,
          },
        },
      },
    },
  };
}

function maintenanceSchema(schemas: Record<string, object>): Json {
  const p = without(props(pick(schemas, 'maintenance-window-create')), 'endpoint_ids', 'domain_ids', 'portfolio_ids');
  return {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      ...p,
      name: {
        ...p.name,
        description: `${String(p.name?.description ?? '')} The key of the window in the file.`.trim(),
      },
      endpoints: { ...names('an endpoint (`<domain>/<endpoint name>`)'), description: 'Endpoints the window covers.' },
      domains: { ...names('a domain'), description: 'Domains whose endpoints the window covers.' },
      portfolios: { ...names('a portfolio'), description: "Portfolios whose domains' endpoints the window covers." },
    },
  };
}

/**
 * The whole file's schema from the loaded schemas (schemas/ by `$id`). Self-contained (no `$ref`), so an editor needs only this one file.
 */
export function buildConfigSchema(schemas: Record<string, object>): Json {
  // The registry's channel kinds, in its order, as scripts/channels.mjs wrote them into the test-send schema.
  const channelKinds = ((pick(schemas, 'notification-test').properties as Record<string, Json>).channel!.enum ??
    []) as string[];
  const portfolio = pick(schemas, 'portfolio-create');
  return {
    $id: CONFIG_SCHEMA_ID,
    title: 'dommon configuration file',
    description:
      "A team's whole setup (docs/configuration-file.md): `dommon apply -f FILE` makes the team match it, `dommon export` writes it. Names are the keys that identify objects; secrets are `${NAME}` references to environment variables.",
    type: 'object',
    required: ['version'],
    additionalProperties: false,
    properties: {
      version: { const: 1, description: 'The format version: 1.' },
      editable: {
        type: 'boolean',
        default: false,
        description:
          'Under `dommon serve --config`: whether the objects made from this file may also be changed through the API and the dashboard (default false: 409 MANAGED_BY_CONFIG).',
      },
      portfolios: {
        type: 'array',
        maxItems: 10000,
        items: { ...clone(portfolio), $id: undefined, properties: props(portfolio) },
      },
      channels: { type: 'array', maxItems: 200, items: channelSchema(schemas, channelKinds) },
      domains: { type: 'array', maxItems: 100000, items: domainSchema(schemas) },
      status_pages: { type: 'array', maxItems: 1000, items: statusPageSchema(schemas) },
      maintenance_windows: { type: 'array', maxItems: 1000, items: maintenanceSchema(schemas) },
    },
  };
}
