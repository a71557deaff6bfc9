#!/usr/bin/env node
// Writes schemas/openapi.json from the built code (dist/): the same document GET /api/v1/openapi.json serves.
// Run by `npm run build`; `--check` exits 1 when the committed file is out of date.
import fs from 'node:fs';
import { loadSchemas, SCHEMA_DIR } from '../dist/api/validation.js';
import { buildOpenApi } from '../dist/api/openapi/document.js';

const file = `${SCHEMA_DIR}/openapi.json`;
const text = `${JSON.stringify(buildOpenApi(loadSchemas()), null, 2)}\n`;
if (process.argv.includes('--check')) {
  const cur = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (cur !== text) {
    process.stderr.write('schemas/openapi.json is out of date: run npm run build\n');
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${file} (${Object.keys(JSON.parse(text).paths).length} paths)\n`);
}
