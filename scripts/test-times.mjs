#!/usr/bin/env node
// `npm run test:times`: keeps the figures of this checkout's last whole run (`.tap/times.json`) as the
// repository's (`scripts/test-times.json`), for the test files that still exist. scripts/tap-files.mjs
// orders and admits a clean clone's files by them (docs/testing.md); refresh after a whole quiet run.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const times = JSON.parse(fs.readFileSync(path.join(root, '.tap/times.json'), 'utf8'));
const kept = Object.fromEntries(
  Object.entries(times)
    .filter(([file]) => fs.existsSync(path.join(root, file)))
    .sort(([a], [b]) => a.localeCompare(b)),
);
fs.writeFileSync(path.join(root, 'scripts/test-times.json'), `${JSON.stringify(kept, null, 1)}\n`);
console.log(`kept ${Object.keys(kept).length} files' figures in scripts/test-times.json`);
