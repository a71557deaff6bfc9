#!/usr/bin/env node
// Runs test files under one tap root, N at once, printing TAP (`ok N - test/x.test.ts # time=...ms` per
// file and the `# { total, pass, fail }` summary); `scripts/test.mjs` runs it for `npm test`.
//
// Why not `tap` itself: its runner starts every file with its process-info and mock loaders
// (`--import` of `@tapjs/processinfo` and `@tapjs/mock`; no option turns them off). The process-info
// hook reads every module a file loads and exists for coverage, which is off here, and no test mocks a
// module. And every file under tsx transforms and resolves its few hundred modules one by one as it
// loads them. Here esbuild compiles all the files at once first (one bundle per file under
// .tap/build/, the project's own modules shared in chunks, packages left to node_modules, source maps
// so stack traces name the .ts lines), and each runs as `node --enable-source-maps file.js` through
// tap's own `t.spawn` (the same TAP, time limits, `# timeout=` comments and buffered output as its
// runner). An app-starting file then costs about a third less CPU (docs/testing.md).
// `npx tap test/x.test.ts` for one file is unchanged.
//
// Usage: node scripts/tap-files.mjs [--jobs=N] [file or folder ...]  (default: every test file)
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { APP_EXTERNALS, REQUIRE_BANNER } from './externals.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_FILE = /\.test\.tsx?$/;

/**
 * The longest files start first, so that the run does not end with one long file alone (longest first
 * packs the lanes best). The order comes from the wall times the last runs in this checkout recorded
 * (`.tap/times.json`, written at the end of every run), a file not recorded there (a new one) first of
 * all. Without that file (a clean clone, CI) the files named here start first, in this order (the 45
 * slowest by wall time of a clean-clone run on a quiet machine, most of them waiting on intervals, leases,
 * daemons or a browser: every file that took over 11 s there), then the rest in path order; a name here
 * that no longer exists is ignored.
 */
const SLOW_FIRST = [
  'test/pg/cluster.test.ts',
  'test/pg/due-queue.test.ts',
  'test/pg/api-push.test.ts',
  'test/scheduler/liveness.test.ts',
  'test/pg/outbox.test.ts',
  'test/api/push.test.ts',
  'test/web/accounts.test.ts',
  'test/pg/regions.test.ts',
  'test/web/browser.test.ts',
  'test/web/browser-setup.test.ts',
  'test/cli/postgres.test.ts',
  'test/pg/web-accounts.test.ts',
  'test/pg/shared-state.test.ts',
  'test/pg/api-probing.test.ts',
  'test/pg/singletons.test.ts',
  'test/cli/token-role.test.ts',
  'test/cli/check-dns-unknown.test.ts',
  'test/pg/api-maintenance-windows.test.ts',
  'test/web/browser-home.test.ts',
  'test/pg/web-links.test.ts',
  'test/api/endpoint-status-list.test.ts',
  'test/pg/api-events-data.test.ts',
  'test/pg/exactly-once.test.ts',
  'test/pg/nameserver-watch.test.ts',
  'test/pg/api-endpoint-fields.test.ts',
  'test/intel/nameserver-watch.test.ts',
  'test/api/probing.test.ts',
  'test/web/links.test.ts',
  'test/cli/liveness-import.test.ts',
  'test/web/browser-story.test.ts',
  'test/api/status-pages.test.ts',
  'test/cli/access.test.ts',
  'test/api/health-reasons.test.ts',
  'test/pg/api-liveness-requests.test.ts',
  'test/cli/local.test.ts',
  'test/web/browser-manage.test.ts',
  'test/api/badges.test.ts',
  'test/web/browser-tokens.test.ts',
  'test/cli/audit.test.ts',
  'test/api/maintenance-windows.test.ts',
  'test/cli/commands.test.ts',
  'test/api/bad-input.test.ts',
  'test/pg/nameserver-watch-nodes.test.ts',
  'test/pg/api-icmp-conditions.test.ts',
  'test/api/endpoint-fields.test.ts',
];

/** Packages only the tests use that stay in node_modules (they read files beside their code or run programs). */
const TEST_EXTERNALS = [
  'tap',
  '@tapjs/*',
  'playwright-core',
  '@seriousme/*',
  'eslint',
  'typescript',
  'esbuild',
  'oidc-provider',
];

/** Per file, its latest run's `{ wallMs, cpuMs, childCpuMs }` (scripts/tap-cpu.mjs records them). */
const TIMES = path.join(ROOT, '.tap/times.json');

