// Checks every answer the test suite receives from the app against the OpenAPI document: the operation
// (method + path) must be documented, the status listed, and the body valid against that status's schema.
// request()/client() in app.ts call this for every app started by startApp(), so the document cannot
// drift from the server. The document and each compiled validator are built once per process.
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { loadSchemas } from '../../src/api/validation.js';
import { buildOpenApi } from '../../src/api/openapi/document.js';

type Json = Record<string, any>;

interface Route {
  method: string;
  path: string;
  re: RegExp;
  params: number;
  op: Json;
}

let state: { doc: Json; ajv: Ajv; routes: Route[]; compiled: Map<string, ValidateFunction> } | undefined;

const seen = new Set<string>();

/** `GET /api/v1/domains/{domainId} 200` for every documented answer checked so far in this process. */
export function responsesSeen(): ReadonlySet<string> {
  return seen;
}

export function openApiDocument(): Json {
  return init().doc;
}

function init() {
  if (state) return state;
  const doc = buildOpenApi(loadSchemas()) as Json;
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  formatsPlugin.default(ajv);
  // Each component schema of the document under its own key (refs re-pointed), which compiles far
  // faster than refs into one big document.
  for (const [name, schema] of Object.entries<Json>(doc.components.schemas))
    ajv.addSchema(repoint(schema), `oas:${name}`, undefined, false);
  const routes: Route[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    const re = new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^/}]+\\?\}/g, '[^/]+')}/?$`);
    const params = (p.match(/\{/g) ?? []).length;
    for (const [method, op] of Object.entries<Json>(item))
      routes.push({ method: method.toUpperCase(), path: p, re, params, op });
  }
  // Literal segments win over parameters (`/domains/bulk` before `/domains/{domainId}`), then the longer
  // path (`/status/{slug}.json` before `/status/{slug}`).
  routes.sort((a, b) => a.params - b.params || b.path.length - a.path.length);
  state = { doc, ajv, routes, compiled: new Map() };
  return state;
}

const COMPONENT = '#/components/schemas/';

function repoint(v: unknown): any {
  if (Array.isArray(v)) return v.map(repoint);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k === '$ref' && typeof x === 'string' && x.startsWith(COMPONENT)
        ? `oas:${x.slice(COMPONENT.length)}`
        : repoint(x),
    ]),
  );
}

/** The validator of a response schema: a component `$ref` (the document's way) or an inline schema. */
function compile(schema: Json): ValidateFunction {
  const { ajv, compiled } = init();
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(repoint(schema));
    compiled.set(key, fn);
  }
  return fn;
}

/** A response object, following a `$ref` to components/responses. */
function resolveResponse(res: Json): Json {
  return typeof res.$ref === 'string'
    ? init().doc.components.responses[res.$ref.replace('#/components/responses/', '')]
    : res;
}

interface Received {
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
  text: string;
  /** When given, the headers the document lists for the answer must be present. */
  headers?: Headers;
}

/** Throws (loudly, with the reason) when the answer does not match the document. */
export function checkResponse(r: Received): void {
  const { routes } = init();
  const method = r.method.toUpperCase();
  if (method === 'OPTIONS') return; // the router's own answer, not an operation
  // The web dashboard's page, files and session (src/web/serve.ts, docs/web.md) are not API operations.
  if (r.path === '/' || r.path.startsWith('/ui/')) return;
  const m = method === 'HEAD' ? 'GET' : method;
  const where = `${method} ${r.path} -> ${r.status}`;
  const route = routes.find((x) => x.method === m && x.re.test(r.path));
  if (!route) {
    // Unknown paths and methods are fine only when the server says so with the error body.
    const pathKnown = routes.some((x) => x.re.test(r.path));
    const expected = pathKnown ? 405 : 404;
    if (r.status === expected && method !== 'HEAD') return validate(where);
    throw new Error(`OpenAPI: ${where}: operation not in the document (add it to src/api/openapi/operations.ts)`);
  }
  const listed = route.op.responses[String(r.status)] ?? route.op.responses.default;
  if (!listed) {
    throw new Error(
      `OpenAPI: ${where}: status ${r.status} is not documented for ${m} ${route.path} (documented: ${Object.keys(route.op.responses).join(', ')})`,
    );
  }
  if (method === 'HEAD') return;
  seen.add(`${m} ${route.path} ${r.status}`);
  const res = resolveResponse(listed);
  if (r.headers) {
    for (const h of Object.keys(res.headers ?? {})) {
      if (!r.headers.has(h)) throw new Error(`OpenAPI: ${where}: documented header ${h} is missing`);
    }
  }
  const content = res.content as Json | undefined;
  if (!content) {
    if (r.text) throw new Error(`OpenAPI: ${where}: documented without a body but answered one`);
    return;
  }
  const json = content['application/json'];
  if (!json) {
    const types = Object.keys(content);
    if (!types.some((t) => r.contentType?.startsWith(t)))
      throw new Error(`OpenAPI: ${where}: content-type ${r.contentType}, documented ${types.join(' or ')}`);
    return;
  }
  if (!r.contentType?.includes('application/json')) {
    // Another documented type of the same answer (the audit trail's JSON lines): a text body.
    const types = Object.keys(content);
    if (types.some((t) => t !== 'application/json' && r.contentType?.startsWith(t))) return;
    throw new Error(`OpenAPI: ${where}: content-type ${r.contentType}, documented ${types.join(' or ')}`);
  }
  validateWith(compile(json.schema), r.body, `${where} (${m} ${route.path})`, json.schema?.$ref);

  function validate(w: string) {
    validateWith(compile({ $ref: `${COMPONENT}Error` }), r.body, `${w} (no such operation)`, 'Error');
  }
}

function validateWith(fn: ValidateFunction, body: unknown, where: string, schemaRef: string | undefined): void {
  if (fn(body)) return;
  const errs = (fn.errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"`
        : '';
    return `${e.instancePath || '(body)'} ${e.message}${extra}`;
  });
  const name = schemaRef ? String(schemaRef).split('/').pop() : 'inline';
  throw new Error(
    `OpenAPI: ${where}: the answer does not match schema ${name} (schemas/responses/): ${errs.join('; ')}\nbody: ${JSON.stringify(body)?.slice(0, 600)}`,
  );
}
