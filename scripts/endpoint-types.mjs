#!/usr/bin/env node
// Writes what the endpoint-type registry generates (built code, dist/): the endpoint-type enums of
// schemas/ and their descriptions, the properties the types' own fields add to the endpoint schemas,
// and the two tables of docs/endpoint-types.md. Run by `npm run build`
// before the OpenAPI document is built; `--check` exits 1 when a committed file is out of date.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_TYPES } from '../dist/probes/registry.js';
import {
  FIELD_MARK,
  endpointFieldProperties,
  endpointTypeDescription,
  withEndpointFieldsTable,
  withEndpointTypesTable,
} from '../dist/probes/artifacts.js';
import { SCHEMA_DIR } from '../dist/api/validation.js';
import { endpointTypeEnums, writeEndpointFields, writeEndpointTypeEnums } from '../dist/api/schema-enums.js';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/endpoint-types.md');
const description = endpointTypeDescription();
const doc = fs.readFileSync(DOC, 'utf8');
const wantDoc = withEndpointFieldsTable(withEndpointTypesTable(doc));
const fields = endpointFieldProperties();

if (process.argv.includes('--check')) {
  const drift = endpointTypeEnums(SCHEMA_DIR).filter(
    (s) =>
      JSON.stringify(s.values) !== JSON.stringify(ENDPOINT_TYPES) ||
      ('description' in s && s.description !== description),
  );
  for (const s of drift)
    process.stderr.write(`${s.file} ${s.at}: not the registry's types (${ENDPOINT_TYPES.join(', ')}) or description\n`);
  if (doc !== wantDoc) process.stderr.write("docs/endpoint-types.md: the tables are not the registry's\n");
  const fieldDrift = writeEndpointFields(SCHEMA_DIR, fields, FIELD_MARK, true);
  for (const f of fieldDrift) process.stderr.write(`${f}: the endpoint fields are not the registry's\n`);
  if (drift.length || fieldDrift.length || doc !== wantDoc) {
    process.stderr.write('endpoint types are out of date: run npm run build\n');
    process.exit(1);
  }
} else {
  const changed = writeEndpointTypeEnums(SCHEMA_DIR, ENDPOINT_TYPES, description);
  for (const f of writeEndpointFields(SCHEMA_DIR, fields, FIELD_MARK)) if (!changed.includes(f)) changed.push(f);
  if (doc !== wantDoc) {
    fs.writeFileSync(DOC, wantDoc);
    changed.push('docs/endpoint-types.md');
  }
  process.stdout.write(
    changed.length ? `endpoint types ${ENDPOINT_TYPES.join(', ')} written to ${changed.join(', ')}\n` : '',
  );
}
