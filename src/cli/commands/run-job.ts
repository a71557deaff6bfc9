// `dommon run --ping KEY -- CMD...`: runs a cron job and reports it to a push endpoint's ping URLs
// (Healthchecks.io's form, so any compatible server works): a start ping, CMD with its stdio passed
// through, then a success ping or /<exit status> with the tail of its output as the body. dommon exits
// with CMD's status; a ping that cannot be delivered is retried briefly, then warned about on stderr,
// and never changes the exit status.
import { constants } from 'node:os';
import type { Command } from 'commander';
import { run } from '../run.js';
import { UsageError } from '../output.js';
import { addOptions, convert, withExamples, type OptSpec } from '../spec.js';

/** The most of the job's output (stdout and stderr, interleaved) sent with its finish ping: its last bytes. */
const TAIL_BYTES = 10_000;
/** Attempts per ping, the waits between them, and the time limit of one attempt. */
const RETRY_WAITS_MS = [500, 1500];

const options: OptSpec[] = [
  { flags: '--ping <key>', description: "the push endpoint's ping key (its create answer's ping_key)", required: true },
  {
    flags: '--ping-url <url>',
    description: 'base URL of the ping URLs, e.g. https://dommon.example.com (default: --remote / DOMMON_URL)',
  },
  {
    flags: '--ping-timeout <s>',
    description: 'seconds one ping attempt may take (each ping is tried 3 times)',
    kind: 'int',
    default: '10',
  },
];

/** Keeps the last `max` bytes written to it. */
function tail(max: number) {
  let chunks: Buffer[] = [];
  let size = 0;
  return {
    push(b: Buffer): void {
      chunks.push(b);
      size += b.length;
      while (size - chunks[0]!.length >= max) size -= chunks.shift()!.length;
    },
    text(): string {
      const all = Buffer.concat(chunks);
      chunks = [all];
      return all.subarray(Math.max(0, all.length - max)).toString('utf8');
    },
  };
}

/** One ping, retried briefly; a failure is a warning on stderr, never an exception. */
async function ping(url: string, timeoutMs: number, body?: string): Promise<void> {
  let last = '';
  for (let attempt = 0; attempt <= RETRY_WAITS_MS.length; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, RETRY_WAITS_MS[attempt - 1]));
    try {
      // node:http, not fetch (../http.ts, loaded here: other commands need neither it nor node:http);
      // a redirect is not followed (as `curl -fsS` does not).
      const { httpSend } = await import('../http.js');
      const r = await httpSend(url, {
        method: body === undefined ? 'GET' : 'POST',
        body,
        headers: body === undefined ? {} : { 'content-type': 'text/plain; charset=utf-8' },
        timeoutMs,
      });
      if (r.status >= 200 && r.status < 300) return;
      last = `HTTP ${r.status}`;
      // A key the server does not know is not retried: it will not know it a second later.
      if (r.status === 404) break;
    } catch (err) {
      const e = err as Error & { code?: string };
      last = e.code ?? e.message;
    }
  }
  // The key is cut as in the server's log.
  process.stderr.write(`dommon run: warning: ping ${url.replace(/(\/ping\/[^/]{8})[^/]*/, '$1…')} failed: ${last}\n`);
}

/** CMD's exit status as a shell gives it: its code, or 128 + the signal that ended it. */
function statusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

export function runJobCommand(program: Command): void {
  const cmd = program
    .command('run')
    .argument('<command...>', 'the command to run and its arguments (after --)')
    .description(
      "run a cron job and report it to a push endpoint's ping URLs: start, then success or its exit status with the tail of its output; exits with the job's status",
    );
  addOptions(cmd, options);
  withExamples(cmd, [
    'dommon run --ping 5f3c...e1 --ping-url https://dommon.example.com -- /usr/local/bin/backup.sh --full',
    'DOMMON_URL=https://dommon.example.com dommon run --ping 5f3c...e1 -- pg_dump -f /var/backups/db.sql app',
  ]);
  cmd.action(
    run(async (ctx, command: string[], o: Record<string, unknown>) => {
      const key = String(o.ping ?? '');
      if (!/^[^/\s]{1,100}$/.test(key)) throw new UsageError('--ping must be a ping key (no slashes or spaces)');
      const base = (o.pingUrl as string | undefined) ?? ctx.config.remoteUrl;
      if (!base) throw new UsageError('where to ping: --ping-url URL, or --remote / DOMMON_URL');
      let root: URL;
      try {
        root = new URL(base);
      } catch {
        throw new UsageError(`--ping-url is not a URL: ${base}`);
      }
      if (!['http:', 'https:'].includes(root.protocol)) throw new UsageError('--ping-url must be http or https');
      const timeout = convert('int', o.pingTimeout, '--ping-timeout') as number;
      if (!(timeout >= 1)) throw new UsageError('--ping-timeout must be at least 1 second');
      const url = `${root.origin}${root.pathname.replace(/\/+$/, '')}/ping/${encodeURIComponent(key)}`;
      const [file, ...args] = command;
      if (!file) throw new UsageError('no command to run (dommon run --ping KEY -- CMD ...)');

      await ping(`${url}/start`, timeout * 1000);
      const { spawn } = await import('node:child_process');
      const out = tail(TAIL_BYTES);
      const status = await new Promise<number>((resolve) => {
        const child = spawn(file, args, { stdio: ['inherit', 'pipe', 'pipe'] });
        child.stdout.on('data', (b: Buffer) => {
          process.stdout.write(b);
          out.push(b);
        });
        child.stderr.on('data', (b: Buffer) => {
          process.stderr.write(b);
          out.push(b);
        });
        // Signals meant for the job reach it; dommon waits for it to end and reports how.
        const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
        const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
        for (const [s, h] of handlers) process.on(s, h);
        const done = (n: number) => {
          for (const [s, h] of handlers) process.off(s, h);
          resolve(n);
        };
        child.once('error', (err: NodeJS.ErrnoException) => {
          // As a shell: 127 when the command is not found, 126 when it cannot be run.
          const line = `dommon run: ${file}: ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`;
          process.stderr.write(line);
          out.push(Buffer.from(line));
          done(err.code === 'ENOENT' ? 127 : 126);
        });
        child.once('close', (code, signal) => done(statusOf(code, signal)));
      });
      await ping(status === 0 ? url : `${url}/${Math.min(status, 255)}`, timeout * 1000, out.text());
      process.exitCode = status;
    }),
  );
}
