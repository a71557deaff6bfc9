#!/usr/bin/env node
// Builds the web dashboard (web/src, Preact + uPlot) with esbuild into dist/web/: assets/ with hashed
// names (served with a year's cache) and index.html naming them (served no-cache), then prints and
// records (dist/web/size.json) the first load's gzip size: index.html + the entry's JS and CSS and
// the chunks it imports at once (the chart's chunk loads with the endpoint page only). Each file is
// also written precompressed (<file>.gz and <file>.br, when smaller) for src/web/serve.ts to send by
// the request's Accept-Encoding: the daemon compresses nothing at run time.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist/web');
const assets = path.join(outdir, 'assets');
// Only the bundle's own files: dist/web/ also holds the compiled server side of src/web/ (scripts/compile.mjs's output).
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
// The entry's shared chunks are named in the page too, so the browser fetches them alongside the entry.
const preload = [...first]
  .filter((f) => f !== entryFile)
  .map((f) => `<link rel="modulepreload" href="/ui/assets/${rel(f)}" />`);
const html = template
  .replace('__MAIN__', rel(entryFile))
  .replace(
    '<!--STYLES-->',
    [...css.map((c) => `<link rel="stylesheet" href="/ui/assets/${rel(c)}" />`), ...preload].join('\n    '),
  );
fs.writeFileSync(path.join(outdir, 'index.html'), html);

/** Writes <file>.gz (gzip -9) and <file>.br (brotli at its best quality) where they are smaller. */
const precompress = (file) => {
  const body = fs.readFileSync(file);
  const variants = {
    gz: zlib.gzipSync(body, { level: 9 }),
    br: zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [zlib.constants.BROTLI_PARAM_MODE]: file.endsWith('.png') ? 0 : zlib.constants.BROTLI_MODE_TEXT,
      },
    }),
  };
  for (const [ext, buf] of Object.entries(variants)) {
    const out = `${file}.${ext}`;
    if (buf.length < body.length) fs.writeFileSync(out, buf);
    else fs.rmSync(out, { force: true });
  }
};
for (const f of fs.readdirSync(assets)) precompress(path.join(assets, f));
precompress(path.join(outdir, 'index.html'));

const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const files = [...first, ...css].map((f) => path.join(root, f));
const firstLoad = gz(Buffer.from(html)) + files.reduce((n, f) => n + gz(fs.readFileSync(f)), 0);
const all = fs
  .readdirSync(assets)
  .filter((f) => !/\.(gz|br)$/.test(f))
  .reduce((n, f) => n + gz(fs.readFileSync(path.join(assets, f))), 0);
const br = (f) => (fs.existsSync(`${f}.br`) ? fs.statSync(`${f}.br`).size : fs.statSync(f).size);
const firstLoadBr = br(path.join(outdir, 'index.html')) + files.reduce((n, f) => n + br(f), 0);
const size = {
  first_load_gzip_bytes: firstLoad,
  first_load_brotli_bytes: firstLoadBr,
  all_assets_gzip_bytes: all + gz(Buffer.from(html)),
};
fs.writeFileSync(path.join(outdir, 'size.json'), JSON.stringify(size, null, 2) + '\n');
console.log(
  `web dashboard: first load ${(firstLoad / 1024).toFixed(1)} KB gzip, ${(firstLoadBr / 1024).toFixed(1)} KB brotli, all assets ${(size.all_assets_gzip_bytes / 1024).toFixed(1)} KB gzip`,
);
