// What the endpoint-type registry generates besides the enums: the description of `endpoint_type` in
// the JSON Schemas (which types are the spec's, which are extensions), the properties the types' own
// fields add to the endpoint schemas, and the two tables of docs/endpoint-types.md. scripts/endpoint-types.mjs writes them (npm run build); a test fails when
// a committed file differs from what the registry generates.
import type { EndpointPlugin } from './plugin.js';
import { ENDPOINT_PLUGINS } from './registry.js';

const code = (s: string) => `\`${s}\``;
/** `a`, `b` or `c` (no serial comma, as the hand-written docs have it). */
const list = (xs: string[], word: 'or' | 'and') =>
  xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${word} ${xs[xs.length - 1]}`;

/** The description of every `endpoint_type` property in schemas/ (and so in the OpenAPI document). */
export function endpointTypeDescription(plugins: readonly EndpointPlugin[] = Object.values(ENDPOINT_PLUGINS)): string {
  const spec = plugins.filter((p) => !p.extension).map((p) => code(p.name));
  const ext = plugins.filter((p) => p.extension).map((p) => code(p.name));
  const extensions = ext.length
    ? `; ${list(ext, 'and')} ${ext.length === 1 ? 'is an extension' : 'are extensions'}`
    : '';
  return `${list(spec, 'or')} (the spec's types)${extensions} (docs/endpoint-types.md).`;
}

/** How full_url is written for the type, as the table shows it. */
function urlForm(p: EndpointPlugin): string {
  if (p.url === 'host-port') return 'host:port';
  if (p.url === 'service') return `${p.name}://host:port`;
  if (p.url === 'name') return `${p.name}://host`;
  return `${p.name}://host[:port]/path`;
}

const BEGIN = '<!-- endpoint-types table: generated from src/probes/registry.ts by npm run build -->';
const END = '<!-- end of the endpoint-types table -->';

/** The table of docs/endpoint-types.md: one row per registered type. */
export function endpointTypesTable(plugins: readonly EndpointPlugin[] = Object.values(ENDPOINT_PLUGINS)): string {
  const rows = plugins.map(
    (p) =>
      `| ${code(p.name)}${p.extension ? ' (extension)' : ''} | ${p.url === 'name' ? 'none (no port)' : (p.defaultPort ?? 'none (`port` required)')} | ${code(urlForm(p))} | ${p.docs.liveness} | ${p.docs.certificate} |`,
  );
  return [
    BEGIN,
    '| `endpoint_type` | default port | `full_url` | liveness succeeds when | certificate |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    END,
  ].join('\n');
}

/** `doc` (docs/endpoint-types.md) with its generated table replaced by `table`. */
export function withEndpointTypesTable(doc: string, table = endpointTypesTable()): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/endpoint-types.md: no "${BEGIN}" ... "${END}" block`);
  return doc.slice(0, from) + table + doc.slice(to + END.length);
}

/** A generated endpoint-schema property: the field's schema, marked with the types that have it. */
export const FIELD_MARK = 'x-endpoint-types';

/**
 * The properties the types' fields add to the endpoint request and answer schemas, by name: each
 * field's JSON Schema, its description saying which types have it, and FIELD_MARK (which the
 * generator uses to find its own properties again). Two types may share a field only with one schema.
 */
export function endpointFieldProperties(
  plugins: readonly EndpointPlugin[] = Object.values(ENDPOINT_PLUGINS),
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const schemas = new Map<string, string>();
  for (const p of plugins)
    for (const [name, field] of Object.entries(p.fields ?? {})) {
      const seen = schemas.get(name);
      if (seen !== undefined && seen !== JSON.stringify(field))
        throw new Error(`endpoint field ${name}: declared with two different schemas`);
      schemas.set(name, JSON.stringify(field));
      const types = [...((out[name]?.[FIELD_MARK] as string[] | undefined) ?? []), p.name];
      out[name] = {
        ...field,
        description: `${field.description} (endpoint_type ${list(types.map(code), 'and')} only; docs/endpoint-types.md).`,
        [FIELD_MARK]: types,
      };
    }
  return out;
}

const FIELDS_BEGIN = '<!-- endpoint-fields table: generated from src/probes/registry.ts by npm run build -->';
const FIELDS_END = '<!-- end of the endpoint-fields table -->';

/** A field's value space as the table shows it. */
function valueForm(f: NonNullable<EndpointPlugin['fields']>[string]): string {
  const nullable = typeof f.type === 'string' ? '' : ' or `null`';
  const base = typeof f.type === 'string' ? f.type : f.type[0];
  if (f.enum) return `${list(f.enum.map(code), 'or')}${nullable}`;
  const range = f.minimum !== undefined && f.maximum !== undefined ? ` ${f.minimum}-${f.maximum}` : '';
  return `${base}${range}${nullable}`;
}

/** The fields table of docs/endpoint-types.md: one row per field of each type. */
export function endpointFieldsTable(plugins: readonly EndpointPlugin[] = Object.values(ENDPOINT_PLUGINS)): string {
  const rows = plugins.flatMap((p) =>
    Object.entries(p.fields ?? {}).map(
      ([name, f]) =>
        `| ${code(p.name)} | ${code(name)} | ${valueForm(f)} | ${f.default === undefined ? 'required' : code(JSON.stringify(f.default))} | ${f.description} |`,
    ),
  );
  return [
    FIELDS_BEGIN,
    '| `endpoint_type` | field | value | default | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...(rows.length ? rows : ['| (none) | | | | |']),
    FIELDS_END,
  ].join('\n');
}

/** `doc` with its generated fields table replaced by `table`. */
export function withEndpointFieldsTable(doc: string, table = endpointFieldsTable()): string {
  const from = doc.indexOf(FIELDS_BEGIN);
  const to = doc.indexOf(FIELDS_END);
  if (from < 0 || to < from) throw new Error(`docs/endpoint-types.md: no "${FIELDS_BEGIN}" ... "${FIELDS_END}" block`);
  return doc.slice(0, from) + table + doc.slice(to + FIELDS_END.length);
}
