// Builds the OpenAPI 3.0.3 document from the JSON Schemas in schemas/ and the operation table.
// Served at GET /api/v1/openapi.json and written to schemas/openapi.json by `npm run build`.
import { OPERATIONS, requiredRole, type OperationDoc, type ResponseDoc } from './operations.js';

const OPENAPI_VERSION = '3.0.3';
/** The interface document's own version (the spec fixes it; independent of the package version). */
const DOCUMENT_VERSION = '2.0.0';

type Json = Record<string, unknown>;

/** `/api/v1/domains/:domainId` -> `/api/v1/domains/{domainId}`. */
export function toOpenApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** A schema `$id` as an OpenAPI component name (allowed characters only). */
function componentName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '.');
}

const DROP = new Set(['$id', '$schema', '$comment', 'examples']);
/** Keywords an OpenAPI 3.0 Schema Object allows; any other JSON Schema keyword is kept as `x-<keyword>`. */
const OAS_KEYWORDS = new Set([
  'title',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'type',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'items',
  'properties',
  'additionalProperties',
  'description',
  'format',
  'default',
  'nullable',
  'discriminator',
  'readOnly',
  'writeOnly',
  'example',
  'externalDocs',
  'deprecated',
  'xml',
  '$ref',
]);

/**
 * JSON Schema (draft-07 subset used in schemas/) -> OpenAPI 3.0 Schema Object:
 * `type: [T, "null"]` -> `type: T, nullable: true` (several types -> `anyOf`); `const` -> one-value `enum`;
 * `$ref: "<id>"` -> `#/components/schemas/<id>`; numeric exclusive bounds -> boolean form; keywords
 * OpenAPI 3.0 lacks (`if`, `patternProperties`, ...) -> `x-<keyword>`, so the document stays valid.
 */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (DROP.has(k) || k.startsWith('x-')) {
      if (k.startsWith('x-')) out[k] = v;
      continue;
    }
    switch (k) {
      case 'type':
        if (Array.isArray(v)) {
          const types = (v as unknown[]).filter((t) => t !== 'null');
          if (types.length === 1) out.type = types[0];
          else out.anyOf = types.map((t) => ({ type: t }));
          if (types.length !== v.length) out.nullable = true;
        } else out.type = v;
        break;
      case '$ref':
        out.$ref = String(v).startsWith('#') ? v : `#/components/schemas/${componentName(String(v))}`;
        break;
      case 'const':
        out.enum = [v];
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof v === 'number') {
          out[k === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = v;
          out[k] = true;
        } else out[k] = v;
        break;
      case 'oneOf':
      case 'anyOf':
        // OpenAPI 3.0 has no "null" type: a `{ type: "null" }` branch becomes its idiom for the null
        // value alone (`nullable` with a one-value enum), so the other branches stay as they are.
        out[k] = (v as unknown[]).map((b) =>
          b && typeof b === 'object' && (b as Json).type === 'null' && Object.keys(b).length === 1
            ? { type: 'object', nullable: true, enum: [null] }
            : toOpenApiSchema(b),
        );
        break;
      case 'properties':
        out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, ps]) => [p, toOpenApiSchema(ps)]));
        break;
      case 'enum':
      case 'required':
      case 'default':
      case 'example':
        out[k] = v;
        break;
      default:
        if (OAS_KEYWORDS.has(k)) out[k] = typeof v === 'object' ? toOpenApiSchema(v) : v;
        else out[`x-${k}`] = v;
    }
  }
  if (out.$ref && Object.keys(out).length > 1) {
    // OpenAPI 3.0 ignores siblings of $ref: keep them by wrapping.
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Invalid request parameters, body or JSON (also: a number out of its range, JSON nested deeper than 64 levels, a body that is not valid for its Content-Encoding)',
  401: 'Missing or invalid API token',
  402: 'Plan limit reached',
  403: "Not permitted (also: any write sent with a read-only token, code READ_ONLY_TOKEN; a caller whose role in the team is below the operation's x-required-role, code FORBIDDEN_ROLE)",
  404: 'Not found (also any path id that is not a UUID)',
  409: 'Already exists or conflicting state',
  422: 'Well-formed but refused as it stands (code SECRET_REQUIRED: a masked secret sent back cannot keep the stored one)',
  413: 'Request body over 1 MB (after decompression)',
  415: 'Content-Encoding other than gzip, deflate, br or identity',
  429: "Rate limit exceeded (code RATE_LIMITED, with the X-RateLimit-* headers), or too many failed authentications from the client's address (code TOO_MANY_FAILURES: every request carrying a credential is refused until the minute ends); see Retry-After",
  500: 'Unexpected server error',
  503: 'Temporarily unavailable (the database is not reachable: code DATABASE_UNAVAILABLE, see Retry-After)',
};

