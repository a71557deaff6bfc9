#!/usr/bin/env node
// Runs the whole tap suite and ends with the line CI reads: `N passed, N failed`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { procCpu } from './proc-cpu.mjs';

const filesRunner = new URL('./tap-files.mjs', import.meta.url).pathname;

// Node reads NODE_EXTRA_CA_CERTS at the start of every process, whatever the process then does. With a
// system bundle there (some hosts set it so that npm reaches its registry through a proxy) that is (here) 144
// certificates parsed: 400 million instructions, 40-45 ms of CPU a process on a slow host, and the run
// starts well over a thousand node processes (commands, daemons, test files, the static checks). Nothing
// in the run reaches past loopback, and the tests that speak TLS bring their own CA (a test that wants
// a child to trust one sets the variable for that child), so the run goes without it.
delete process.env.NODE_EXTRA_CA_CERTS;

// In CI (.ci/run sets CI) a whole-suite run also runs the static checks, at once and beside the test
// files; each one that fails counts as a failed test, so the last line still tells. The test files fill
// the cores by their recorded CPU (scripts/tap-files.mjs), so while the checks run the files are given
// one core fewer (`--reserve-while`): at a lower priority beside a full set of files the checks got a
// tenth of a core and `lint` ended the run (496 s of a 496 s run). Each one's output is printed whole
// after the test files' TAP. `check:code` is `typecheck:all` and `lint` on one pair of TypeScript programs
// (scripts/check-code.mjs). Locally: `npm run check:code` (or `lint`, `typecheck:all`), `npm run knip`,
// `npm run format:check`.
const ci = Boolean(process.env.CI) && !['0', 'false'].includes(process.env.CI);
// A whole-suite run is one without test files or folders named; `npm test -- --jobs=6` is one too.
const checking = ci && process.argv.slice(2).every((arg) => arg.startsWith('-'));
const failedChecks = [];

/** Runs a command to its end, its stdout and stderr kept together; resolves to [exit code, output, ms]. */
function run(command, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('error', (err) => resolve([1, `${output}${err.message}\n`, Date.now() - started]));
    child.once('close', (code) => resolve([code ?? 1, output, Date.now() - started]));
  });
}

/** Runs one check; resolves to its output and status line, printed after the tests' TAP. */
const check = async (name) => {
  const [code, output, ms] = await run('npm', ['run', '--silent', name]);
  if (code !== 0) failedChecks.push(name);
  return `${output}# check ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${(ms / 1000).toFixed(0)} s)\n`;
};

const started = Date.now();
/** Exists while the static checks run: scripts/tap-files.mjs keeps a core for them meanwhile. */
const checksRunning = new URL(`../.tap/checks-running-${process.pid}`, import.meta.url).pathname;
if (checking) {
  fs.mkdirSync(new URL('../.tap/', import.meta.url), { recursive: true });
  fs.writeFileSync(checksRunning, '');
  process.on('exit', () => fs.rmSync(checksRunning, { force: true }));
}
const checks = checking
  ? Promise.all(['check:code', 'knip', 'format:check'].map(check)).then((outputs) => {
      fs.rmSync(checksRunning, { force: true });
      return [...outputs, `# static checks: ${((Date.now() - started) / 1000).toFixed(0)} s\n`];
    })
  : Promise.resolve([]);

/** Per file, `{ wallMs, cpuMs, childCpuMs }` of its latest run (scripts/tap-files.mjs writes it). */
function recordedTimes() {
  try {
    return JSON.parse(fs.readFileSync(new URL('../.tap/times.json', import.meta.url), 'utf8'));
  } catch {
    return {};
  }
}

// The files run compiled, without tap's runner and its loaders (scripts/tap-files.mjs), as many at once
// as keep this machine's cores busy by their recorded CPU and wall times (at most eight processes).
// Arguments: test files or folders, `--jobs=N` (processes at most), `--cpus=N` (cores to fill).
const args = [...(checking ? [`--reserve-while=${checksRunning}`] : []), ...process.argv.slice(2)];
const child = spawn(process.execPath, [filesRunner, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });

let summary = null;
let tail = '';
/**
 * [ms, file] of every test file, from tap's `ok N - test/x.test.ts # time=...ms` lines: the top-level
 * ones of the files that ran alone, those one level down of the files that ran in a group's process
 * (scripts/tap-files.mjs: `group test/api/ 2/4 (9 files)`).
 */
const fileTimes = [];
/** A group's process, as tap-files.mjs names it. */
const GROUP = /^group \S+/;
/**
 * Every failed assertion, as its path (file > subtest > ... > assertion) and the first lines of its
 * diagnostic, repeated after the whole run: CI keeps only the end of the output, and a failure in the
 * middle of 20,000 lines of TAP is otherwise lost.
 */
