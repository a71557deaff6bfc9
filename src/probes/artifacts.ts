// What the endpoint-type registry generates besides the enums: the description of `endpoint_type` in
// the JSON Schemas (which types are the spec's, which are extensions) and the table of
// docs/endpoint-types.md. scripts/endpoint-types.mjs writes them (npm run build); a test fails when
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
  return `${p.name}://host[:port]/path`;
}

const BEGIN = '<!-- endpoint-types table: generated from src/probes/registry.ts by npm run build -->';
const END = '<!-- end of the endpoint-types table -->';

/** The table of docs/endpoint-types.md: one row per registered type. */
export function endpointTypesTable(plugins: readonly EndpointPlugin[] = Object.values(ENDPOINT_PLUGINS)): string {
  const rows = plugins.map(
    (p) =>
      `| ${code(p.name)}${p.extension ? ' (extension)' : ''} | ${p.defaultPort ?? 'none (`port` required)'} | ${code(urlForm(p))} | ${p.docs.liveness} | ${p.docs.certificate} |`,
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
