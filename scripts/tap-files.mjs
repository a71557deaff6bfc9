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
// Small files share a process: a group of files of one folder runs in one `node` process, one file after
// another, each as a subtest named by its path (scripts/tap-group.mjs), so that Node's start and the
// loading of the app's modules are paid once per group instead of once per file (docs/testing.md).
//
// Usage: node scripts/tap-files.mjs [--jobs=N] [--alone] [file or folder ...]  (default: every test file;
// --alone: every file in a process of its own)
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { APP_EXTERNALS, REQUIRE_BANNER } from './externals.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_FILE = /\.test\.tsx?$/;

/**
 * The longest files start first, so that the run does not end with one long file alone (longest first
 * packs the lanes best), and as many run at once as keep the cores busy (below). Both come from each
 * file's wall time and CPU: those the last runs in this checkout recorded (`.tap/times.json`, written at
 * the end of every run), else those of a whole clean-clone run kept in the repository
 * (`scripts/test-times.json`: what a clean clone, CI, starts from; `npm run test:times` refreshes it
 * from `.tap/times.json` after a whole run), else (a new file) a guess from what the file starts.
 */
const BASELINE = path.join(ROOT, 'scripts/test-times.json');

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

/** What the test files' `tap` imports resolve to (scripts/tap-group.mjs). */
const TAP_GROUP = pathToFileURL(path.join(ROOT, 'scripts/tap-group.mjs')).href;

/**
 * A test file that must have a process of its own says so on a line of its own, with its reason:
 * `// tap-files: alone (sets process.env for the files after it)`. Reasons: it sets process.env or
 * other process-wide state that later files would inherit, counts what the whole process saw (the
 * OpenAPI answers seen so far), installs process handlers, or its timing assertions need the process
 * fresh.
 */
const ALONE = /^\/\/ tap-files: alone\b/m;
/** The PostgreSQL re-runs of other files: they set DOMMON_TEST_ENGINE, all to the same value. */
const PG_RERUN = /^\s*process\.env\.DOMMON_TEST_ENGINE = 'postgres';$/m;
/**
 * A group is cut before it would exceed either bound: its files' expected wall times added up (a group
 * is one process among those running and must not be the run's long tail), and how many files it holds.
 * A file expected to take half the wall bound or more runs alone: its start is a small part of its cost.
 * A process costs about 0.75 s of CPU before its files' own work (loading ~0.43 s, the first app's cold
 * start ~0.3 s; a later app ~0.07 s): with the suite filling both cores that is wall time too. Bounds of
 * 60 s and 20 files (30 s and 12 before) cut test/pg and test/cli from 48 processes to 29 and their CPU
 * from 283 to 269 s, PostgreSQL's not counted; 90 s (60 before) the whole suite from 64 processes to 47
 * and its CPU from 653 to 595 s (docs/testing.md).
 */
const GROUP_WALL_MS = 90_000;
const GROUP_FILES = 20;

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

