// Entry point of bin/dommon.js: runs the program and turns failures into the contract's exit codes.
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { errorLine, exitCodeFor } from './output.js';

async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return;
      // `dommon help` is fine; `dommon` alone (help shown as an error) is a usage error
      if (err.code === 'commander.help') {
        process.exitCode = err.exitCode ? 2 : 0;
        return;
      }
      // commander already printed its one-line message (configureOutput in program.ts)
      process.exitCode = 2;
      return;
    }
    process.stderr.write(errorLine(err));
    process.exitCode = exitCodeFor(err);
  }
}

await main();
