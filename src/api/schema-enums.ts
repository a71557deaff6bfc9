// The endpoint-type enums of the committed JSON Schemas (and their descriptions, where a property has
// one), and the properties the types' own fields add to the endpoint schemas, come from the
// endpoint-type registry (src/probes/registry.ts): `npm run build` rewrites them
// (scripts/endpoint-types.mjs) and a test fails when a committed schema drifts from the registry.
import fs from 'node:fs';
import path from 'node:path';

interface EnumSite {
  /** Schema file, relative to the schema directory. */
  file: string;
  /** JSON path of the property holding the enum. */
  at: string;
  values: unknown[];
  description?: unknown;
}

type Json = Record<string, unknown>;

/** Every schema object under a property named `endpoint_type` that has an `enum`, with a setter. */
function visit(node: unknown, at: string, found: (at: string, holder: Json) => void): void {
  if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${at}[${i}]`, found));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'endpoint_type' && v && typeof v === 'object' && Array.isArray((v as Json).enum))
        found(`${at}.${k}`, v as Json);
      visit(v, `${at}.${k}`, found);
    }
  }
}

function schemaFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) walk(p);
      else if (ent.name.endsWith('.json') && ent.name !== 'openapi.json') out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Where the schemas under `dir` list endpoint types, and which. */
export function endpointTypeEnums(dir: string): EnumSite[] {
  const sites: EnumSite[] = [];
  for (const file of schemaFiles(dir)) {
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    visit(json, '$', (at, holder) =>
      sites.push({
        file: path.relative(dir, file),
        at,
        values: holder.enum as unknown[],
        ...('description' in holder ? { description: holder.description } : {}),
      }),
    );
  }
  return sites;
}

/** Rewrites every drifted enum to `types`, and every description there is to `description`; returns the files it changed. */
export function writeEndpointTypeEnums(dir: string, types: readonly string[], description: string): string[] {
  const changed: string[] = [];
  for (const file of schemaFiles(dir)) {
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    let drift = false;
    visit(json, '$', (_at, holder) => {
      if (JSON.stringify(holder.enum) !== JSON.stringify(types)) {
        holder.enum = [...types];
        drift = true;
      }
      if ('description' in holder && holder.description !== description) {
        holder.description = description;
        drift = true;
      }
    });
    if (drift) {
      fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
      changed.push(path.relative(dir, file));
    }
  }
  return changed;
}

/**
 * The schemas that carry an endpoint's fields, relative to the schema directory: the requests that
 * write one and the answers that show one. `answer` schemas get the properties without `default`.
 */
export const ENDPOINT_FIELD_SCHEMAS = [
  { file: 'requests/endpoint-create.json', answer: false },
  { file: 'requests/endpoint-update.json', answer: false },
  { file: 'responses/endpoint.json', answer: true },
  { file: 'responses/endpoint-detail.json', answer: true },
] as const;

/**
 * `schema` with its generated field properties (those holding `mark`) replaced by `fields`, placed
 * after `notes`. A field named like one of the schema's own properties is refused.
 */
function withEndpointFields(schema: Json, fields: Readonly<Record<string, Json>>, mark: string, answer: boolean): Json {
  const props = schema.properties as Record<string, Json>;
  const own = Object.entries(props).filter(([, v]) => !(mark in v));
  for (const name of Object.keys(fields))
    if (own.some(([k]) => k === name)) throw new Error(`endpoint field ${name}: the endpoint schema has it already`);
  const added = Object.entries(fields).map(([k, v]): [string, Json] => {
    const { default: _default, ...rest } = v;
    return [k, answer ? rest : v];
  });
  const at = own.findIndex(([k]) => k === 'notes') + 1 || own.length;
  return { ...schema, properties: Object.fromEntries([...own.slice(0, at), ...added, ...own.slice(at)]) };
}

/** Rewrites the field properties of ENDPOINT_FIELD_SCHEMAS under `dir`; returns the files it changed (with `check`, writes nothing). */
export function writeEndpointFields(
  dir: string,
  fields: Readonly<Record<string, Json>>,
  mark: string,
  check = false,
): string[] {
  const changed: string[] = [];
  for (const { file, answer } of ENDPOINT_FIELD_SCHEMAS) {
    const p = path.join(dir, file);
    const text = fs.readFileSync(p, 'utf8');
    const json = JSON.parse(text) as Json;
    const want = withEndpointFields(json, fields, mark, answer);
    if (JSON.stringify(want) !== JSON.stringify(json)) {
      if (!check) fs.writeFileSync(p, `${JSON.stringify(want, null, 2)}\n`);
      changed.push(file);
    }
  }
  return changed;
}
