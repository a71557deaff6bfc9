#!/usr/bin/env node
// Writes the endpoint-type enums of schemas/ from the built endpoint-type list (dist/): run by
// `npm run build` before the OpenAPI document is built; `--check` exits 1 when a schema is out of date.
import { ENDPOINT_TYPES } from '../dist/domain/types.js';
import { SCHEMA_DIR } from '../dist/api/validation.js';
import { endpointTypeEnums, writeEndpointTypeEnums } from '../dist/api/schema-enums.js';

if (process.argv.includes('--check')) {
  const drift = endpointTypeEnums(SCHEMA_DIR).filter(
    (s) => JSON.stringify(s.values) !== JSON.stringify(ENDPOINT_TYPES),
  );
  for (const s of drift)
    process.stderr.write(`${s.file} ${s.at}: ${JSON.stringify(s.values)} is not ${JSON.stringify(ENDPOINT_TYPES)}\n`);
  if (drift.length) {
    process.stderr.write('endpoint-type enums are out of date: run npm run build\n');
    process.exit(1);
  }
} else {
  const changed = writeEndpointTypeEnums(SCHEMA_DIR, ENDPOINT_TYPES);
  process.stdout.write(
    changed.length ? `endpoint types ${ENDPOINT_TYPES.join(', ')} written to ${changed.join(', ')}\n` : '',
  );
}
