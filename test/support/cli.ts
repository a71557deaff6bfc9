// Runs the BUILT command line (bin/dommon.js -> dist/) as a child process, the way users and cron do.
// The first caller builds dist/ when it is missing or older than src/ (a lock dir keeps parallel test
// files from building twice).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_PASSWORD_ENV } from './passwords.js';
import './http-client.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/dommon.js');

/**
 * `[command, args]` that start `node ...args` without tap's process-info loader. Under tap every spawn is
 * hooked to put that loader back into the child's NODE_OPTIONS, whatever `env` says; it more than doubles
 * a command's CPU (`dommon token list` 0.19 -> 0.45 s) and records nothing the suite uses (coverage is off).
 * `env -u NODE_OPTIONS` drops it between the hook and node; the child keeps the same pid.
 */
export function nodeCommand(args: string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', process.execPath, ...args]];
}

function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

function stale(): boolean {
  const main = path.join(ROOT, 'dist/bundle/main.js');
  return !fs.existsSync(main) || fs.statSync(main).mtimeMs < newest(path.join(ROOT, 'src'));
}

export async function ensureBuilt(): Promise<void> {
  if (!stale()) return;
  const lock = path.join(ROOT, 'dist.build-lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 120_000)
        fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!stale()) return;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/compile.mjs')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
    // bin/dommon.js runs the esbuild bundle of dist's sources (a fresh file on every run)
    const b = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`bundle failed:\n${b.stdout}${b.stderr}`);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

type Running = {
  options: { timeout?: number };
  start?: bigint;
  setTimeout(n: number): void;
  activeSubtests?: Set<unknown>;
};

/** Per running test: its own limit, and the limit progressed() last gave it. */
const limits = new WeakMap<object, { own: number; given: number }>();

/**
 * Counts the running tests' time limits from now: the file's own (its runner hears of it) and each
 * running subtest's, each given its own limit again. Every child process these helpers start calls it
 * when it starts and when it ends, so a test's limit is how long it may go without a process starting
 * or ending, not how long all of them may take: on a busy machine a command that takes 0.5 s may take
 * 5-15 s (a file of 30 commands then needs minutes), and what must still fail is a step that hangs.
 * tap also fails a test whose whole run outlasted its limit when it ends, so the limit given is the
 * time run so far plus its own (a subtest's timer is set to its own limit from now).
 */
export function progressed(): void {
  const rearm = (x: Running, root: boolean) => {
    const timeout = x.options.timeout;
    if (timeout) {
      const known = limits.get(x);
      const own = known && known.given === timeout ? known.own : timeout;
      // The root's runner times the file from its spawn, a little before this process started.
      const ran = root ? performance.now() + 2000 : x.start ? Number(process.hrtime.bigint() - x.start) / 1e6 : 0;
      const given = Math.ceil(ran) + own;
      limits.set(x, { own, given });
      if (root) x.setTimeout(given);
      else {
        x.setTimeout(own);
        x.options.timeout = given;
      }
    }
    for (const sub of x.activeSubtests ?? []) rearm(sub as Running, false);
  };
  // The process's tap root, where tap keeps it; absent (nothing to do) in a process that loaded no tap,
  // such as a benchmark's peer that imports test/support: importing tap here would make it print TAP.
  const root = (globalThis as Record<symbol, unknown>)[Symbol.for('TAP private constructor')];
  if (root) rearm(root as Running, true);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not) */
  json: any;
}

interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Every process on one PostgreSQL database needs the same secret key (docs/scale-out.md), as every node
 * of a real cluster does: the tests' processes and apps on PostgreSQL share this one unless a test names
 * a key (or `DOMMON_SECRET_KEY: undefined`, for the key file of the data directory).
 */
const PG_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** env with PG_SECRET_KEY added when the process works on PostgreSQL and names no key of its own. */
export function withPgKey<E extends Record<string, string | undefined>>(env: E, args: readonly string[] = []): E {
  const pg = Boolean(env.DOMMON_DATABASE_URL) || args.some((a) => a.startsWith('--database-url'));
  return pg && !('DOMMON_SECRET_KEY' in env) && !('DOMMON_SECRET_KEY_FILE' in env)
    ? { DOMMON_SECRET_KEY: PG_SECRET_KEY, ...env }
    : env;
}

/** `dommon ...args`; env has no DOMMON_* from the parent, NO_COLOR unset unless given. */
export function cli(args: string[], o: CliOptions = {}): Promise<CliResult> {
  const env = cleanEnv(withPgKey(o.env ?? {}, args));
  progressed();
  return new Promise((resolve, reject) => {
    const child = spawn(...nodeCommand([BIN, ...args]), { cwd: o.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 90_000);
    child.once('error', reject);
    const started = Date.now();
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      progressed();
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      // A process ended by a signal says which, and when, in its stderr: a failing assertion on the
      // code then shows why (our timeout's SIGKILL, a crash's SIGSEGV, the OOM killer's SIGKILL).
      if (code === null)
        stderr += `\n[cli helper] dommon ${args.join(' ')}: ended by ${signal} after ${Date.now() - started} ms`;
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** A bound runner for one data dir: run('domains', 'list', '--json'). */
export function cliIn(dataDir: string, env: Record<string, string> = {}) {
  return (...args: string[]) => cli(['--data-dir', dataDir, ...args], { env });
}

/** Runs `dommon ...args` to completion (env: extra variables; DOMMON_* of the test runner are dropped). */
export function dommon(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return cli(args, { env, input });
}

const OFFLINE = {
  DOMMON_DNS_SERVERS: '127.0.0.1:9',
  DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
  DOMMON_WHOIS_SERVER: '127.0.0.1:9',
  DOMMON_IANA_WHOIS: '127.0.0.1:9',
};

/** The runner's environment without DOMMON_*, colour switches and tap's hooks (NODE_OPTIONS holds its
 * process-info loader): the CLI starts as it would in a user's shell, and much faster. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(DOMMON_|TAP|_TAPJS|NODE_OPTIONS$|NO_COLOR$|FORCE_COLOR$)/.test(k)) env[k] = v;
  // DNS, RDAP and WHOIS default to a closed loopback port (as in startApp): no child ever reaches the internet.
  // Passwords hash at the tests' cost, as in startApp (test/support/passwords.ts).
  return { ...env, DOMMON_LOG_LEVEL: 'error', ...OFFLINE, ...TEST_PASSWORD_ENV, ...extra };
}

export interface Daemon {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `dommon ...args serve --port 0` in a child (built first when stale); resolves on the
 * `listening on http://...` line, rejects (and kills the child) when it exits or takes longer than timeoutMs.
 */
export async function serveDaemon(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<Daemon> {
  await ensureBuilt();
  progressed();
  return new Promise((resolve, reject) => {
    const child = spawn(...nodeCommand([BIN, ...args, 'serve', '--port', '0']), {
      cwd: ROOT,
      env: cleanEnv(withPgKey(env, args)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start in ${timeoutMs / 1000} s: ${out} ${err}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (err += d));
    let listening = false;
    child.stdout.on('data', (d) => {
      out += d;
      const m = listening ? null : /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        listening = true;
        clearTimeout(timer);
        progressed();
        resolve({
          child,
          url: m[1]!,
          stderr: () => err,
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}: ${out} ${err}`));
    });
  });
}

/** `dommon --data-dir DIR serve --port 0`, logging errors only. */
export function serve(dataDir: string, env: Record<string, string> = {}): Promise<Daemon> {
  return serveDaemon(['--data-dir', dataDir], env, 20_000);
}
