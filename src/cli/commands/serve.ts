import type { Command } from 'commander';
import { loadConfig } from '../../config/index.js';
import type { GlobalOpts } from '../context.js';
import { UsageError } from '../output.js';
import type { ConfigSync } from '../../api/config-sync.js';
import { linkUrl } from '../../domain/one-time-link.js';

interface ServeFlags {
  host?: string;
  port?: string;
  logLevel?: string;
  role?: string;
  nodeName?: string;
  region?: string;
  trustProxy?: boolean;
  publicUrl?: string;
  config?: string;
}

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the API and run every scheduler on the database (--role: API only or schedulers only)')
    .option('--host <host>', 'listen address (DOMMON_HOST)')
    .option('--port <port>', 'listen port, 0 picks a free one (DOMMON_PORT)')
    .option('--log-level <level>', 'debug, info, warn or error (DOMMON_LOG_LEVEL)')
    .option(
      '--role <role>',
      'all (API and every scheduler), api (API only) or worker (schedulers, /health and /metrics only) (DOMMON_ROLE, default all)',
    )
    .option(
      '--node-name <name>',
      "this node's name in logs, /metrics and the node list (DOMMON_NODE_NAME, default HOST-PID)",
    )
    .option('--region <region>', "this node's vantage point (DOMMON_NODE_REGION, default default)")
    .option(
      '--trust-proxy',
      'behind a reverse proxy: believe its X-Forwarded-Proto and X-Forwarded-For (DOMMON_TRUST_PROXY, default off)',
    )
    .option(
      '--public-url <url>',
      'the address people and jobs reach the daemon at, e.g. https://dommon.example.com; ping URLs are written on it (DOMMON_PUBLIC_URL, default: the address each request was sent to)',
    )
    .option(
      '--config <file>',
      'a configuration file to apply at start, on SIGHUP and whenever it changes; what it holds is read-only elsewhere (DOMMON_CONFIG)',
    )
    .action(async (flags: ServeFlags, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const config = loadConfig({ ...flags, dataDir: g.dataDir, databaseUrl: g.databaseUrl });
      // The daemon's modules load here, not for every command's --help.
      const [{ claimDataDir }, { metricsExposed }] = await Promise.all([
        import('../../services/maintenance.js'),
        import('../../api/routes/metrics.js'),
      ]);
      // A writable data directory, served by one daemon at a time (`dommon restore` checks the same lock).
      const release = claimDataDir(config);
      (await import('../heap.js')).tuneHeap();
      const { createApp } = await import('../../app.js');
      let app: Awaited<ReturnType<typeof createApp>>;
      try {
        app = await createApp(config);
      } catch (err) {
        release();
        throw new Error(`cannot open the database ${config.dbPath}: ${(err as Error).message}`);
      }
      // The configuration file is applied before the schedulers start; an invalid one stops the start
      // (exit 2, every error on stderr), as a bad configuration does: nothing runs on a setup not asked for.
      let sync: ConfigSync | null = null;
      if (config.configFile) {
        const { createConfigSync } = await import('../../api/config-sync.js');
        try {
          const principal = await app.services.access.configPrincipal(g.team);
          sync = createConfigSync(
            { services: app.services, validator: app.validator, log: app.log },
            { file: config.configFile, principal, env: process.env },
          );
          const first = await sync.apply('start', true);
          if (!first.ok) {
            for (const e of first.errors) process.stderr.write(`${e}\n`);
            throw new UsageError(`${config.configFile}: ${first.errors.length} error(s); not started`);
          }
        } catch (err) {
          await app.stop().catch(() => undefined);
          release();
          throw err;
        }
      }
      let url: string;
      try {
        ({ url } = await app.start());
      } catch (err) {
        await app.stop().catch(() => undefined);
        release();
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE') throw new Error(`port ${config.port} on ${config.host} is already in use`);
        if (e.code === 'EACCES') throw new Error(`not allowed to listen on ${config.host}:${config.port}`);
        if (e.code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${config.host}: no such local address`);
        throw err;
      }
      // The handlers are in place before the line that says the daemon is ready: a signal that comes
      // right after it must find them (without one the kernel ends the process at once).
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        app.log.info({ signal }, 'shutting down');
        Promise.resolve(sync?.stop())
          .then(() => app.stop())
          .then(
            () => {
              release();
              process.exit(0);
            },
            (err) => {
              app.log.error({ err }, 'shutdown failed');
              release();
              process.exit(1);
            },
          );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
      // Logs go to stderr (journald) and the database needs no reopening: SIGHUP (e.g. from logrotate or
      // a closing terminal) must not kill the daemon. With --config it applies the file again.
      process.on('SIGHUP', () => {
        if (sync) {
          app.log.info(
            { signal: 'SIGHUP', file: config.configFile },
            'SIGHUP received: applying the configuration file',
          );
          void sync.apply('SIGHUP', true).catch((err) => app.log.error({ err }, 'configuration file apply failed'));
          return;
        }
        app.log.info(
          { signal: 'SIGHUP' },
          'SIGHUP received: nothing to reopen (logs go to stderr; restart to change configuration)',
        );
      });
      sync?.watch();
      process.stdout.write(`dommon ${app.config.dataDir}: listening on ${url}\n`);
      // No account yet: a one-time link to make the first owner, on its own line after the contract's one.
      if (config.node.role !== 'worker') {
        const setup = await app.services.links.setupLink().catch((err: unknown) => {
          app.log.warn({ err }, 'no set-up link: it could not be made');
          return null;
        });
        if (setup)
          process.stdout.write(
            `set-up link (one use, until ${setup.expires_at}): ${linkUrl(config.publicUrl ?? url, setup.token)}\n`,
          );
      }
      // stdout carries the one `listening on` line of the contract; the hint for people goes to stderr.
      if (config.node.role !== 'worker')
        process.stderr.write(
          `web dashboard: ${config.publicUrl ?? url}/ (sign in with e-mail and password, or a token from \`dommon token create\`)\n`,
        );
      app.log.info(
        { url, dataDir: config.dataDir, node: config.node.name, role: config.node.role, region: config.node.region },
        'listening',
      );
      if (metricsExposed(config)) {
        app.log.warn(
          { host: config.host },
          `/metrics answers 403: the daemon listens on ${config.host}, not a loopback address; set DOMMON_METRICS_TOKEN to serve it with a bearer token`,
        );
      }
    });
}
