// The composition root: the only module that makes concrete instances. compose() builds what every
// mode shares (DNS, RDAP and WHOIS access, the probes' resolver and trusted CAs); on it stand the
// daemon (createApp), the CLI's access to the local database (openLocal, openLocalApi) and the
// one-shot engine of `dommon check` (createCheckEngine). The modules only the database modes use
// (koa, Kysely, SQLite, the workers) load on first use, so that a one-shot check loads none of them.
import http from 'node:http';
import os from 'node:os';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { Store } from './store/index.js';
import type { Services } from './services/index.js';
import type { ApiDeps, ApiState } from './api/context.js';
import type { ExposureOptions } from './services/exposure/types.js';
import type { Checkpointer } from './store/checkpointer.js';
import type { DeliveryService } from './services/delivery.js';
import type { NotifyWorker } from './scheduler/notify.js';
import type { IntelIo } from './services/intel.js';
import type { Metrics } from './services/metrics.js';
import type { RetentionService } from './services/retention.js';
import type { IntelScheduler } from './scheduler/intel.js';
import type { ProbingWorkers } from './scheduler/probing.js';
import type { NodeHeartbeat, NodeIdentity } from './services/nodes.js';
import type { SingletonLocks } from './store/singletons.js';
import type { ProbeDeps } from './probes/index.js';
import { createResolver } from './net/resolve.js';
import { createDnsResolver, type DnsResolver } from './probes/dns.js';
import { createBootstrapStore, type BootstrapStore } from './probes/rdap.js';
import { createRegistrationProbes, type RegistrationProbes } from './probes/registration.js';
import { lazyGuardedAgent } from './net/dispatcher.js';
import { createWhoisReferrals } from './probes/whois-referral.js';
import { createServerLimiter, type ServerLimiter } from './probes/limiter.js';
import { createRegistrationLookup } from './services/registration.js';
import { createSecurityEvaluator } from './services/security.js';
import { createCheckService, type CheckService } from './services/check.js';
import { sharedRateLimiter } from './services/rate-limit.js';
import { createLiveHub } from './web/live.js';
import { SESSION_FACTOR } from './api/middleware/rate-limit.js';
import { createAuthThrottle } from './services/auth-throttle.js';

import { VERSION } from './package.js';

/** What openLocal needs: the store, the services and the exposure scanner's network (daemon and local CLI). */
async function localModules() {
  const [{ pino }, { openDatabase }, { createServices }, { createExposureNet, guardedAxfr }] = await Promise.all([
    import('pino'),
    import('./services/database.js'),
    import('./services/index.js'),
    import('./probes/exposure-net.js'),
  ]);
  return { pino, openDatabase, createServices, createExposureNet, guardedAxfr };
}

/** The daemon's HTTP API. */
async function apiModules() {
  const [{ createApi }, { createValidator }] = await Promise.all([
    import('./api/server.js'),
    import('./api/validation.js'),
  ]);
  return { createApi, createValidator };
}

/** The daemon's own modules (server, workers, metrics), loaded by createApp only. */
async function daemonModules() {
  const [
    { clientErrorHandler },
    { periodic },
    { deliverOnce },
    { createDeliveryService },
    { notifyWorker },
    { createIntelScheduler },
    {
      default: { Registry },
    },
    { createMetrics },
    { createRetentionService },
    { livenessProbe },
    { guardedAgent },
    { createProbingWorkers },
    { createNodeHeartbeat, HEARTBEAT_MS, MOVED_CHECK_MS },
    { sharedBootstrapRefresh },
    { memoryDueQueue, sharedDueQueue },
    { oidcProvider },
  ] = await Promise.all([
    // CommonJS packages (prom-client) are read from `default`: Node's import() also offers their
    // named exports, the esbuild bundle's (scripts/bundle.mjs) only `default`.
    import('./api/middleware/errors.js'),
    import('./scheduler/periodic.js'),
    import('./channels/index.js'),
    import('./services/delivery.js'),
    import('./scheduler/notify.js'),
    import('./scheduler/intel.js'),
    import('prom-client'),
    import('./services/metrics.js'),
    import('./services/retention.js'),
    import('./probes/index.js'),
    import('./net/guarded-agent.js'),
    import('./scheduler/probing.js'),
    import('./services/nodes.js'),
    import('./services/bootstrap.js'),
    import('./services/due-queue.js'),
    import('./net/oidc.js'),
  ]);
  return {
    ...(await localModules()),
    ...(await apiModules()),
    clientErrorHandler,
    periodic,
    deliverOnce,
    createDeliveryService,
    notifyWorker,
    createIntelScheduler,
    Registry,
    createMetrics,
    createRetentionService,
    guardedAgent,
    livenessProbe,
    createProbingWorkers,
    createNodeHeartbeat,
    HEARTBEAT_MS,
    MOVED_CHECK_MS,
    sharedBootstrapRefresh,
    memoryDueQueue,
    sharedDueQueue,
    oidcProvider,
  };
}

