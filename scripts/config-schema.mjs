#!/usr/bin/env node
// Writes schemas/config/dommon.schema.json, the configuration file's JSON Schema, from the built code
// (dist/) and the request, channel and endpoint-type schemas the steps before it wrote. Run by
// `npm run build` before scripts/openapi.mjs; `--check` exits 1 when the committed file is stale.
import fs from 'node:fs';
import { loadSchemas, SCHEMA_DIR } from '../dist/api/validation.js';
import { buildConfigSchema } from '../dist/api/config-schema.js';

const file = `${SCHEMA_DIR}/config/dommon.schema.json`;
const text = `${JSON.stringify(buildConfigSchema(loadSchemas()), null, 2)}\n`;
const cur = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
if (process.argv.includes('--check')) {
  if (cur !== text) {
    process.stderr.write('schemas/config/dommon.schema.json is out of date: run npm run build\n');
    process.exit(1);
  }
} else if (cur !== text) {
  fs.mkdirSync(`${SCHEMA_DIR}/config`, { recursive: true });
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${file}\n`);
}
