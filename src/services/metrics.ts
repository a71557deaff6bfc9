// Prometheus metrics. Counters are fed by the services (checks, deliveries) and the HTTP middleware;
// per-endpoint and per-domain gauges are read from the store at scrape time, so they show what
// every worker wrote, whichever process wrote it. The Registry comes from app.ts (never the global one).
import { Counter, Gauge, Histogram, collectDefaultMetrics, type Registry } from 'prom-client';
import type { Store } from '../store/index.js';

interface MetricsDeps {
  registry: Registry;
  store: Store;
  version: string;
  /** Most rows per per-endpoint and per-domain family (keeps a scrape bounded). */
  maxSeries?: number;
  /** Node.js process metrics (process_*, nodejs_*). */
  processMetrics?: boolean;
  /** This node (DOMMON_NODE_NAME, DOMMON_ROLE, DOMMON_NODE_REGION): dommon_node_info. */
  node?: { name: string; role: string; region: string };
}

/** Distinct label sets a counter accepts from callers before folding the rest into "other". */
const MAX_COUNTER_SERIES = 200;
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Lowercase word characters, at most 40: what callers pass as kind/outcome/channel/status. */
function word(v: string): string {
  return (
    String(v)
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '_')
      .slice(0, 40) || 'unknown'
  );
}

function epochSeconds(date: string | null): number | null {
  if (!date) return null;
  const t = Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
  return Number.isFinite(t) ? Math.round(t / 1000) : null;
}