/** DNS, RDAP and WHOIS access as the config says (DOMMON_DNS_SERVERS, DOMMON_RDAP_URL, DOMMON_WHOIS_SERVER(S), DOMMON_IANA_WHOIS). */
interface LookupIo {
  dns: DnsResolver;
  probes: RegistrationProbes;
  limiter: ServerLimiter;
  bootstrap: BootstrapStore;
}

interface Composed {
  io: LookupIo;
  /** The probes' resolver (DOMMON_DNS_SERVERS, DOMMON_OUTBOUND_DENY) and trusted CAs. */
  probes: ProbeDeps;
}

/**
 * What every mode is built on. `ca` replaces the probes' trusted CAs (absent: Node's roots);
 * `onBootstrapError` hears of a failed RDAP bootstrap refresh.
 */
function compose(
  config: Readonly<Config>,
  clock: Clock,
  opts: {
    ca?: string | string[];
    nameserverPort?: (address: string) => number;
    onBootstrapError?: (err: Error) => void;
  } = {},
): Composed {
  const resolver = createResolver(config.dnsServers, { policy: config.outbound });
  // Every RDAP request (the bootstrap, look-ups, each redirect hop) and every WHOIS connection (the
  // IANA referral included) goes through DOMMON_OUTBOUND_DENY. The agent (and undici) is made by the
  // first RDAP request: a command that sends none does not load the HTTP client.
  const rdapAgent = lazyGuardedAgent(resolver);
  // The RDAP bootstrap is the copy the daemon saved in the data directory, else the shipped one.
  const bootstrap = createBootstrapStore({
    dataDir: config.dataDir,
    dispatcher: rdapAgent,
    onError: opts.onBootstrapError,
  });
  const io: LookupIo = {
    dns: createDnsResolver(config.dnsServers),
    probes: createRegistrationProbes({
      bootstrap,
      rdapUrl: config.rdapUrl,
      whoisServer: config.whoisServer,
      whoisServers: config.whoisServers,
      now: () => clock.now(),
      dispatcher: rdapAgent,
      resolver,
      // IANA's WHOIS referrals, kept beside the bootstrap copy (only when the data directory exists).
      referrals: createWhoisReferrals({
        iana: config.ianaWhois,
        dataDir: config.dataDir,
        now: () => clock.now(),
        resolver,
      }),
    }),
    limiter: createServerLimiter({ clock }),
    bootstrap,
  };
  const probes: ProbeDeps = {
    resolver,
    dnsServers: config.dnsServers,
    ...(opts.ca ? { ca: opts.ca } : {}),
    // The test's own port mapping wins; else DOMMON_NAMESERVER_PORT for every name server asked.
    ...(opts.nameserverPort
      ? { nameserverPort: opts.nameserverPort }
      : config.nameserverPort
        ? { nameserverPort: () => config.nameserverPort! }
        : {}),
  };
  return { io, probes };
}

interface CheckEngineOptions {
  clock?: Clock;
  /** Extra trusted CA certificates (PEM), added to Node's roots. */
  ca?: string[];
  /** Time budget of one registration look-up (RDAP then WHOIS). */
  registrationBudgetMs?: number;
}

type CheckEngine = CheckService & { close(): void };

