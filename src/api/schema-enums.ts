// The endpoint-type enums of the committed JSON Schemas (and their descriptions, where a property has
// one) come from the endpoint-type registry (src/probes/registry.ts): `npm run build` rewrites them
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
