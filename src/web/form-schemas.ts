// The JSON Schemas the dashboard builds its forms from (GET /ui/schemas): the very schemas the API
// validates with (the validator's, generated from the channel and endpoint-type registries), so a new
// channel, endpoint type or field shows up in the page's forms without web code. Each form's schema
// comes with every schema it references ($ref by $id).
import zlib from 'node:zlib';

/** The forms' schemas: request bodies, the delivery log's filters, and every channel's config. */
const ROOTS = [
  'endpoint-create',
  'endpoint-update',
  'liveness-create',
  'liveness-update',
  'portfolio-create',
  'portfolio-update',
  'notification-setting',
  'notification-test',
  'notification-log',
  'status-page-create',
  'maintenance-window-create',
  'maintenance-window-update',
];

function refs(schema: unknown, out: Set<string>): void {
  if (Array.isArray(schema)) for (const x of schema) refs(x, out);
  else if (schema && typeof schema === 'object')
    for (const [k, v] of Object.entries(schema)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refs(v, out);
    }
}

/** `{ schemas: { id: schema } }` for the roots, the channels' configs and what they reference. */
function formSchemas(all: Record<string, object>): { schemas: Record<string, object> } {
  const want = new Set([...ROOTS, ...Object.keys(all).filter((id) => id.startsWith('channels/'))]);
  const out: Record<string, object> = {};
  for (const id of want) {
    const s = all[id];
    if (!s || out[id]) continue;
    out[id] = s;
    const more = new Set<string>();
    refs(s, more);
    for (const r of more) want.add(r);
  }
  return { schemas: out };
}

/** The answer's body and its compressed copies (made once: the schemas do not change at run time). */
export function formSchemasBody(all: Record<string, object>): { body: Buffer; br: Buffer; gzip: Buffer } {
  const body = Buffer.from(JSON.stringify(formSchemas(all)));
  return { body, br: zlib.brotliCompressSync(body), gzip: zlib.gzipSync(body, { level: 9 }) };
}
