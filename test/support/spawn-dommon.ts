// Runs the built dommon CLI (bin/dommon.js, built first when dist/ is stale) in a child process,
// with the test runner's hooks stripped from the environment (see cli.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv, ensureBuilt } from './cli.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One command to completion. env holds DOMMON_* overrides. */
export async function dommon(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<CliResult> {
  await ensureBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv({ DOMMON_LOG_LEVEL: 'warn', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Daemon {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** `dommon serve` in a child; resolves once it printed `listening on URL`. */
export async function serveDaemon(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Daemon> {
  await ensureBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, 'serve', '--port', '0'], { cwd: ROOT, env: cleanEnv({ DOMMON_LOG_LEVEL: 'info', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start: ${err}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child, url: m[1]!, stderr: () => err,
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}: ${err}`));
    });
  });
}