/** Error statuses every operation of this shape can answer (the entry adds the rest). */
function errorStatuses(op: OperationDoc): number[] {
  if (op.plain) return [500, 503, ...(op.errors ?? [])].filter((x) => !(x in op.responses));
  // 503: the database is not reachable (PostgreSQL restarting); see docs/storage.md.
  const s = new Set<number>([400, 500, 503, ...(op.errors ?? [])]);
  if (op.auth !== false) {
    s.add(401);
    s.add(429);
    // A read-only token's writes are refused (docs/security.md), as is any call above the caller's role
    // (docs/accounts.md); POST /api/v1/auth only checks the token.
    if (op.method !== 'get' && op.path !== '/api/v1/auth') s.add(403);
    if (requiredRole(op) !== 'viewer') s.add(403);
  }
  if (/:[A-Za-z]/.test(op.path)) s.add(404);
  // Any request with a body, whatever its method, goes through the JSON body parser (1 MB limit,
  // gzip / deflate / br / identity only): see docs/input-limits.md.
  s.add(413);
  s.add(415);
  for (const k of Object.keys(op.responses)) s.delete(Number(k));
  return [...s].sort((a, b) => a - b);
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9:]+/).filter((w) => w && w !== 'api' && w !== 'v1');
  const camel = words.map((w) =>
    w.startsWith(':') ? `By${w[1]!.toUpperCase()}${w.slice(2)}` : w[0]!.toUpperCase() + w.slice(1),
  );
  return method + (path.startsWith('/api-') ? 'User' : '') + camel.join('');
}

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

