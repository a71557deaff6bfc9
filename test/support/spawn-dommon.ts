// The built dommon CLI in a child process for the operations tests: one command to completion, or
// the daemon. Both run through cli.ts (the runner's hooks stripped from the environment, dist/ built
// first when stale); these only pick the log level those tests read.
import { cli, ensureBuilt, serveDaemon as serveChild, type CliResult, type Daemon } from './cli.js';

/** One command to completion. env holds DOMMON_* overrides. */
export async function dommon(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<CliResult> {
  await ensureBuilt();
  return cli(args, { env: { DOMMON_LOG_LEVEL: 'warn', ...env }, timeoutMs });
}

/** `dommon ...args serve --port 0`, logging at info; resolves once it printed `listening on URL`. */
export function serveDaemon(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Daemon> {
  return serveChild(args, { DOMMON_LOG_LEVEL: 'info', ...env }, timeoutMs);
}