const failures = [];
/** The names of the open subtests, by depth (four spaces each). */
const subtests = [];
/** The failure whose YAML diagnostic is being read, and how many of its lines are kept. */
let diagnostic = null;
/** Takes one line of the runner's TAP into `failures`. */
function noteFailure(line) {
  const depth = Math.floor((/^ */.exec(line)?.[0].length ?? 0) / 4);
  const body = line.trim();
  if (diagnostic) {
    if (body === '...' || depth < diagnostic.depth) diagnostic = null;
    else if (body !== '---' && diagnostic.lines.length < 150) diagnostic.lines.push(body.slice(0, 200));
    if (diagnostic) return;
  }
  const subtest = /^# Subtest: (.*)$/.exec(body);
  if (subtest) {
    subtests.length = depth;
    subtests[depth] = subtest[1];
    return;
  }
  const notOk = /^not ok \d+ - (.*?)(?: # time=[\d.]+ms)?$/.exec(body);
  if (!notOk || /# (?:TODO|SKIP)/i.test(body)) return;
  // A failure in a group's process is named from its file down (the group's name says no more).
  const names = [...subtests.slice(0, depth), notOk[1]];
  const full = names.join(' > ');
  // A failed subtest repeats as `not ok` at each level above it: keep the deepest one only.
  if (failures.some((f) => f.full.startsWith(`${full} > `))) return;
  const path = (GROUP.test(names[0]) && names.length > 1 ? names.slice(1) : names).join(' > ');
  diagnostic = { path, full, depth, lines: [] };
  failures.push(diagnostic);
}
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = tail + chunk.toString();
  const lines = text.split('\n');
  tail = lines.pop() ?? '';
  for (const line of lines) {
    const m = /^# (\{.*\})\s*$/.exec(line);
    if (m && m[1].includes('total')) summary = m[1];
    const f = /^( {4})?(?:not )?ok \d+ - (\S+) .*# time=([\d.]+)ms/.exec(line);
    if (f && (f[1] ? GROUP.test(subtests[0] ?? '') : f[2] !== 'group')) fileTimes.push([Number(f[3]), f[2]]);
    noteFailure(line);
  }
});

child.on('close', async (code) => {
  const checkOutputs = await checks;
  for (const output of checkOutputs) process.stdout.write(output);
  if (tail) {
    const m = /^# (\{.*\})\s*$/.exec(tail);
    if (m && m[1].includes('total')) summary = m[1];
  }
  const num = (key) => Number(new RegExp(`${key}:\\s*(\\d+)`).exec(summary ?? '')?.[1] ?? 0);
  const passed = num('pass');
  let failed = num('fail');
  if (code !== 0 && failed === 0) failed = 1; // a crashed file or runner error still fails the run
  failed += failedChecks.length;
  if (failedChecks.length) process.stdout.write(`\n# failed checks: ${failedChecks.join(', ')}\n`);
  // The slowest files, to keep an eye on the suite's time (docs/testing.md): wall time and CPU (user +
  // sys of the file's process and of the commands and daemons it started).
  if (fileTimes.length > 30) {
    const recorded = recordedTimes();
    const cpu = (file) => recorded[file]?.cpuMs ?? 0;
    const sum = fileTimes.reduce((s, [ms]) => s + ms, 0) / 1000;
    const cpuSum = fileTimes.reduce((s, [, file]) => s + cpu(file), 0) / 1000;
    process.stdout.write(
      `\n# slowest files (wall s, CPU s; the ${fileTimes.length} files' own times add up to ${sum.toFixed(0)} s, their CPU to ${cpuSum.toFixed(0)} s):\n`,
    );
    for (const [ms, file] of fileTimes.sort((a, b) => b[0] - a[0]).slice(0, 30))
      process.stdout.write(
        `#   ${(ms / 1000).toFixed(1).padStart(6)} ${(cpu(file) / 1000).toFixed(1).padStart(6)}  ${file}\n`,
      );
  }
  if (failures.length) {
    process.stdout.write(`\n# failed (${failures.length}):\n`);
    for (const f of failures.slice(0, 40)) {
      process.stdout.write(`# - ${f.path}\n`);
      // What was seen and wanted, a timeout or signal, and where: the diagnostic's telling lines.
      const file = f.lines.find((l) => l.startsWith('fileName:'));
      const lineNo = f.lines.find((l) => l.startsWith('lineNumber:'));
      const told = f.lines.filter((l) =>
        /^(found|wanted|doesNotMatch|pattern|message|timeout|signal|expired|code):/.test(l),
      );
      const diff = f.lines.slice(f.lines.indexOf('diff: |') + 1);
      if (f.lines.includes('diff: |'))
        told.push(...diff.filter((l) => /^[-+](?![-+]{2} )/.test(l) && !/^-+\^$/.test(l)).slice(0, 6));
      if (file) told.push(`at ${file.slice(10)}${lineNo ? `:${lineNo.slice(12)}` : ''}`);
      for (const l of told.slice(0, 10)) process.stdout.write(`#     ${l}\n`);
    }
  }
  // user + sys of this process and every process it waited for, their descendants included (Linux).
  const cpuAll = procCpu().reduce((a, b) => a + b, 0) / 1000;
  process.stdout.write(`# npm test: ${((Date.now() - started) / 1000).toFixed(0)} s, ${cpuAll.toFixed(0)} s of CPU\n`);
  const skipped = num('skip') + num('todo');
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failedChecks.length ? 1 : (code ?? 1));
});