export function createMetrics(deps: MetricsDeps) {
  const { registry, store } = deps;
  const maxSeries = deps.maxSeries ?? 10_000;
  const registers = [registry];
  // Event-loop lag sampled every 100 ms (prom-client's default, 10 ms, wakes an idle daemon 100 times a second).
  if (deps.processMetrics ?? true) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });

  const build = new Gauge({
    name: 'dommon_build_info',
    help: 'dommon version (always 1)',
    labelNames: ['version'],
    registers,
  });
  build.set({ version: deps.version }, 1);
  // Which node answers this scrape: an info metric (as node_uname_info, target_info) that queries join
  // on the target's `instance` label, rather than a `node` label repeated on every series.
  if (deps.node) {
    const info = new Gauge({
      name: 'dommon_node_info',
      help: 'This node of a dommon cluster: name (DOMMON_NODE_NAME), role, region and version (always 1)',
      labelNames: ['node', 'role', 'region', 'version'],
      registers,
    });
    info.set({ node: deps.node.name, role: deps.node.role, region: deps.node.region, version: deps.version }, 1);
  }

  const checks = new Counter({
    name: 'dommon_checks_total',
    help: 'Checks run, by kind (liveness, tls, registration, dns, verification, ...) and outcome',
    labelNames: ['kind', 'outcome'],
    registers,
  });
  const deliveries = new Counter({
    name: 'dommon_notification_deliveries_total',
    help: 'Notification delivery attempts, by channel and status',
    labelNames: ['channel', 'status'],
    registers,
  });
  const httpRequests = new Counter({
    name: 'dommon_http_requests_total',
    help: 'HTTP requests, by method, route template and status code',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const httpDuration = new Histogram({
    name: 'dommon_http_request_duration_seconds',
    help: 'HTTP request latency, by method and route template',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });

  const endpointLabels = ['team', 'domain', 'endpoint'] as const;
  const domainLabels = ['team', 'domain'] as const;
  const endpointUp = new Gauge({
    name: 'dommon_endpoint_up',
    help: 'Liveness of an endpoint: 1 up, 0 down (absent before the first check)',
    labelNames: endpointLabels,
    registers,
  });
  const endpointResponse = new Gauge({
    name: 'dommon_endpoint_response_seconds',
    help: 'Response time of the last liveness check',
    labelNames: endpointLabels,
    registers,
  });
  const sslExpiry = new Gauge({
    name: 'dommon_ssl_expiry_timestamp_seconds',
    help: 'Earliest notAfter of the certificates an endpoint sends (leaf or intermediate), as a Unix timestamp',
    labelNames: endpointLabels,
    registers,
  });
  const domainExpiry = new Gauge({
    name: 'dommon_domain_expiry_timestamp_seconds',
    help: 'Registration expiry of a domain (manual override first), as a Unix timestamp',
    labelNames: domainLabels,
    registers,
  });
  const domainHealth = new Gauge({
    name: 'dommon_domain_health_score',
    help: 'Health score of a domain, 0-100',
    labelNames: domainLabels,
    registers,
  });
  const domainVerified = new Gauge({
    name: 'dommon_domain_verified',
    help: 'Ownership of a domain verified: 1 yes, 0 no',
    labelNames: domainLabels,
    registers,
  });
  const deliveryLog = new Gauge({
    name: 'dommon_notification_log_entries',
    help: 'Rows in the notification delivery log, by channel and status',
    labelNames: ['channel', 'status'],
    registers,
  });
  const objects = new Gauge({
    name: 'dommon_objects',
    help: 'Monitored objects, by kind',
    labelNames: ['kind'],
    registers,
  });
  const dbSize = new Gauge({
    name: 'dommon_database_size_bytes',
    help: 'Size of the SQLite database (pages in use and free)',
    labelNames: ['state'],
    registers,
  });
  const pool = new Gauge({
    name: 'dommon_database_pool_connections',
    help: 'PostgreSQL connection pool of this process: state="in_use", "idle", "waiting" (requests waiting for a connection); absent on SQLite',
    labelNames: ['state'],
    registers,
  });
  const backlog = new Gauge({
    name: 'dommon_check_backlog',
    help: 'Scheduled registration and DNS-security checks waiting: state="due" (next run already past), state="never_checked" (not run once yet)',
    labelNames: ['kind', 'state'],
    registers,
  });
  const truncated = new Gauge({
    name: 'dommon_metrics_truncated',
    help: '1 when a per-endpoint or per-domain family hit the series limit',
    registers,
  });

  const seen = new Map<Counter, Set<string>>();
  /** Caps distinct label sets per counter so a caller bug cannot blow up the series count. */
  function bounded(counter: Counter, labels: Record<string, string>): Record<string, string> {
    const key = Object.values(labels).join('\u0000');
    let set = seen.get(counter);
    if (!set) seen.set(counter, (set = new Set()));
    if (set.has(key)) return labels;
    if (set.size >= MAX_COUNTER_SERIES) return Object.fromEntries(Object.keys(labels).map((k) => [k, 'other']));
    set.add(key);
    return labels;
  }

  async function refresh(): Promise<void> {
    const [endpoints, domains, logCounts, counts, size, waiting] = await Promise.all([
      store.metrics.endpoints(maxSeries + 1),
      store.metrics.domains(maxSeries + 1),
      store.metrics.deliveryCounts(),
      store.metrics.counts(),
      store.metrics.databaseSize(),
      store.metrics.checkBacklog(new Date().toISOString()),
    ]);
    for (const g of [
      endpointUp,
      endpointResponse,
      sslExpiry,
      domainExpiry,
      domainHealth,
      domainVerified,
      deliveryLog,
      backlog,
    ])
      g.reset();
    const p = store.pool();
    if (p) {
      pool.set({ state: 'in_use' }, p.inUse);
      pool.set({ state: 'idle' }, p.idle);
      pool.set({ state: 'waiting' }, p.waiting);
    }
    for (const b of waiting) {
      backlog.set({ kind: word(b.kind), state: 'due' }, b.due);
      backlog.set({ kind: word(b.kind), state: 'never_checked' }, b.never_checked);
    }
    truncated.set(endpoints.length > maxSeries || domains.length > maxSeries ? 1 : 0);
    for (const e of endpoints.slice(0, maxSeries)) {
      const l = { team: e.team, domain: e.domain, endpoint: e.endpoint };
      if (e.liveness_enabled && (e.status === 'up' || e.status === 'down'))
        endpointUp.set(l, e.status === 'up' ? 1 : 0);
      if (e.liveness_enabled && e.response_time_ms !== null) endpointResponse.set(l, e.response_time_ms / 1000);
      const notAfter = epochSeconds(e.ssl_not_after);
      if (notAfter !== null) sslExpiry.set(l, notAfter);
    }
    for (const d of domains.slice(0, maxSeries)) {
      const l = { team: d.team, domain: d.domain };
      domainVerified.set(l, d.is_verified ? 1 : 0);
      if (d.health_score !== null) domainHealth.set(l, d.health_score);
      const expiry = epochSeconds(d.expiry_date);
      if (expiry !== null) domainExpiry.set(l, expiry);
    }
    for (const r of logCounts) deliveryLog.set({ channel: word(r.channel), status: word(r.status) }, r.n);
    objects.set({ kind: 'team' }, counts.teams);
    objects.set({ kind: 'domain' }, counts.domains);
    objects.set({ kind: 'endpoint' }, counts.endpoints);
    objects.set({ kind: 'liveness' }, counts.liveness);
    dbSize.set({ state: 'used' }, size.bytes - size.freeBytes);
    dbSize.set({ state: 'free' }, size.freeBytes);
  }

  let scrape: Promise<unknown> = Promise.resolve();
  // Checks this process finished, for the node list's checks per minute (no async registry read).
  let checksDone = 0;

  return {
    registry,
    /** One check (or `n` checks) finished: kind (liveness, tls, registration, dns, verification, exposure) and outcome (success, failure, error, ...). */
    check(kind: string, outcome: string, n = 1): void {
      checks.inc(bounded(checks, { kind: word(kind), outcome: word(outcome) }), n);
      checksDone += n;
    },
    /** Checks this process finished since it started (every kind and outcome). */
    checksTotal: (): number => checksDone,
    /** One delivery attempt finished: channel (email, webhook, slack, ...) and status (success, failed, partial, ...). */
    delivery(channel: string, status: string): void {
      deliveries.inc(bounded(deliveries, { channel: word(channel), status: word(status) }));
    },
    /** One HTTP request: `route` is the matched route template (never the raw path). */
    httpRequest(method: string, route: string, status: number, seconds: number): void {
      const m = HTTP_METHODS.has(method) ? method : 'OTHER';
      httpRequests.inc({ method: m, route, status: String(status) });
      httpDuration.observe({ method: m, route }, seconds);
    },
    /** The exposition text, gauges read from the store now. */
    render(): Promise<{ contentType: string; body: string }> {
      // One scrape at a time: refresh() resets the gauges another scrape may be reading.
      const next = scrape.then(async () => {
        await refresh();
        return { contentType: registry.contentType, body: await registry.metrics() };
      });
      scrape = next.catch(() => undefined);
      return next;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