/** The one-shot engine of `dommon check` (no database, API or schedulers); close() cancels whatever is still running. */
export function createCheckEngine(config: Readonly<Config>, opts: CheckEngineOptions = {}): CheckEngine {
  const clock = opts.clock ?? systemClock;
  const { io, probes } = compose(config, clock, {
    ca: opts.ca?.length ? [...tls.rootCertificates, ...opts.ca] : undefined,
  });
  const registration = createRegistrationLookup({
    clock,
    probes: io.probes,
    limiter: io.limiter,
    budgetMs: opts.registrationBudgetMs,
  });
  const service = createCheckService({
    clock,
    probes,
    lookup: registration.lookup,
    evaluate: createSecurityEvaluator(io.dns),
  });
  return {
    ...service,
    close() {
      registration.abort();
      io.dns.cancel?.();
      io.bootstrap.stop();
    },
  };
}

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  /** Exposure scanner reach: the port actually dialled for a well-known one, and scan bounds. */
  exposure?: { portFor?: (port: number, address: string) => number; options?: Partial<ExposureOptions> };
  /** Notification worker timing; defaults are the spec's (tests shorten them, nothing else does). */
  notify?: { retryWaitsMs?: readonly number[]; attemptTimeoutMs?: number; intervalMs?: number };
  /**
   * Probe settings beyond the config: extra trusted CA certificates (tests pass their own CA), and the
   * port a zone's own name servers are asked on (53; tests point it at their loopback server).
   */
  probes?: { ca?: string | string[]; nameserverPort?: (address: string) => number };
  /** SMTP settings beyond the config: extra trusted CA certificates (tests pass their own CA). */
  smtp?: { ca?: string | string[] };
}

export interface App {
  config: Readonly<Config>;
  store: Store;
  services: Services;
  /** The request schemas (also what `serve --config` checks its file with). */
  validator: ApiDeps['validator'];
  koa: Koa;
  router: Router<ApiState>;
  log: Logger;
  /** The notification outbox worker and its delivery service. */
  notify: { worker: NotifyWorker; delivery: DeliveryService };
  metrics: Metrics;
  retention: RetentionService;
  /** The liveness scheduler and TLS inspection workers. */
  probing: ProbingWorkers;
  /** Registration, DNS-security and verification refreshes, the health sweep (src/scheduler/intel.ts). */
  intel: IntelScheduler;
  /** This node (DOMMON_NODE_NAME, DOMMON_ROLE, DOMMON_NODE_REGION) as the node list shows it. */
  node: NodeIdentity;
  /** Writes this node's row in the node list (every HEARTBEAT_MS while started). */
  heartbeat: NodeHeartbeat;
  /** The singleton jobs' locks (retention, digests, sweep, RDAP bootstrap) this node holds. */
  singletons: SingletonLocks;
  /** Starts the HTTP server and the workers; resolves with the bound URL. */
  start(): Promise<{ url: string; port: number }>;
  /** Stops taking requests, finishes in-flight work, closes the database. */
  stop(): Promise<void>;
}

async function createLogger(config: Pick<Config, 'logLevel' | 'node'>): Promise<Logger> {
  const { pino } = await import('pino');
  return pino(
    {
      level: config.logLevel,
      base: { service: 'dommon', node: config.node.name },
      redact: ['token', 'secret_key', 'api_key', 'password'],
    },
    pino.destination(2),
  );
}

/** Store + services without the HTTP server or workers (CLI commands on the local database). */
export async function openLocal(
  config: Readonly<Config>,
  clock: Clock = systemClock,
  opts: Pick<AppOptions, 'exposure' | 'log' | 'probes' | 'smtp'> & {
    metrics?: (store: Store) => Metrics;
    /** The serving node (the daemon): scans record its name. The CLI's scans name no node. */
    serving?: boolean;
  } = {},
): Promise<{ store: Store; services: Services; metrics?: Metrics; probes: ProbeDeps }> {
  const { pino, openDatabase, createServices, createExposureNet, guardedAxfr } = await localModules();
  const store = await openDatabase(config, { log: opts.log, serving: opts.serving });
  const metrics = opts.metrics?.(store);
  const log = opts.log ?? pino({ level: 'silent' });
  const { io: lookup, probes } = compose(config, clock, {
    ca: opts.probes?.ca,
    nameserverPort: opts.probes?.nameserverPort,
    onBootstrapError: (err) =>
      log.info({ err: err.message }, 'RDAP bootstrap refresh failed; keeping the last good copy'),
  });
  const io: IntelIo = {
    ...lookup,
    checkInterval: config.checkInterval,
    nsWatchInterval: config.nsWatchInterval,
    log,
  };
  // The exposure scanner asks its DNS questions through the same resolver as the intel checks.
  // DOMMON_OUTBOUND_DENY is checked where each address is chosen: the probes' resolver and the scanner's dialler.
  const exposure = {
    dns: {
      lookup: io.dns.lookup,
      axfr: guardedAxfr(
        (address, port, zone, timeoutMs) => io.dns.axfr(address, port, zone, timeoutMs),
        config.outbound,
      ),
    },
    net: createExposureNet({ portFor: opts.exposure?.portFor, policy: config.outbound }),
    options: opts.exposure?.options,
    // Scans record the node that runs them; on PostgreSQL start-up recovery touches only this node's.
    // A CLI process is no node (it has no row in the node list): its scans name none.
    node: opts.serving ? { name: config.node.name, shared: config.database !== null } : undefined,
  };
  const services = createServices(
    {
      store,
      clock,
      limits: { maxDomains: config.maxDomains, maxEndpoints: config.maxEndpoints },
      exposure,
      metrics,
      probes,
      checkInterval: config.checkInterval,
      sessions: config.session,
      passwordCost: config.passwordCost,
      mail: {
        smtpUrl: config.smtpUrl,
        smtpFrom: config.smtpFrom,
        smtpTls: config.smtpTls,
        smtpCa: opts.smtp?.ca,
        urls: config.channelUrls,
      },
      publicUrl: config.publicUrl,
    },
    io,
  );
  return { store, services, metrics, probes };
}

