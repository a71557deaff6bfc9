#!/usr/bin/env node
// Runs the whole tap suite and ends with the line CI reads: `N passed, N failed`.
import { spawn } from 'node:child_process';

const filesRunner = new URL('./tap-files.mjs', import.meta.url).pathname;

// In CI (.ci/run sets CI) a whole-suite run first runs the static checks; each one that fails counts
// as a failed test, so the last line still tells. Locally: `npm run lint`, `npm run typecheck:all`,
// `npm run knip`, `npm run format:check`. Each is one process, so the four run at once (one after
// another they left a core idle). Each one's output is printed whole.
const ci = Boolean(process.env.CI) && !['0', 'false'].includes(process.env.CI);
const checking = ci && process.argv.length <= 2;
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

const check = async (name) => {
  const [code, output, ms] = await run('npm', ['run', '--silent', name]);
  if (code !== 0) failedChecks.push(name);
  process.stdout.write(`${output}# check ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${(ms / 1000).toFixed(0)} s)\n`);
};

const staticStarted = Date.now();
if (checking) {
  await Promise.all(['format:check', 'lint', 'typecheck:all', 'knip'].map(check));
  process.stdout.write(`# static checks: ${((Date.now() - staticStarted) / 1000).toFixed(0)} s\n`);
}

// The files run compiled, without tap's runner and its loaders (scripts/tap-files.mjs). Many wait on
// child processes, PostgreSQL, loopback peers and timers rather than the CPU: three at once keep 2 cores
// busier than two did (docs/testing.md, keeping the suite fast). Arguments: test files or folders.
const args = ['--jobs=3', ...process.argv.slice(2)];
const child = spawn(process.execPath, [filesRunner, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });

let summary = null;
let tail = '';
/** [ms, file] of every test file, from tap's top-level `ok N - test/x.test.ts # time=...ms` lines. */
const fileTimes = [];
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = tail + chunk.toString();
  const lines = text.split('\n');
  tail = lines.pop() ?? '';
  for (const line of lines) {
    const m = /^# (\{.*\})\s*$/.exec(line);
    if (m && m[1].includes('total')) summary = m[1];
    const f = /^(?:not )?ok \d+ - (\S+) .*# time=([\d.]+)ms/.exec(line);
    if (f) fileTimes.push([Number(f[2]), f[1]]);
  }
});

child.on('close', (code) => {
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
  // The slowest files, to keep an eye on the suite's time (docs/testing.md).
  if (fileTimes.length > 30) {
    const sum = fileTimes.reduce((s, [ms]) => s + ms, 0) / 1000;
    process.stdout.write(
      `\n# slowest files (s; the ${fileTimes.length} files' own times add up to ${sum.toFixed(0)} s):\n`,
    );
    for (const [ms, file] of fileTimes.sort((a, b) => b[0] - a[0]).slice(0, 30))
      process.stdout.write(`#   ${(ms / 1000).toFixed(1).padStart(6)}  ${file}\n`);
  }
  process.stdout.write(`# npm test: ${((Date.now() - staticStarted) / 1000).toFixed(0)} s\n`);
  const skipped = num('skip') + num('todo');
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failedChecks.length ? 1 : (code ?? 1));
});