/** Every test file under `dir` (relative to the project), sorted. */
function testFiles(dir) {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && TEST_FILE.test(e.name))
    .map((e) =>
      path
        .relative(ROOT, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .sort();
}

let jobs = 3;
const named = [];
for (const arg of process.argv.slice(2)) {
  const j = /^--jobs=(\d+)$/.exec(arg);
  if (j) jobs = Number(j[1]);
  else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
  else named.push(arg);
}

let files = [];
for (const name of named.length ? named : ['test']) {
  const rel = path.relative(ROOT, path.resolve(name)).split(path.sep).join('/');
  const st = fs.statSync(path.join(ROOT, rel), { throwIfNoEntry: false });
  if (!st) throw new Error(`no such test file or folder: ${name}`);
  files.push(...(st.isDirectory() ? testFiles(rel) : [rel]));
}
files = [...new Set(files)];
/** @type {Record<string, { wallMs: number, cpuMs: number, childCpuMs: number }>} */
let times = {};
try {
  times = JSON.parse(fs.readFileSync(TIMES, 'utf8'));
} catch {
  // no run recorded yet
}
if (Object.keys(times).length) {
  const wall = (f) => times[f]?.wallMs ?? Infinity;
  files.sort((a, b) => wall(b) - wall(a) || a.localeCompare(b));
} else {
  const rank = (f) => (SLOW_FIRST.includes(f) ? SLOW_FIRST.indexOf(f) : SLOW_FIRST.length);
  files.sort((a, b) => rank(a) - rank(b));
}

/**
 * Compiles `files` into `outdir` (`test/x.test.ts` -> `outdir/test/x.test.js`). A bundled module's
 * `import.meta.url` would name the bundle; the tests, the app and some packages find files (fixtures,
 * migrations, `bin/`, `dist/`) from it, so each file's own `import.meta.url` and `import.meta.dirname` are written
 * into it as they were (the text is replaced, in strings too).
 */
async function compile(outdir) {
  await build({
    absWorkingDir: ROOT,
    entryPoints: files,
    outdir,
    outbase: ROOT,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // The packages are bundled too, as the command line's are (scripts/bundle.mjs): a file then loads a
    // few chunks instead of resolving, reading and compiling some 900 CommonJS modules one by one, which
    // cost an app-starting file about 0.4 s of its ~2.3 s of CPU. Left out, besides the command line's:
    // tap (its runner loads plug-ins) and the test-only packages that read their own files or spawn.
    external: [...APP_EXTERNALS, ...TEST_EXTERNALS],
    banner: { js: REQUIRE_BANNER },
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'import-meta',
        setup(b) {
          b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async ({ path: file }) => {
            let contents = await fs.promises.readFile(file, 'utf8');
            if (contents.includes('import.meta.'))
              contents = contents
                .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
                .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)));
            const ext = path.extname(file);
            const loader = ext === '.tsx' ? 'tsx' : ext === '.jsx' ? 'jsx' : ext.endsWith('ts') ? 'ts' : 'js';
            return { contents, loader };
          });
        },
      },
    ],
  });
}

// One folder per run (two runs in one checkout must not share one), removed at the end; folders of
// runs that no longer exist are removed first.
const buildRoot = path.join(ROOT, '.tap/build');
for (const e of fs.existsSync(buildRoot) ? fs.readdirSync(buildRoot, { withFileTypes: true }) : []) {
  const pid = Number(/^run-(\d+)$/.exec(e.name)?.[1]);
  if (!pid) continue;
  try {
    process.kill(pid, 0);
  } catch {
    fs.rmSync(path.join(buildRoot, e.name), { recursive: true, force: true });
  }
}
const outdir = path.join(buildRoot, `run-${process.pid}`);
const runTimes = path.join(outdir, 'times.jsonl');
process.on('exit', () => {
  // this run's figures replace the files' earlier ones; the other files' stay
  const lines = fs.existsSync(runTimes) ? fs.readFileSync(runTimes, 'utf8').split('\n').filter(Boolean) : [];
  if (lines.length) {
    for (const line of lines) {
      const { file, ...figures } = JSON.parse(line);
      times[file] = figures;
    }
    fs.writeFileSync(TIMES, `${JSON.stringify(times, null, 1)}\n`);
  }
  fs.rmSync(outdir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => process.exit(1));
const compileStarted = performance.now();
await compile(outdir);
// The shared chunks keep no source map: they hold the packages' code with the project's, and Node
// (--enable-source-maps) reads and decodes a chunk's whole map the first time a stack trace passes
// through it, which tap does for every assertion's location: ~0.3 s of CPU per file. The test files
// keep theirs, so an assertion's `at` still names the .ts line; a frame in the app's code names its
// line in the chunk (`npx tap FILE` runs one file from source, with every frame mapped).
const chunks = path.join(outdir, 'chunks');
for (const name of fs.existsSync(chunks) ? fs.readdirSync(chunks) : []) {
  const file = path.join(chunks, name);
  if (name.endsWith('.map')) fs.rmSync(file);
  else if (name.endsWith('.js')) {
    const code = fs.readFileSync(file, 'utf8');
    const at = code.lastIndexOf('\n//# sourceMappingURL=');
    if (at !== -1) fs.writeFileSync(file, code.slice(0, at + 1));
  }
}
t.comment(`compiled ${files.length} files in ${((performance.now() - compileStarted) / 1000).toFixed(1)} s`);

// The runner itself has no time limit; each file has tap's default 30 s, counted again from every
// `# timeout=` its own t.setTimeout() prints (test/support/cli.ts's progressed()).
t.setTimeout(0);
t.jobs = Math.max(1, Math.min(jobs, files.length));
t.plan(files.length);
const cpuRecorder = pathToFileURL(path.join(ROOT, 'scripts/tap-cpu.mjs')).href;
for (const file of files) {
  // `t.spawn` puts tap's process-info loader into the child's NODE_OPTIONS whatever `env` says;
  // `env -u NODE_OPTIONS` drops it between that and node (the child keeps the same pid).
  t.spawn(
    'env',
    [
      '-u',
      'NODE_OPTIONS',
      process.execPath,
      '--enable-source-maps',
      `--import=${cpuRecorder}`,
      path.join(outdir, file.replace(/\.tsx?$/, '.js')),
    ],
    {
      name: file,
      externalID: file,
      cwd: ROOT,
      env: { ...process.env, DOMMON_TAP_FILE: file, DOMMON_TAP_TIMES: runTimes },
      buffered: t.jobs > 1,
      timeout: 30_000,
      at: null,
      stack: '',
    },
  );
}