// At most this many processes at once (`--jobs=N`), and at most as many as keep `--cpus=N` cores busy
// (default: this machine's), by each running file's share of a core (its recorded CPU over its wall
// time; see `admit` below).
let jobs = 8;
let cpus = os.availableParallelism();
let alone = false;
/** `--list`: print the units (what runs in one process), their expected wall time and core share, and stop. */
let list = false;
/** `--reserve-while=FILE`: while FILE exists (the static checks run beside), one core fewer is filled. */
let reserveWhile = '';
const named = [];
for (const arg of process.argv.slice(2)) {
  const j = /^--jobs=(\d+)$/.exec(arg);
  const c = /^--cpus=(\d+(?:\.\d+)?)$/.exec(arg);
  if (j) jobs = Number(j[1]);
  else if (c) cpus = Number(c[1]);
  else if (arg === '--alone') alone = true;
  else if (arg === '--list') list = true;
  else if (arg.startsWith('--reserve-while=')) reserveWhile = arg.slice('--reserve-while='.length);
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
/** This checkout's figures over the repository's: the machine that runs is the one that recorded them. */
for (const source of [BASELINE, TIMES])
  try {
    Object.assign(times, JSON.parse(fs.readFileSync(source, 'utf8')));
  } catch {
    // no run recorded yet
  }

/**
 * A file's expected wall time (ms): its recorded one; else (a new file) a guess from what it starts (the
 * medians recorded on the busy development machine, load 10-17: 14 s, 8.6 s and 1.4 s; less on a quiet
 * one): one that runs `dommon` commands or daemons (test/support/cli.ts, spawn-dommon.ts) 12 s, one
 * that starts the app in-process or a browser 5 s, any other 2 s; a PostgreSQL re-run twice the file it
 * runs again.
 */
function expectedMs(file) {
  if (times[file]) return times[file].wallMs;
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const rerun = PG_RERUN.test(text) && /await import\('(\.\.\/[\w/-]+\.test)\.js'\)/.exec(text);
  if (rerun) {
    const original = path.posix.join(path.posix.dirname(file), rerun[1]);
    for (const ext of ['.ts', '.tsx'])
      if (fs.existsSync(path.join(ROOT, original + ext))) return 2 * expectedMs(original + ext);
  }
  if (/support\/(?:cli|spawn-dommon)\.js'/.test(text)) return 12_000;
  if (/support\/(?:app|browser)\.js'/.test(text)) return 5_000;
  return 2_000;
}

/**
 * Which files may share a process, by key: a file's folder, the PostgreSQL re-runs apart from the rest
 * of test/pg/ (a re-run imports the file it runs again, which must then not have run in that process);
 * null for a file that runs alone.
 */
function groupKey(file) {
  if (expectedMs(file) * 2 >= GROUP_WALL_MS) return null;
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  if (ALONE.test(text)) return null;
  // A file's `t` is its subtest only through the default import (a named one would be tap's root).
  const imports = text.match(/^import [^;]*? from 'tap';$/gm) ?? [];
  if (!imports.every((i) => /^import (?:t|t, \{ type \w+ \}|type \{[^}]*\}) from 'tap';$/.test(i))) return null;
  const dir = path.posix.dirname(file);
  return PG_RERUN.test(text) ? `${dir}/ re-runs` : `${dir}/`;
}

/**
 * What runs, one process each: `{ name, files, ms, cpuMs }`, a file alone (its name the file's) or a
 * group (`group test/api/ 2/4 (9 files)`), longest first (longest first packs the lanes best); a unit
 * holding a file with no figures (a new one) first of all.
 */
const units = [];
const byKey = new Map();
for (const file of [...files].sort()) {
  const key = alone || files.length === 1 ? null : groupKey(file);
  if (key === null) units.push({ name: file, files: [file], ms: expectedMs(file) });
  else byKey.set(key, [...(byKey.get(key) ?? []), file]);
}
for (const [key, members] of byKey) {
  const groups = [];
  for (const file of members) {
    const last = groups.at(-1);
    const ms = expectedMs(file);
    if (last && last.files.length < GROUP_FILES && last.ms + ms <= GROUP_WALL_MS) {
      last.files.push(file);
      last.ms += ms;
    } else groups.push({ files: [file], ms });
  }
  const shared = groups.filter((g) => g.files.length > 1);
  for (const g of groups) {
    const nth = shared.length > 1 ? ` ${shared.indexOf(g) + 1}/${shared.length}` : '';
    units.push({ name: g.files.length === 1 ? g.files[0] : `group ${key}${nth} (${g.files.length} files)`, ...g });
  }
}
/** Whether a unit holds a file with no recorded figures (a new one). */
const unknown = (u) => u.files.some((f) => !times[f]);
units.sort((a, b) => Number(unknown(b)) - Number(unknown(a)) || b.ms - a.ms || a.name.localeCompare(b.name));

/**
 * How much of a core a unit keeps busy while it runs: its files' recorded CPU (their own and their
 * `dommon` commands' and daemons') over their wall time, at most half the cores (a file of commands may
 * keep more than one core busy; two such still run at once) and at least a tenth (a file waiting on
 * timers still wakes). A file with no figures counts half a core over its expected time: counted as a
 * whole core, a group holding one new file (3 s of its 67) was the only unit admitted beside the static
 * checks for the first minute of a clean clone's run.
 */
function coreShare(unit) {
  const cpuMs = unit.files.reduce((sum, f) => sum + (times[f] ? times[f].cpuMs : expectedMs(f) / 2), 0);
  return Math.min(cpus / 2, Math.max(0.1, cpuMs / Math.max(1, unit.ms)));
}

if (list) {
  for (const u of units)
    console.log(`${(u.ms / 1000).toFixed(1).padStart(6)} s  ${coreShare(u).toFixed(2)}  ${u.name}`);
  console.log(`${units.length} processes for ${files.length} files`);
  process.exit(0);
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
        // The files' `import t from 'tap'` is tap's root in a file's own process and the file's own
        // subtest in a group's (scripts/tap-group.mjs), the same module a group's entry imports.
        name: 'tap-group',
        setup(b) {
          b.onResolve({ filter: /^tap$/ }, () => ({ path: TAP_GROUP, external: true }));
        },
      },
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
/** When each unit started and ended (ms from the first start) and its core share: `.tap/timeline.json`. */
const timeline = [];
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
  if (timeline.length)
    fs.writeFileSync(path.join(ROOT, '.tap/timeline.json'), `${JSON.stringify(timeline, null, 1)}\n`);
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

// The runner itself has no time limit; each file has FILE_TIMEOUT (60 s: twice tap's default, which a
// file of 8-12 s ran past on a host busy with PostgreSQL's share of the run), counted again from every
// `# timeout=` its own t.setTimeout() prints (test/support/cli.ts's progressed()); a group's process
// has its running file's limit plus a margin, and each of its files its own (scripts/tap-group.mjs).
const FILE_TIMEOUT = 60_000;
t.setTimeout(0);
t.jobs = Math.max(1, Math.min(jobs, units.length));
t.plan(units.length);
const cpuRecorder = pathToFileURL(path.join(ROOT, 'scripts/tap-cpu.mjs')).href;
const bundle = (file) => path.join(outdir, file.replace(/\.tsx?$/, '.js'));
const groupsDir = path.join(outdir, 'groups');

/** Starts one unit's process under tap's root; resolves when it has ended. */
function spawnUnit(unit, i) {
  let entry = bundle(unit.name);
  if (unit.files.length > 1) {
    // One entry per group: imports its files' bundles one after another, each under its own subtest.
    fs.mkdirSync(groupsDir, { recursive: true });
    entry = path.join(groupsDir, `group-${i}.mjs`);
    const list = unit.files.map(
      (f) => `  [${JSON.stringify(f)}, () => import(${JSON.stringify(pathToFileURL(bundle(f)).href)})],`,
    );
    fs.writeFileSync(
      entry,
      `import { runGroup } from ${JSON.stringify(TAP_GROUP)};\nawait runGroup([\n${list.join('\n')}\n]);\n`,
    );
  }
  // `t.spawn` puts tap's process-info loader into the child's NODE_OPTIONS whatever `env` says;
  // `env -u NODE_OPTIONS` drops it between that and node (the child keeps the same pid).
  return t.spawn(
    'env',
    ['-u', 'NODE_OPTIONS', process.execPath, '--enable-source-maps', `--import=${cpuRecorder}`, entry],
    {
      name: unit.name,
      externalID: unit.name,
      cwd: ROOT,
      // A group's files record their own figures (scripts/tap-group.mjs); its process records none.
      env: {
        ...process.env,
        DOMMON_TAP_FILE: unit.files.length > 1 ? '' : unit.name,
        DOMMON_TAP_TIMES: runTimes,
        // The child's own root limit (tap reads it in seconds), the same as its runner's below.
        TAP_TIMEOUT: String(FILE_TIMEOUT / 1000),
      },
      buffered: t.jobs > 1,
      timeout: FILE_TIMEOUT,
      at: null,
      stack: '',
    },
  );
}

// Admission: the units start in their order (longest first), the next one as soon as it fits: fewer than
// `--jobs` processes run and the running ones' core shares plus its own stay within `--cpus` cores, or
// fewer than two run at all. Most of the long files wait (intervals, leases, peers, a browser) and keep a
// fraction of a core busy, so several of them run beside the files that compute; a fixed number of
// processes at once either left the cores idle while the long files waited or, raised, ran the files
// that compute several to a core (docs/testing.md, keeping the suite fast). A unit that does not fit
// waits for the next to end: none overtakes it, or the files that compute most would end the run.
const queue = units.map((unit, i) => ({ unit, i, share: coreShare(unit) }));
let running = 0;
let busy = 0;
const runStarted = performance.now();
const since = () => Math.round(performance.now() - runStarted);
/** The cores to fill now: one fewer while what runs beside (the static checks) runs. */
const budget = () => (reserveWhile && fs.existsSync(reserveWhile) ? Math.max(1, cpus - 1) : cpus);
function admit() {
  const cores = budget();
  while (queue.length && running < t.jobs && (running < 2 || busy + queue[0].share <= cores + 1e-9)) {
    const { unit, i, share } = queue.shift();
    running += 1;
    busy += share;
    const entry = { name: unit.name, share: Number(share.toFixed(2)), startMs: since(), endMs: 0 };
    timeline.push(entry);
    spawnUnit(unit, i).finally(() => {
      entry.endMs = since();
      running -= 1;
      busy -= share;
      admit();
    });
  }
}
admit();
// The reserved core comes back when the file goes: admit again meanwhile, not only when a file ends.
if (reserveWhile) {
  const poll = setInterval(() => {
    admit();
    if (!queue.length || !fs.existsSync(reserveWhile)) clearInterval(poll);
  }, 1000);
  poll.unref();
}
