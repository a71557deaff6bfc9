// A readable HTML reference of the OpenAPI document, rendered on the server: no script, no CDN,
// no dependency. Pure: document in, HTML string out.
type Json = Record<string, any>;

const esc = (v: unknown): string =>
  String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const refName = (ref: string): string => ref.split('/').pop()!;

/** A short type label: `string (uuid)`, `Domain[]`, `integer | null`. */
function typeOf(s: Json | undefined): string {
  if (!s) return 'any';
  if (s.$ref) return `<a href="#schema-${esc(refName(s.$ref))}">${esc(refName(s.$ref))}</a>`;
  if (s.allOf?.length === 1) return typeOf(s.allOf[0]);
  let t = s.type === 'array' ? `${typeOf(s.items)}[]` : esc(s.type ?? 'any');
  if (s.format) t += ` (${esc(s.format)})`;
  if (s.enum) t += `: ${s.enum.map((x: unknown) => esc(JSON.stringify(x))).join(', ')}`;
  if (s.nullable) t += ' | null';
  return t;
}

function propsTable(s: Json): string {
  const props = Object.entries<Json>(s.properties ?? {});
  if (!props.length) return `<p class="type">${typeOf(s)}</p>`;
  const req = new Set<string>(s.required ?? []);
  const rows = props.map(([name, p]) => {
    const nested = p.type === 'object' && p.properties ? propsTable(p) : '';
    const notes = [p.description, p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '', p.minimum !== undefined ? `min ${p.minimum}` : '', p.maximum !== undefined ? `max ${p.maximum}` : '']
      .filter(Boolean).map(esc).join('; ');
    return `<tr><td><code>${esc(name)}</code>${req.has(name) ? ' *' : ''}</td><td>${typeOf(p)}</td><td>${notes}${nested}</td></tr>`;
  });
  return `<table><tr><th>field</th><th>type</th><th>notes</th></tr>${rows.join('')}</table>`;
}

function operation(path: string, method: string, op: Json, doc: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params.map((p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? ' *' : ''}</td><td>${esc(p.in)}</td><td>${typeOf(p.schema)}${p.schema?.default !== undefined ? `, default ${esc(JSON.stringify(p.schema.default))}` : ''}${p.description ? ` ${esc(p.description)}` : ''}</td></tr>`);
  const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const responses = Object.entries<Json>(op.responses).map(([status, r]) => {
    const res = r.$ref ? doc.components.responses[refName(r.$ref)] : r;
    const content = res.content ?? {};
    const type = Object.keys(content)[0];
    const schema = type ? content[type].schema : undefined;
    return `<li><b>${esc(status)}</b> ${esc(res.description ?? '')}${schema ? ` → ${type === 'application/json' ? typeOf(schema) : esc(type)}` : ''}</li>`;
  });
  const auth = op.security?.length ? 'token: Bearer header, <code>api_key</code> query or body field' : 'no token';
  return `<section class="op" id="${esc(op.operationId)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary ?? '')} <span class="auth">(${auth})</span></p>
${op.description ? `<p>${esc(op.description)}</p>` : ''}
${paramRows.length ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>schema</th></tr>${paramRows.join('')}</table>` : ''}
${body ? `<h4>Request body</h4>${body.$ref ? `<p>${typeOf(body)}</p>` : propsTable(body)}` : ''}
<h4>Responses</h4><ul>${responses.join('')}</ul>
</section>`;
}

export function renderDocsHtml(doc: Json): string {
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) {
        byTag.set(tag, []);
        toc.set(tag, []);
      }
      byTag.get(tag)!.push(operation(path, method, op, doc));
      toc.get(tag)!.push(`<li><a href="#${esc(op.operationId)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`);
    }
  }
  const order = ((doc.tags ?? []) as Json[]).map((t) => t.name as string).filter((n) => byTag.has(n));
  for (const t of byTag.keys()) if (!order.includes(t)) order.push(t);
  const schemas = Object.entries<Json>(doc.components?.schemas ?? {})
    .map(([name, s]) => `<section class="schema" id="schema-${esc(name)}"><h3>${esc(name)}</h3>${s.description ? `<p>${esc(s.description)}</p>` : ''}${propsTable(s)}</section>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex}nav{width:300px;height:100vh;overflow:auto;position:sticky;top:0;padding:1em;background:#f6f7f9;font-size:13px}
main{flex:1;padding:1em 2em;max-width:1000px}table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4em;padding:0 .4em;border-radius:3px;color:#fff;font-size:13px;text-align:center}.get{background:#2b7bb9}.post{background:#2e9e5b}.put{background:#c88b1a}.delete{background:#c0392b}.patch{background:#7d3c98}
.op,.schema{border-top:1px solid #ddd;padding:.3em 0}.auth{color:#777;font-size:13px}nav ul{padding-left:1em;margin:.2em 0}code{font-size:13px}
</style></head><body>
<nav><b>${esc(doc.info.title)}</b> ${esc(doc.info.version)}<br><a href="/api/v1/openapi.json">openapi.json</a>
${order.map((t) => `<div><b>${esc(t)}</b><ul>${toc.get(t)!.join('')}</ul></div>`).join('')}<div><b><a href="#schemas">Schemas</a></b></div></nav>
<main><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)} (OpenAPI ${esc(doc.openapi)})</small></h1>
<pre>${esc(doc.info.description ?? '')}</pre>
${order.map((t) => `<h2>${esc(t)}</h2>${byTag.get(t)!.join('\n')}`).join('\n')}
<h2 id="schemas">Schemas</h2>${schemas.join('\n')}
</main></body></html>
`;
}
