// What every command gets: config from flags + env, and (lazily) the local services.
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/index.js';
import type { Services } from '../services/index.js';
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
  /** Opens the local database once (the services over it); closed by `close()`. */
  local(): Promise<{ services: Services }>;
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
  let opened: { services: Services; close(): Promise<void> } | undefined;
  return {
    opts,
    config,
    print: printer(Boolean(opts.json)),
    async local() {
      // app.js (koa, kysely, sqlite) loads only for commands that open the database
      opened ??= await (await import('../app.js')).openLocalServices(config);
      return opened;
    },
    async close() {
      await opened?.close();
    },
  };
}
