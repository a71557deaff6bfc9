// The dommon command line: commander program; each noun's commands live in commands/<noun>.ts as a
// table (spec.ts) that drives commander, --help and docs/cli.md.
import { Command } from 'commander';
import { VERSION } from '../package.js';
import { serveCommand } from './commands/serve.js';
import { tokenCommands, userCommands } from './commands/access.js';
import { registerCommand, registerNoun } from './spec.js';
import { portfoliosNoun } from './commands/portfolios.js';
import { maintenanceNoun } from './commands/maintenance.js';
import { auditNoun } from './commands/audit.js';
import { domainsNoun } from './commands/domains.js';
import { endpointsNoun } from './commands/endpoints.js';
import { livenessNoun } from './commands/liveness.js';
import { notificationsNoun } from './commands/notifications.js';
import { renewalsCommand } from './commands/renewals.js';
import { checkCommand } from './commands/check.js';
import { runJobCommand } from './commands/run-job.js';
import { statusCommand } from './commands/status.js';
import { opsCommands } from './commands/ops.js';
import { dbCommands } from './commands/db.js';
import { secretsCommands } from './commands/secrets.js';
import { completionCommand } from './commands/completion.js';
import { nodesCommand } from './commands/nodes.js';
import { importFromCommands } from './commands/import-from.js';
import { applyCommand, exportCommand } from './commands/config.js';

export function buildProgram(): Command {
  const program = new Command('dommon')
    .description('self-hosted domain and certificate monitor')
    .version(VERSION)
    .option('--data-dir <dir>', 'data directory (DOMMON_DATA_DIR, default ./.dommon)')
    .option(
      '--database-url <url>',
      'PostgreSQL database instead of DIR/dommon.db (DOMMON_DATABASE_URL; postgres://user:password@host:port/db)',
    )
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--team <name>', 'team to act on (default: the only team)')
    .option('--remote <url>', 'talk to a running daemon over the Public API (DOMMON_URL)')
    .option('--token <token>', 'API token for --remote (DOMMON_TOKEN)')
    .configureOutput({
      // Usage errors are one line on stderr (exit code 2 is set in main.ts).
      outputError: (str, write) =>
        write(
          `dommon: ${str
            .replace(/^error: /, '')
            .replace(/\s*\n\s*/g, ' ')
            .trim()} (see --help)\n`,
        ),
    })
    .exitOverride();
  serveCommand(program);
  tokenCommands(program);
  userCommands(program);
  for (const noun of [
    portfoliosNoun,
    domainsNoun,
    endpointsNoun,
    livenessNoun,
    notificationsNoun,
    maintenanceNoun,
    auditNoun,
  ])
    registerNoun(program, noun);
  registerCommand(program, renewalsCommand);
  checkCommand(program);
  runJobCommand(program);
  statusCommand(program);
  opsCommands(program);
  dbCommands(program);
  secretsCommands(program);
  nodesCommand(program);
  importFromCommands(program);
  registerCommand(program, applyCommand);
  exportCommand(program);
  completionCommand(program);
  return program;
}
