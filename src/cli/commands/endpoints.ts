// `dommon endpoints list|add|show|update|remove`.
import type { NounSpec, OptSpec } from '../spec.js';
import { crud, domainId } from './common.js';
import { ENDPOINT_TYPES, pluginOf } from '../../probes/registry.js';
import type { EndpointFieldSchema } from '../../domain/endpoint.js';

const common: OptSpec[] = [
  { flags: '--subdomain <s>', description: 'host prefix, e.g. www', field: 'subdomain' },
  { flags: '--path <p>', description: 'URL path', field: 'path' },
  { flags: '--port <n>', description: 'TCP port', field: 'port', kind: 'int' },
  { flags: '--timeout <s>', description: 'request timeout in seconds', field: 'timeout_seconds', kind: 'int' },
  { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  { flags: '--notes <text>', description: 'free text', field: 'notes' },
];
/** The types' own fields as options (`record_type`: `--record-type <value>`), from the registry. */
function typeFieldOptions(): OptSpec[] {
  const byName = new Map<string, { types: string[]; schema: EndpointFieldSchema }>();
  for (const x of ENDPOINT_TYPES)
    for (const [name, schema] of Object.entries(pluginOf(x).fields ?? {}))
      byName.set(name, { types: [...(byName.get(name)?.types ?? []), x], schema });
  return [...byName].map(([name, { types, schema }]) => {
    const base = typeof schema.type === 'string' ? schema.type : schema.type[0];
    return {
      flags: `--${name.replaceAll('_', '-')} <value>`,
      description: `${schema.description} (--type ${types.join(', ')})`,
      field: name,
      ...(base === 'integer' ? { kind: 'int' as const } : base === 'boolean' ? { kind: 'bool' as const } : {}),
      ...(schema.enum ? { choices: schema.enum } : {}),
    };
  });
}
const fields: OptSpec[] = [...common, ...typeFieldOptions()];
const extensions = ENDPOINT_TYPES.filter((x) => pluginOf(x).extension);
const type = (required: boolean): OptSpec => ({
  flags: '--type <type>',
  description: `endpoint type (${extensions.join(', ')}: extensions)`,
  field: 'endpoint_type',
  choices: ENDPOINT_TYPES,
  required,
});

const [list, add, ...rest] = crud({
  path: '/api/v1/endpoints',
  one: 'endpoint',
  columns: ['id', 'domain', 'name', 'endpoint_type:TYPE', 'full_url:URL', 'is_enabled:ENABLED'],
  create: [
    { flags: '--domain <name-or-id>', description: 'parent domain', field: 'domain_id', required: true },
    { flags: '--name <name>', description: 'endpoint name, unique per domain', field: 'name', required: true },
    type(true),
    ...fields,
  ],
  update: [{ flags: '--name <name>', description: 'new name', field: 'name' }, type(false), ...fields],
  filters: [
    { flags: '--domain <name-or-id>', description: 'only this domain', field: 'domain_id' },
    type(false),
    { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  ],
  examples: {
    list: ['dommon endpoints list --domain example.com --type https'],
    add: [
      'dommon endpoints add --domain example.com --name web --type https --subdomain www',
      'dommon endpoints add --domain example.com --name ssh --type port --port 22',
      'dommon endpoints add --domain example.com --name mx --type smtp --subdomain mail --port 587',
    ],
    show: ['dommon endpoints show <id>'],
    update: ['dommon endpoints update <id> --enabled false'],
    remove: ['dommon endpoints remove <id>'],
  },
});

/** `--domain` takes a name or an id; the API wants the id. */
const withDomain = (c: typeof list): typeof list => ({
  ...c,
  async action(io) {
    if (typeof io.body.domain_id === 'string') io.body.domain_id = await domainId(io.t, io.body.domain_id);
    return c.action(io);
  },
});

export const endpointsNoun: NounSpec = {
  name: 'endpoints',
  description: 'URLs and ports monitored under a domain',
  commands: [withDomain(list!), withDomain(add!), ...rest],
};
