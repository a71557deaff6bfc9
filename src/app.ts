// The composition root: the only module that makes concrete instances.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './domain/clock.js';
import { openStore, type Store } from './store/index.js';
import { createServices, type Services } from './services/index.js';
import { createApi } from './api/server.js';
import { clientErrorHandler } from './api/middleware/errors.js';
import { createValidator } from './api/validation.js';
import type { ApiState } from './api/context.js';
import { createExposureNet, guardedAxfr } from './services/exposure/index.js';
import type { ExposureOptions } from './services/exposure/types.js';
import { periodic } from './scheduler/periodic.js';
import type { Checkpointer } from './store/checkpointer.js';
import { deliverOnce } from './channels/index.js';
import { createDeliveryService, type DeliveryService } from './services/delivery.js';
import { notifyWorker, type NotifyWorker } from './scheduler/notify.js';
import type { IntelIo } from './services/intel.js';
import { createLookupIo } from './oneshot.js';
import { createIntelScheduler } from './scheduler/intel.js';
import { Registry } from 'prom-client';
import { createMetrics, type Metrics } from './services/metrics.js';
import { createRetentionService, type RetentionService } from './services/retention.js';
import { createResolver, guardedAgent, livenessProbe, type ProbeDeps } from './probes/index.js';
import { createProbingWorkers, type ProbingWorkers } from './scheduler/probing.js';

import { VERSION } from './package.js';
import { inject, type InjectOptions } from 'light-my-request';
import { secureDataDir } from './store/permissions.js';

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  /** Exposure scanner reach: the port actually dialled for a well-known one, and scan bounds. */
  exposure?: { portFor?: (port: number, address: string) => number; options?: Partial<ExposureOptions> };
  /** Notification worker timing; defaults are the spec's (tests shorten them, nothing else does). */
  notify?: { retryWaitsMs?: readonly number[]; attemptTimeoutMs?: number; intervalMs?: number };
  /** Probe settings beyond the config: extra trusted CA certificates (tests pass their own CA). */
  probes?: { ca?: string | string[] };
  /** SMTP settings beyond the config: extra trusted CA certificates (tests pass their own CA). */
  smtp?: { ca?: string | string[] };
}

export interface App {
  config: Readonly<Config>;
  store: Store;
  services: Services;
  koa: Koa;
  router: Router<ApiState>;
  log: Logger;
  /** The notification outbox worker and its delivery service. */
  notify: { worker: NotifyWorker; delivery: DeliveryService };
  metrics: Metrics;
  retention: RetentionService;
  /** The liveness scheduler and TLS inspection workers. */
  probing: ProbingWorkers;
  /** Starts the HTTP server and the workers; resolves with the bound URL. */
  start(): Promise<{ url: string; port: number }>;
  /** Stops taking requests, finishes in-flight work, closes the database. */
  stop(): Promise<void>;
}

function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'dommon' }, redact: ['token', 'secret_key', 'api_key', 'password'] }, pino.destination(2));
}

/** DNS, RDAP and WHOIS access as the config says (DOMMON_DNS_SERVERS, DOMMON_RDAP_URL, DOMMON_WHOIS_SERVER). */
function createIntelIo(config: Readonly<Config>, clock: Clock, log: Logger): IntelIo {
  const io = createLookupIo(config, clock, (err) => log.info({ err: err.message }, 'RDAP bootstrap refresh failed; keeping the last good copy'));
  return { ...io, checkInterval: config.checkInterval, log };
}

/** Store + services without the HTTP server or workers (CLI commands on the local database). */
export async function openLocal(
  config: Readonly<Config>, clock: Clock = systemClock,
  opts: Pick<AppOptions, 'exposure' | 'log' | 'probes'> & { metrics?: (store: Store) => Metrics } = {},
): Promise<{ store: Store; services: Services; metrics?: Metrics; probes: ProbeDeps }> {
  // Secrets live here: directory 0700, files 0600; an older install's looser modes are fixed, and said.
  const tightened = secureDataDir(config.dataDir);
  if (tightened.length) {
    (opts.log ?? pino({ level: 'silent' })).warn({ dataDir: config.dataDir, files: tightened }, `data directory was readable by other users: made ${tightened.length} path(s) private (directory 0700, files 0600)`);
  }
  const store = await openStore(config.dbPath);
  const metrics = opts.metrics?.(store);
  const io = createIntelIo(config, clock, opts.log ?? pino({ level: 'silent' }));
  // The exposure scanner asks its DNS questions through the same resolver as the intel checks.
  // DOMMON_OUTBOUND_DENY is checked where each address is chosen: the probes' resolver and the scanner's dialler.
  const exposure = {
    dns: { lookup: io.dns.lookup, axfr: guardedAxfr((address, port, zone, timeoutMs) => io.dns.axfr(address, port, zone, timeoutMs), config.outbound) },
    net: createExposureNet({ portFor: opts.exposure?.portFor, policy: config.outbound }),
    options: opts.exposure?.options,
  };
  const probes: ProbeDeps = { resolver: createResolver(config.dnsServers, { policy: config.outbound }), ...(opts.probes?.ca ? { ca: opts.probes.ca } : {}) };
  const services = createServices(
    { store, clock, limits: { maxDomains: config.maxDomains, maxEndpoints: config.maxEndpoints }, exposure, metrics, probes, checkInterval: config.checkInterval },
    io,
  );
  return { store, services, metrics, probes };
}

