#!/usr/bin/env node
// Builds the web dashboard (web/src, Preact + uPlot) with esbuild into dist/web/: assets/ with hashed
// names (served with a year's cache) and index.html naming them (served no-cache), then prints and
// records (dist/web/size.json) the first load's gzip size: index.html + the entry's JS and CSS and
// the chunks it imports at once (the chart's chunk loads with the endpoint page only).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/web');
const assets = path.join(outdir, 'assets');
// Only the bundle's own files: dist/web/ also holds the compiled server side of src/web/ (tsc's output).
fs.rmSync(assets, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ['web/src/main.tsx'],
  outdir: assets,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = result.metafile.outputs;
const rel = (p) => path.relative(assets, path.join(root, p));
const entry = Object.entries(outputs).find(([, o]) => o.entryPoint === 'web/src/main.tsx');
if (!entry) throw new Error('esbuild made no entry for web/src/main.tsx');
const [entryFile, entryOut] = entry;
// The entry's static imports (shared chunks), not its dynamic ones.
const first = new Set([entryFile]);
const walk = (file) => {
  for (const imp of outputs[file]?.imports ?? [])
    if (imp.kind === 'import-statement' && !first.has(imp.path)) {
      first.add(imp.path);
      walk(imp.path);
    }
};
walk(entryFile);
const css = [entryOut.cssBundle].filter(Boolean);
const template = fs.readFileSync(path.join(root, 'web/index.html'), 'utf8');
const html = template
  .replace('__MAIN__', rel(entryFile))
  .replace('<!--STYLES-->', css.map((c) => `<link rel="stylesheet" href="/ui/assets/${rel(c)}" />`).join('\n    '));
fs.writeFileSync(path.join(outdir, 'index.html'), html);

const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const files = [...first, ...css].map((f) => path.join(root, f));
const firstLoad = gz(Buffer.from(html)) + files.reduce((n, f) => n + gz(fs.readFileSync(f)), 0);
const all = fs.readdirSync(assets).reduce((n, f) => n + gz(fs.readFileSync(path.join(assets, f))), 0);
const size = { first_load_gzip_bytes: firstLoad, all_assets_gzip_bytes: all + gz(Buffer.from(html)) };
fs.writeFileSync(path.join(outdir, 'size.json'), JSON.stringify(size, null, 2) + '\n');
console.log(
  `web dashboard: first load ${(firstLoad / 1024).toFixed(1)} KB gzip, all assets ${(size.all_assets_gzip_bytes / 1024).toFixed(1)} KB gzip`,
);
