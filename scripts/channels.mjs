#!/usr/bin/env node
// Writes what the channel registry generates (built code, dist/): schemas/channels/<kind>.json, the
// channel enums in schemas/ and docs/channels.md; removes schemas of kinds no longer registered.
// Run by `npm run build` before scripts/openapi.mjs; `--check` exits 1 when a committed file is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { channelArtifacts } from '../dist/channels/artifacts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemaFiles = {};
const walk = (dir) => {
  for (const ent of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${ent.name}`;
    if (ent.isDirectory()) walk(rel);
    else if (ent.name.endsWith('.json')) schemaFiles[rel] = fs.readFileSync(path.join(root, rel), 'utf8');
  }
};
walk('schemas');
const want = channelArtifacts(schemaFiles);
const stale = Object.keys(schemaFiles).filter((f) => f.startsWith('schemas/channels/') && !want.has(f));
const check = process.argv.includes('--check');
let bad = 0;
for (const [rel, text] of want) {
  const file = path.join(root, rel);
  const cur = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (cur === text) continue;
  if (check) {
    process.stderr.write(`${rel} is out of date: run npm run build\n`);
    bad++;
  } else fs.writeFileSync(file, text);
}
for (const rel of stale) {
  if (check) {
    process.stderr.write(`${rel}: no such channel in the registry\n`);
    bad++;
  } else fs.rmSync(path.join(root, rel));
}
if (bad) process.exit(1);
if (!check) process.stdout.write(`channels: ${want.size} generated files up to date\n`);
