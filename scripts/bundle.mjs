#!/usr/bin/env node
// Bundles the command line (src/cli/main.ts and everything it imports) into dist/bundle/ with esbuild:
// one file to load instead of ~900 modules, so `dommon` starts in about half the time (cron jobs,
// scripts). Lazily imported parts (the daemon and API, the Ink dashboard) become their own chunks and
// still load only when used. Packages with native code, worker files or optional peers stay external
// and load from node_modules as usual. dist/ from tsc stays as it is (bench/ and library users).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_EXTERNALS, REQUIRE_BANNER } from './externals.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/bundle');
fs.rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  jsx: 'automatic',
  external: APP_EXTERNALS,
  banner: { js: REQUIRE_BANNER },
  legalComments: 'none',
  logLevel: 'warning',
});
