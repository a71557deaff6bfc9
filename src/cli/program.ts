// The dommon command line: commander program; each noun's commands live in commands/<noun>.ts.
import { Command } from 'commander';
import { VERSION } from '../app.js';
import { serveCommand } from './commands/serve.js';
import { tokenCommands, userCommands } from './commands/access.js';
import { resourceCommands } from './commands/resources.js';
import { opsCommands } from './commands/ops.js';

export function buildProgram(): Command {
  const program = new Command('dommon')
    .description('self-hosted domain and certificate monitor')
    .version(VERSION)
    .option('--data-dir <dir>', 'data directory (DOMMON_DATA_DIR, default ./.dommon)')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--team <name>', 'team to act on (default: the only team)')
    .option('--remote <url>', 'talk to a running daemon over the Public API (DOMMON_URL)')
    .option('--token <token>', 'API token for --remote (DOMMON_TOKEN)')
    .showHelpAfterError()
    .exitOverride();
  serveCommand(program);
  tokenCommands(program);
  userCommands(program);
  resourceCommands(program);
  opsCommands(program);
  return program;
}

