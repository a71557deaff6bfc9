// Entry point of bin/dommon.js: runs the program and turns failures into the contract's exit codes.
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { exitCodeFor } from './output.js';

async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return;
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`dommon: ${(err as Error).message}\n`);
    process.exitCode = exitCodeFor(err);
  }
}

await main();