interface LocalApi {
  team: { id: string; name: string };
  /** One API request served in-process, through the same koa app as the daemon's. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
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
    // Requests are injected into koa's handler (light-my-request): no socket, no HTTP client to load.
    const handler = app.callback();
    return {
      team,
      services,
      async request(method, path, body) {
        const res = await inject((req, res) => void handler(req, res), {
          method: method as InjectOptions['method'],
          url: path,
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
        });
        return { status: res.statusCode, body: res.payload ? (JSON.parse(res.payload) as unknown) : undefined };
      },
      async close() {
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
  const opened = await openLocal(config, clock, { ...opts, log, metrics: (store) => createMetrics({ registry: new Registry(), store, version: VERSION }) });
  const { store, services, probes } = opened;
  const metrics = opened.metrics!;
  const intelScheduler = createIntelScheduler({
    store, intel: services.intel, clock, log, checkInterval: config.checkInterval, verifyInterval: config.verifyInterval,
    refreshBootstrap: config.rdapUrl === null,
  });
  const probing = createProbingWorkers({
    monitor: services.monitor, liveness: services.liveness, certificates: services.certificates, probe: livenessProbe(probes),
    clock, log, stamp: (t) => store.stamp(t),
  });
  const retention = createRetentionService({ store, clock, log, resultRetentionDays: config.resultRetentionDays });
  // The one owner of pruning (raw results, aggregates, delivery log, events, history, vacuum):
  // checked hourly, runs when a day has passed since the last pass (so restarts never skip it).
  let retentionAbort = new AbortController();
  const retentionWorker = periodic('retention', 3_600_000, () => retention.runIfDue(retentionAbort.signal), log, { runAtStart: false });
  const { app: koa, router } = createApi({
    config, services, clock, log, version: VERSION, validator: createValidator(), databaseUp: () => store.ping(), stamp: (t) => store.stamp(t), metrics,
  });
  const sendCtx = {
    smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, smtpTls: config.smtpTls, smtpCa: opts.smtp?.ca, pushoverUrl: config.pushoverUrl,
    dispatcher: guardedAgent(probes.resolver),
  };
  const delivery = createDeliveryService({
    store, clock, log,
    deliver: (channel, message, cfg, { timeoutMs }) => deliverOnce(channel, message, { config: cfg }, { ...sendCtx, timeoutMs }),
    retryWaitsMs: opts.notify?.retryWaitsMs,
    attemptTimeoutMs: opts.notify?.attemptTimeoutMs,
    metrics,
  });
  const notify = { worker: notifyWorker({ delivery, log, intervalMs: opts.notify?.intervalMs ?? config.notifyInterval * 1000 }), delivery };
  let server: http.Server | undefined;
  let checkpointer: Checkpointer | null = null;
  const timers: NodeJS.Timeout[] = [];
  // Ticks at most every minute; each domain is scanned once per DOMMON_EXPOSURE_INTERVAL.
  const exposureWorker = periodic('exposure', Math.min(config.exposureInterval, 60) * 1000, () => services.exposure.cycle(config.exposureInterval), log, { runAtStart: false });
  const every = (ms: number, fn: () => Promise<void>) => {
    const t = setInterval(() => void fn().catch((err) => log.warn({ err }, 'periodic task failed')), ms);
    t.unref();
    timers.push(t);
  };

  return {
    config, store, services, koa, router, log, notify, metrics, retention, probing,
    async start() {
      // Commits never wait for a WAL checkpoint: a worker thread runs them (src/store/checkpointer.ts).
      checkpointer = store.backgroundCheckpoints({ onError: (message) => log.warn({ err: { message } }, 'WAL checkpoint failed') });
      // Later revocations (also by `dommon token revoke` in another process) are seen by authenticate's change stamp.
      await services.access.syncRevocations();
      every(30_000, () => services.access.flushUsage());
      await services.exposure.recover();
      exposureWorker.start();
      intelScheduler.start();
      const handler = koa.callback();
      server = http.createServer((req, res) => void handler(req, res));
      server.on('clientError', clientErrorHandler(clock));
      server.keepAliveTimeout = 5000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.port, config.host, () => resolve());
      });
      await notify.worker.start();
      retentionAbort = new AbortController();
      retentionWorker.start();
      const first = setTimeout(() => void retentionWorker.runNow(), 60_000);
      first.unref();
      timers.push(first);
      await probing.start();
      const port = (server.address() as AddressInfo).port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return { url: `http://${host}:${port}`, port };
    },
    async stop() {
      timers.forEach(clearInterval);
      services.exposure.abort();
      await exposureWorker.stop();
      await services.exposure.drain();
      await intelScheduler.stop();
      retentionAbort.abort();
      await retentionWorker.stop();
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      // In-flight probes finish or are cancelled within 3 s; finished results are written in one transaction.
      await probing.stop(3000);
      await notify.worker.stop();
      await services.access.flushUsage().catch(() => undefined);
      await checkpointer?.stop();
      await store.close();
    },
  };
}
