// Runs the BUILT command line (bin/dommon.js -> dist/) as a user would, building it first when dist/ is
// missing or older than src/. The build takes a lock so parallel test files build once.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/dommon.js');

function newest(dir: string): number {
  let m = 0;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, ent.name);
    m = Math.max(m, ent.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return m;
}

function fresh(): boolean {
  const main = path.join(ROOT, 'dist/cli/main.js');
  return fs.existsSync(main) && newest(path.join(ROOT, 'dist')) >= newest(path.join(ROOT, 'src'));
}

/** `npm run build` (tsc) unless dist/ is current. */
export async function ensureBuilt(): Promise<void> {
  if (fresh()) return;
  const lock = path.join(ROOT, '.build-lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // another test file is building; a lock older than 2 minutes is stale
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      await new Promise((r) => setTimeout(r, 200));
      if (fresh()) return;
    }
  }
  try {
    if (fresh()) return;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `dommon ...args` to completion (env: extra variables; DOMMON_* of the test runner are dropped). */
export function dommon(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Drop the runner's own hooks too (tap puts its process-info loader in NODE_OPTIONS): the CLI
  // starts as it would in a user's shell, and much faster.
  for (const [k, v] of Object.entries(process.env)) if (!/^(DOMMON_|TAP|_TAPJS|NODE_OPTIONS$)/.test(k)) env[k] = v;
  return { ...env, DOMMON_LOG_LEVEL: 'error', ...extra };
}

export interface Daemon {
  child: ChildProcess;
  url: string;
  stderr(): string;
}

/** `dommon serve --data-dir DIR --port 0`; resolves on the `listening on http://...` line. */
export function serve(dataDir: string, env: Record<string, string> = {}): Promise<Daemon> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', '0'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start in 20 s: ${out} ${err}`)), 20_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${out} ${err}`));
    });
  });
}
