#!/usr/bin/env node
// Compiles src/ to dist/ file by file with esbuild (the first step of `npm run build`): the same layout,
// one dist/x.js and linked dist/x.js.map per src/x.ts(x), imports left as written, for bench/, library
// users and the scripts that read the built registries. esbuild only strips types, in about a second;
// the type check is tsc's, in `npm run typecheck:all` (part of `npm test`). What a per-file compiler
// needs holds (tsc --isolatedModules reports nothing on src/): no const enums across files, type-only
// exports marked as such.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const entryPoints = fs
  .readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
  .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)));

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: path.join(root, 'dist'),
  outbase: 'src',
  // tsconfig.json's settings (target ES2022: class fields with define semantics; react-jsx)
  tsconfig: 'tsconfig.json',
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
