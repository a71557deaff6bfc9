// The composition root: the only module that makes concrete instances.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './domain/clock.js';
import { openStore, type Store } from './store/index.js';
import { createServices, type Services } from './services/index.js';
import { createApi } from './api/server.js';
import { createValidator } from './api/validation.js';
import type { ApiState } from './api/context.js';
import { createResolver, livenessProbe, type ProbeDeps } from './probes/index.js';
import { createProbingWorkers, type ProbingWorkers } from './scheduler/probing.js';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  /** Probe settings beyond the config: extra trusted CA certificates (tests pass their own CA). */
  probes?: { ca?: string | string[] };
}

export interface App {
  config: Readonly<Config>;
  store: Store;
  services: Services;
  koa: Koa;
  router: Router<ApiState>;
  log: Logger;
  /** The liveness scheduler, TLS inspection and retention workers. */
  probing: ProbingWorkers;
  /** Starts the HTTP server and the workers; resolves with the bound URL. */
  start(): Promise<{ url: string; port: number }>;
  /** Stops taking requests, finishes in-flight work, closes the database. */
  stop(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'dommon' }, redact: ['token', 'secret_key', 'api_key', 'password'] }, pino.destination(2));
}

/** Store + services without the HTTP server or workers (CLI commands on the local database). */
export async function openLocal(config: Readonly<Config>, clock: Clock = systemClock, probeOpts: AppOptions['probes'] = {}): Promise<{ store: Store; services: Services; probes: ProbeDeps }> {
  const store = await openStore(config.dbPath);
  const probes: ProbeDeps = { resolver: createResolver(config.dnsServers), ...(probeOpts.ca ? { ca: probeOpts.ca } : {}) };
  const services = createServices({ store, clock, limits: { maxDomains: config.maxDomains, maxEndpoints: config.maxEndpoints }, probes, checkInterval: config.checkInterval });
  return { store, services, probes };
}

export interface LocalApi {
  team: { id: string; name: string };
  /** One API request served in-process (bound to 127.0.0.1:0, closed by close()). */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  services: Services;
  close(): Promise<void>;
}

/** The Public API on the local database for one team, as the CLI uses it: same routes, same JSON. */
export async function openLocalApi(config: Readonly<Config>, teamName?: string): Promise<LocalApi> {
  const { store, services } = await openLocal(config);
  try {
    const team = await services.access.requireTeam(teamName);
    const user = (await services.access.listUsers(team.name))[0];
    const principal = {
      token_id: 'local', token_name: 'local-cli', team_id: team.id, team_name: team.name,
      user_id: user?.id ?? '', user_email: user?.email ?? 'admin@localhost',
    };
    const { app } = createApi(
      { config, services, clock: systemClock, log: pino({ level: 'silent' }), version: VERSION, validator: createValidator(), databaseUp: () => store.ping(), stamp: (t) => store.stamp(t) },
      { principal },
    );
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      team,
      services,
      async request(method, path, body) {
        const res = await fetch(base + path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined };
      },
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

export async function createApp(config: Readonly<Config>, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config);
  const { store, services, probes } = await openLocal(config, clock, opts.probes);
  const probing = createProbingWorkers({
    monitor: services.monitor, liveness: services.liveness, certificates: services.certificates, probe: livenessProbe(probes),
    clock, log, stamp: (t) => store.stamp(t), resultRetentionDays: config.resultRetentionDays,
  });
  const { app: koa, router } = createApi({
    config, services, clock, log, version: VERSION, validator: createValidator(), databaseUp: () => store.ping(), stamp: (t) => store.stamp(t),
  });
  let server: http.Server | undefined;
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => Promise<void>) => {
    const t = setInterval(() => fn().catch((err) => log.warn({ err }, 'periodic task failed')), ms);
    t.unref();
    timers.push(t);
  };

  return {
    config, store, services, koa, router, log, probing,
    async start() {
      await services.access.syncRevocations();
      every(1000, () => services.access.syncRevocations());
      every(30_000, () => services.access.flushUsage());
      server = http.createServer(koa.callback());
      server.keepAliveTimeout = 5000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.port, config.host, () => resolve());
      });
      await probing.start();
      const port = (server.address() as AddressInfo).port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return { url: `http://${host}:${port}`, port };
    },
    async stop() {
      timers.forEach(clearInterval);
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      // In-flight probes finish or are cancelled within 3 s; finished results are written in one transaction.
      await probing.stop(3000);
      await services.access.flushUsage().catch(() => undefined);
      await store.close();
    },
  };
}
