// What every command gets: config from flags + env, and (lazily) the local services it calls.
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/index.js';
import type { LocalServices } from '../services/database.js';
import { printer, type Printer } from './output.js';

export interface GlobalOpts {
  dataDir?: string;
  databaseUrl?: string;
  json?: boolean;
  team?: string;
  remote?: string;
  token?: string;
}

export interface CliContext {
  opts: GlobalOpts;
  config: Readonly<Config>;
  print: Printer;
  /**
   * Opens the local database once with the services a command calls directly (tokens, users, nodes);
   * closed by `close()`. Nothing else loads: resource commands speak the API (transport.ts).
   */
  local(): Promise<{ services: LocalServices }>;
  close(): Promise<void>;
}

export function cliContext(cmd: Command): CliContext {
  const opts = cmd.optsWithGlobals<GlobalOpts>();
  const config = loadConfig({
    dataDir: opts.dataDir,
    databaseUrl: opts.databaseUrl,
    remote: opts.remote,
    token: opts.token,
  });
  let opened: { services: LocalServices; close(): Promise<void> } | undefined;
  return {
    opts,
    config,
    print: printer(Boolean(opts.json)),
    async local() {
      // The store and these services load only for commands that open the database; not the API or the probes.
      opened ??= await (await import('../services/database.js')).openLocalServices(config);
      return opened;
    },
    async close() {
      await opened?.close();
    },
  };
}