function responseObject(status: number, doc: ResponseDoc, schemas: Record<string, object>, auth: boolean): Json {
  const d = typeof doc === 'string' ? { schema: doc } : doc;
  const description = d.description ?? STATUS_TEXT[status] ?? `HTTP ${status}`;
  const headers: Json = {};
  if (auth) for (const h of RATE_HEADERS) headers[h] = { $ref: `#/components/headers/${h}` };
  for (const [h, text] of Object.entries(d.headers ?? {}))
    headers[h] = { description: text, schema: { type: 'integer' } };
  const base: Json = { description, ...(Object.keys(headers).length ? { headers } : {}) };
  const types = typeof d.contentType === 'string' ? [d.contentType] : (d.contentType ?? []);
  if (types.length && !types.includes('application/json')) {
    return {
      ...base,
      content: Object.fromEntries(
        types.map((t) => [t, { schema: { type: 'string', ...(t.startsWith('image/') ? { format: 'binary' } : {}) } }]),
      ),
    };
  }
  if (!d.schema) return base;
  if (!schemas[d.schema]) throw new Error(`response schema "${d.schema}" is not in schemas/`);
  // JSON with the schema, and any other type the answer may take (the audit trail's JSON lines) as text.
  const others = types.filter((t) => t !== 'application/json').map((t) => [t, { schema: { type: 'string' } }]);
  return {
    ...base,
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${componentName(d.schema)}` } },
      ...Object.fromEntries(others),
    },
  };
}

function parameters(op: OperationDoc, path: string, schemas: Record<string, object>): Json[] {
  const out: Json[] = [];
  for (const m of path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const name = m[1]!;
    out.push({ name, in: 'path', required: true, schema: op.params?.[name] ?? { type: 'string', format: 'uuid' } });
  }
  if (op.query) {
    const q = schemas[op.query] as Json | undefined;
    if (!q) throw new Error(`query schema "${op.query}" is not in schemas/`);
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, ps] of Object.entries((q.properties as Json | undefined) ?? {})) {
      const schema = toOpenApiSchema(ps) as Json;
      const { description, ...rest } = schema;
      out.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

/** The request body as documented: for authenticated operations, the schema plus the optional `api_key` field. */
function requestBody(op: OperationDoc, schemas: Record<string, object>): Json | undefined {
  if (op.textBody)
    return { required: false, description: op.textBody, content: { '*/*': { schema: { type: 'string' } } } };
  if (!op.body) return undefined;
  const body = schemas[op.body] as Json | undefined;
  if (!body) throw new Error(`request schema "${op.body}" is not in schemas/`);
  let schema: Json = { $ref: `#/components/schemas/${componentName(op.body)}` };
  if (op.auth !== false) {
    // The credential may travel in the body; the server removes it before validating the rest.
    const s = toOpenApiSchema(body) as Json;
    schema = { ...s, properties: { ...(s.properties as Json | undefined), api_key: API_KEY_FIELD } };
  }
  return { required: true, content: { 'application/json': { schema } } };
}

const API_KEY_FIELD = {
  type: 'string',
  description:
    'The API token, when passed in the body instead of the Authorization header or the api_key query parameter.',
};

/** JSON reads answered with an ETag and, on a matching If-None-Match, 304 (src/api/middleware/etag.ts). */
function conditional(op: OperationDoc, path: string): boolean {
  const ok = op.responses[200];
  const json = ok !== undefined && (typeof ok === 'string' || !ok.contentType);
  return op.method === 'get' && /^\/(?:api\/v1\/|api-)/.test(path) && json && !op.responses[304];
}

const NOT_MODIFIED = {
  description:
    "Not modified: If-None-Match names the current answer's ETag (every 200 of this read carries a weak ETag, a hash of its JSON), so no body is sent",
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: 304 when the answer is still the same',
  schema: { type: 'string' },
};

function buildOperation(op: OperationDoc, path: string, isAlias: boolean, schemas: Record<string, object>): Json {
  const responses: Json = {};
  for (const [status, doc] of Object.entries(op.responses))
    responses[status] = responseObject(Number(status), doc, schemas, op.auth !== false);
  const etag = conditional(op, path);
  if (etag) responses['304'] = NOT_MODIFIED;
  for (const status of errorStatuses(op)) responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  const o: Json = {
    operationId: operationId(op.method, path),
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [isAlias || path.startsWith('/api-') ? 'User API' : op.tag],
  };
  const params = [...parameters(op, path, schemas), ...(etag ? [IF_NONE_MATCH] : [])];
  if (params.length) o.parameters = params;
  const body = requestBody(op, schemas);
  if (body) o.requestBody = body;
  o.responses = responses;
  o.security = op.auth === false ? [] : [{ bearerAuth: [] }, { apiKeyQuery: [] }];
  if (op.auth !== false) {
    o['x-api-key-body'] = true;
    // The role in the team the caller needs (docs/accounts.md).
    o['x-required-role'] = requiredRole(op);
  }
  return o;
}

interface BuildOptions {
  operations?: readonly OperationDoc[];
}

/** The whole document. `schemas` is the `$id` -> schema map of schemas/ (loadSchemas()). */
export function buildOpenApi(schemas: Record<string, object>, opts: BuildOptions = {}): Json {
  const ops = opts.operations ?? OPERATIONS;
  const paths: Record<string, Json> = {};
  const seen = new Set<string>();
  for (const op of ops) {
    for (const [p, isAlias] of [[op.path, false], ...(op.alias ? [[op.alias, true]] : [])] as [string, boolean][]) {
      const key = `${op.method} ${p}`;
      if (seen.has(key)) throw new Error(`operation ${key} is listed twice`);
      seen.add(key);
      const oaPath = toOpenApiPath(p);
      paths[oaPath] ??= {};
      paths[oaPath][op.method] = buildOperation(op, p, isAlias, schemas);
    }
  }
  const components: Json = {};
  for (const id of Object.keys(schemas).sort()) {
    components[componentName(id)] = toOpenApiSchema(schemas[id]);
  }
  const errorResponses: Json = {};
  for (const status of [400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503]) {
    const schema = 'Error';
    errorResponses[`E${status}`] = {
      description: STATUS_TEXT[status],
      ...(status === 429
        ? {
            headers: {
              // The X-RateLimit-* headers come with RATE_LIMITED only (a blocked address is refused before any team is known).
              'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
            },
          }
        : {}),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
    };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'dommon API',
      version: DOCUMENT_VERSION,
      description: [
        'Self-hosted domain and certificate monitor. One document, two surfaces on one port:',
        'the Public API (`/health`, `/api/v1/...`) and the User API (`/api-...`).',
        '',
        'Authentication: every operation except `GET /health`, `GET /api/v1/openapi.json` and `POST /api-auth` needs a',
        'token, passed in exactly one of three ways: `Authorization: Bearer <token>` (bearerAuth), the query parameter',
        '`api_key` (apiKeyQuery), or the JSON body field `api_key` (OpenAPI 3.0 cannot name a body field as a security',
        'scheme; operations accepting it carry `x-api-key-body: true`).',
        '',
        'Errors answer `{error, code, timestamp, path}`. Lists answer `data` + `pagination` (limit default 50, max 100).',
      ].join('\n'),
      license: { name: 'MIT' },
    },
    servers: [{ url: '/', description: 'The dommon daemon (both surfaces)' }],
    tags: [
      { name: 'System' },
      { name: 'Auth' },
      { name: 'Tokens', description: "API tokens in account settings: your own, and an owner's view of the team's." },
      {
        name: 'Members',
        description: "The team's members and their roles: an owner's view, role changes and removals.",
      },
      {
        name: 'Invitations',
        description: "Invitations and owners' password-reset links: one-time links to the dashboard.",
      },
      {
        name: 'Passkeys',
        description: 'Passkeys (WebAuthn) of your account, to sign in to the dashboard without a password.',
      },
      { name: 'Portfolios' },
      { name: 'Domains' },
      { name: 'Endpoints' },
      { name: 'Liveness' },
      { name: 'Status' },
      { name: 'Notifications' },
      { name: 'Maintenance windows' },
      {
        name: 'Configuration',
        description: 'Configuration as code: a whole setup in one file (docs/configuration-file.md).',
      },
      { name: 'Audit', description: 'Who changed what, through which door, when (docs/audit.md).' },
      { name: 'Push', description: 'The ping URLs of push (heartbeat) endpoints: no token, plain-text answers.' },
      { name: 'User API', description: 'The `/api-*` paths: the same handlers and answers as their Public API twins.' },
    ],
    paths,
    components: {
      schemas: components,
      responses: errorResponses,
      headers: {
        'X-RateLimit-Limit': {
          description: 'Requests allowed per minute for the team (DOMMON_RATE_LIMIT)',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'End of the current window (epoch seconds)', schema: { type: 'integer' } },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: 'The token as the query parameter api_key',
        },
      },
    },
  };
}
