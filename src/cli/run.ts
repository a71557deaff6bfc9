// Wraps a command action: builds the context, prints a failure as one line, sets the exit code.
import type { Command } from 'commander';
import { cliContext, type CliContext } from './context.js';
import { errorLine, exitCodeFor } from './output.js';

export function run<A extends unknown[]>(fn: (ctx: CliContext, ...args: A) => Promise<void>) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    let ctx: CliContext | undefined;
    try {
      ctx = cliContext(cmd);
      // commander passes positional args, then options, then the command
      const positional = args.slice(0, -2);
      const options = args[args.length - 2];
      await fn(ctx, ...([...positional, options] as unknown as A));
    } catch (err) {
      process.stderr.write(errorLine(err));
      process.exitCode = exitCodeFor(err);
    } finally {
      await ctx?.close().catch(() => undefined);
    }
  };
}