interface LocalApi {
  team: { id: string; name: string };
  /** One API request served in-process by the same route modules as the daemon's (api/local.ts). */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  services: Services;
  close(): Promise<void>;
}

/** The Public API on the local database for one team, as the CLI uses it: same routes, same JSON. */
export async function openLocalApi(config: Readonly<Config>, teamName?: string): Promise<LocalApi> {
  const [{ pino }, { createLocalApi }, { createValidator }, { store, services }] = await Promise.all([
    import('pino'),
    import('./api/local.js'),
    import('./api/validation.js'),
    openLocal(config),
  ]);
  try {
    const team = await services.access.requireTeam(teamName);
    const user = (await services.access.listUsers(team.name))[0];
    const principal = {
      token_id: 'local',
      token_name: 'local-cli',
      team_id: team.id,
      team_name: team.name,
      user_id: user?.id ?? '',
      user_email: user?.email ?? 'admin@localhost',
      read_only: false,
      // The command line on the server itself answers to whoever may run it: everything is allowed.
      role: 'owner' as const,
    };
    // Requests are served in-process by the route modules (api/local.ts): no koa, socket or HTTP client to load.
    const api = createLocalApi(
      {
        config,
        services,
        clock: systemClock,
        log: pino({ level: 'silent' }),
        version: VERSION,
        validator: createValidator(),
        databaseUp: () => store.ping(),
        stamp: (m) => store.readStamp(m),
      },
      principal,
    );
    return {
      team,
      services,
      request: (method, path, body) => api.request(method, path, body),
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
  const {
    createIntelScheduler,
    createProbingWorkers,
    memoryDueQueue,
    sharedDueQueue,
    livenessProbe,
    createRetentionService,
    periodic,
    createApi,
    createValidator,
    guardedAgent,
    createDeliveryService,
    deliverOnce,
    notifyWorker,
    createMetrics,
    Registry,
    clientErrorHandler,
    createNodeHeartbeat,
    HEARTBEAT_MS,
    MOVED_CHECK_MS,
    sharedBootstrapRefresh,
    oidcProvider,
  } = await daemonModules();
  const clock = opts.clock ?? systemClock;
  // DOMMON_ROLE: `api` runs no scheduler; `worker` serves /health and /metrics only.
  const runsWorkers = config.node.role !== 'api';
  const log = opts.log ?? (await createLogger(config));
  const opened = await openLocal(config, clock, {
    ...opts,
    serving: true,
    log,
    metrics: (store) => createMetrics({ registry: new Registry(), store, version: VERSION, node: config.node }),
  });
  const { store, services, probes } = opened;
  const metrics = opened.metrics!;
  // Retention, digests, the health sweep and the RDAP bootstrap refresh run on one node at a time:
  // PostgreSQL advisory locks on a dedicated connection (always held on SQLite).
  const singletons = store.singletonLocks({
    applicationName: `dommon singletons ${config.node.name}`,
    onChange: (held, lost) => {
      if (lost) log.warn('lost the singleton locks (their database connection failed); another node takes them over');
      else log.info({ singletons: held }, 'this node runs the singleton jobs it holds');
      // The node list shows the change now, not at the next heartbeat.
      void heartbeat.beat().catch(() => undefined);
    },
    onError: (err) => log.debug({ err: err.message }, 'singleton lock attempt failed'),
  });
  const intelScheduler = createIntelScheduler({
    intel: services.intel,
    clock,
    log,
    checkInterval: config.checkInterval,
    verifyInterval: config.verifyInterval,
    refreshBootstrap: config.rdapUrl === null,
    exclusive: singletons.run,
    bootstrapRefresh: services.intel.bootstrap
      ? sharedBootstrapRefresh({ bootstrap: services.intel.bootstrap, store, locks: singletons, log })
      : undefined,
  });
  // On PostgreSQL every node (one or several) claims its runs from the shared due-queue; the one
  // process on a SQLite file keeps its queue in memory.
  const dueQueue =
    store.engine === 'postgres'
      ? sharedDueQueue({ store, owner: config.node.name })
      : memoryDueQueue({
          monitor: services.monitor,
          onChange: services.liveness.onChange,
          clock,
          // No tables: only commits by other processes (and unknown raw writes) move it; this process's
          // changes reach the queue one by one through onChange.
          stamp: () => store.stamp([]),
          region: config.node.region,
          owner: config.node.name,
        });
  // A push endpoint's ping revokes the lease on its config's run (its state changed outside a run).
  services.push.useQueue(dueQueue);
  const probing = createProbingWorkers({
    monitor: services.monitor,
    queue: dueQueue,
    certificates: services.certificates,
    // A push endpoint's check reads its pings through the push service; a [DOMAIN_EXPIRATION]
    // condition the domain's stored expiry date; the probe opens a configuration's sealed
    // credentials with the store's key.
    probe: livenessProbe({
      ...probes,
      heartbeat: (id) => services.push.heartbeat(id),
      domainExpiry: async (domainId) => {
        const at = Date.parse((await store.registrations.expiryDate(domainId)) ?? '');
        return Number.isNaN(at) ? null : at - clock.now().getTime();
      },
      openAuth: store.liveness.openAuth,
    }),
    clock,
    log,
    region: config.node.region,
  });
  const retention = createRetentionService({
    store,
    clock,
    log,
    resultRetentionDays: config.resultRetentionDays,
    hourlyRetentionDays: config.hourlyRetentionDays,
    dailyRetentionDays: config.dailyRetentionDays,
    auditRetentionDays: config.auditRetentionDays,
    sessionIdleMs: config.session.idleMs,
  });
  // The one owner of pruning (raw results, aggregates, delivery log, events, history, vacuum):
  // checked hourly, runs when a day has passed since the last pass (so restarts never skip it).
  let retentionAbort = new AbortController();
  const retentionWorker = periodic(
    'retention',
    3_600_000,
    () => singletons.run('retention', (lost) => retention.runIfDue(AbortSignal.any([retentionAbort.signal, lost]))),
    log,
    {
      runAtStart: false,
    },
  );
  const live = createLiveHub({
    stamp: () => store.readStamp('home'),
    fingerprint: (team) => services.home.fingerprint(team),
    digests: (team) => services.home.digests(team),
    resolve: (sid) => services.sessions.resolve(sid),
    onError: (err) => log.warn({ err }, 'live feed'),
  });
  const validator = createValidator();
  const { app: koa, router } = createApi(
    {
      config,
      services,
      clock,
      log,
      version: VERSION,
      validator,
      databaseUp: () => store.ping(),
      stamp: (m) => store.readStamp(m),
      metrics,
      // Several nodes on PostgreSQL share each team's budget through the database (services/rate-limit.ts).
      rateLimiter: config.database ? sharedRateLimiter({ store, limit: config.rateLimit, clock, log }) : undefined,
      sessionRateLimiter: config.database
        ? sharedRateLimiter({ store, limit: config.rateLimit * SESSION_FACTOR, clock, log })
        : undefined,
      live,
      // Counted in the database on both engines, so every node on PostgreSQL adds to one count.
      authThrottle: createAuthThrottle({ store, clock, limit: config.authFailureLimit, log }),
      sso: config.oidc ? { provider: oidcProvider(config.oidc), teams: config.oidc.teams } : undefined,
    },
    { healthAndMetricsOnly: config.node.role === 'worker' },
  );
  const sendCtx = {
    smtpUrl: config.smtpUrl,
    smtpFrom: config.smtpFrom,
    smtpTls: config.smtpTls,
    smtpCa: opts.smtp?.ca,
    urls: config.channelUrls,
    dispatcher: guardedAgent(probes.resolver),
  };
  const delivery = createDeliveryService({
    store,
    clock,
    log,
    deliver: (channel, message, cfg, { timeoutMs, deliveryId }) =>
      deliverOnce(channel, message, { config: cfg, deliveryId }, { ...sendCtx, timeoutMs }),
    retryWaitsMs: opts.notify?.retryWaitsMs,
    attemptTimeoutMs: opts.notify?.attemptTimeoutMs,
    metrics,
    // Leases name the node; on PostgreSQL a (re)starting node frees only its own.
    owner: config.node.name,
    ownLeasesOnly: config.database !== null,
  });
  const notify = {
    worker: notifyWorker({
      delivery,
      log,
      intervalMs: opts.notify?.intervalMs ?? config.notifyInterval * 1000,
      exclusive: singletons.run,
    }),
    delivery,
  };
  let server: http.Server | undefined;
  let checkpointer: Checkpointer | null = null;
  const timers: NodeJS.Timeout[] = [];
  // Ticks at most every minute; each domain is scanned once per DOMMON_EXPOSURE_INTERVAL.
  const exposureWorker = periodic(
    'exposure',
    Math.min(config.exposureInterval, 60) * 1000,
    async () => {
      // Scans of nodes that died (their row stale or gone) are marked failed, so the domain is scanned again.
      await services.exposure.recover(false);
      return services.exposure.cycle(config.exposureInterval);
    },
    log,
    { runAtStart: false },
  );
  const node: NodeIdentity = {
    name: config.node.name,
    role: config.node.role,
    region: config.node.region,
    version: VERSION,
    host: os.hostname(),
    pid: process.pid,
    startedAt: clock.now().toISOString(),
  };
  const heartbeat = createNodeHeartbeat({
    store,
    clock,
    log,
    identity: node,
    counters: {
      workClaimed: () => probing.liveness.size(),
      workRegional: () => probing.liveness.regional(),
      checksTotal: () => metrics.checksTotal(),
      singletons: () => (runsWorkers ? singletons.held() : []),
    },
  });
  const every = (ms: number, fn: () => Promise<void>) => {
    const t = setInterval(() => void fn().catch((err) => log.warn({ err }, 'periodic task failed')), ms);
    t.unref();
    timers.push(t);
  };

  return {
    config,
    store,
    services,
    validator,
    koa,
    router,
    log,
    notify,
    metrics,
    retention,
    probing,
    intel: intelScheduler,
    node,
    heartbeat,
    singletons,
    async start() {
      // Commits never wait for a WAL checkpoint: a worker thread runs them (src/store/checkpointer.ts).
      checkpointer = store.backgroundCheckpoints({
        onError: (message) => log.warn({ err: { message } }, 'WAL checkpoint failed'),
      });
      // Later revocations (also by `dommon token revoke` in another process) are seen by authenticate's change stamp.
      await services.access.syncRevocations();
      every(30_000, () => services.access.flushUsage());
      // The node list: a name a live node uses is refused; the row is written before serving.
      await heartbeat.claim();
      if (runsWorkers) await singletons.start();
      await heartbeat.beat();
      every(HEARTBEAT_MS, () => heartbeat.beat());
      // Sooner when the runs this node holds moved (a burst of new configurations): the other nodes on the
      // shared database size their part by it.
      if (runsWorkers && config.database !== null) every(MOVED_CHECK_MS, () => heartbeat.beatIfMoved());
      // Scans this node (any role: the API starts scans too) left running when it stopped, and those of dead nodes.
      await services.exposure.recover();
      if (runsWorkers) {
        exposureWorker.start();
        intelScheduler.start();
      }
      const handler = koa.callback();
      server = http.createServer((req, res) => void handler(req, res));
      server.on('clientError', clientErrorHandler(clock));
      server.keepAliveTimeout = 5000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.port, config.host, () => resolve());
      });
      if (runsWorkers) {
        await notify.worker.start();
        retentionAbort = new AbortController();
        retentionWorker.start();
        const first = setTimeout(() => void retentionWorker.runNow(), 60_000);
        first.unref();
        timers.push(first);
        await probing.start();
      }
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
      // Open live streams would hold the HTTP server open: they end first.
      live.close();
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
      // A clean stop leaves the node list (a killed node stays, shown stale, until pruned).
      await heartbeat.leave().catch(() => undefined);
      // Closing the lock connection hands the singleton jobs to another node at its next attempt.
      await singletons.stop();
      await checkpointer?.stop();
      await store.close();
    },
  };
}
