// bench/fleet: one node at N liveness configs, everything created through the Public API of a running
// daemon (from dist/, as `dommon serve` runs), the way a user would build the fleet:
//   1. N/100 domains and N endpoints through the bulk routes, then
//   2. N liveness configs as single creates with 16 requests in flight (--create single, the default)
//      or through POST /api/v1/liveness/bulk, 1,000 per request (--create bulk);
//   3. a warm-up, then a measured window: CPU % of one core, peak RSS, CPU ms per check, p99 lateness;
//   4. a restart: how long until every config was checked again, and the busiest second of that
//      first interval against the window's mean rate (a burst would show as a multiple of it).
// RSS per config is the RSS at the end of the window minus that of the same daemon with no configs,
// over N; database bytes per config and per endpoint come from SQLite's dbstat.
// Usage: npm run build && node --import tsx bench/fleet.ts [--sizes 2000,10000,50000] [--interval 60]
//   [--warmup 60] [--window 120] [--create single|bulk]   (BENCH_NODE_ARGS adds node flags to the daemon)
// Every peer is on loopback: an HTTP target that counts requests and a DNS stub; RDAP and WHOIS
// point at a closed loopback port, so the registration checks the new domains queue fail fast offline.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { runScenarios, type ProbeTarget } from './report.js';
import { cpuTicks, rssMb, TICK } from './proc.js';

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : def;
};
const SIZES = flag('--sizes', '2000,10000,50000').split(',').map(Number);
const INTERVAL = Number(flag('--interval', '60'));
const WARMUP = Number(flag('--warmup', '60'));
const WINDOW = Number(flag('--window', '120'));
const CREATE = flag('--create', 'single');
const IN_FLIGHT = 16;
const PER_DOMAIN = 100;
const OFFLINE = {
  DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
  DOMMON_WHOIS_SERVER: '127.0.0.1:9',
  DOMMON_IANA_WHOIS: '127.0.0.1:9',
};

function lines(child: ChildProcess, onLine: (l: string) => void): void {
  createInterface({ input: child.stdout! }).on('line', onLine);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function call(
  base: string,
  token: string,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${p}`,
      {
        method,
        agent,
        headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode!, json: text ? (JSON.parse(text) as unknown) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The answer's body as the shape the caller reads (not checked). */
async function expect<T = unknown>(
  base: string,
  token: string,
  method: string,
  p: string,
  body: unknown,
  status: number,
): Promise<T> {
  const r = await call(base, token, method, p, body);
  if (r.status !== status) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json as T;
}

/** Runs `fn` for each item with `n` in flight. */
async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

interface Daemon {
  child: ChildProcess;
  url: string;
  last: {
    checks: number;
    size: number;
    checkedOnce: number;
    allCheckedMs: number | null;
    p99?: number;
    max?: number;
    heapMb?: number;
    heapTotalMb?: number;
    externalMb?: number;
  };
  /** checks reported each second since start (for the restart's busiest second). */
  perSecond: number[];
  stop(): Promise<Daemon['last']>;
}

async function startDaemon(dataDir: string, dns: string): Promise<Daemon> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bench/probe-daemon.mjs', dataDir, 'dist'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        ...OFFLINE,
        DOMMON_DNS_SERVERS: dns,
        DOMMON_LOG_LEVEL: 'error',
        DOMMON_RATE_LIMIT: '1000000000',
      },
    },
  );
  const d: Daemon = {
    child,
    url: '',
    last: { checks: 0, size: 0, checkedOnce: 0, allCheckedMs: null },
    perSecond: [],
    // The last line, written on SIGTERM, carries the lateness percentiles.
    stop: async () => {
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await done;
      return d.last;
    },
  };
  let prevChecks = 0;
  await new Promise<void>((resolve, reject) => {
    lines(child, (l) => {
      const j = JSON.parse(l) as Daemon['last'] & { listening?: string };
      if (j.listening) {
        d.url = j.listening;
        resolve();
        return;
      }
      d.perSecond.push(j.checks - prevChecks);
      prevChecks = j.checks;
      d.last = j;
    });
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}`)));
  });
  return d;
}

function dbBytes(file: string, table: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (
      (
        db
          .prepare(
            `select sum(pgsize) as b from dbstat where name = ? or name in (select name from sqlite_master where tbl_name = ? and type = 'index')`,
          )
          .get(table, table) as { b: number }
      ).b ?? 0
    );
  } finally {
    db.close();
  }
}

async function scenario(n: number, target: ProbeTarget) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-fleet-'));
  const config = loadConfig({ dataDir });
  const local = await openLocal(config);
  const { token } = await local.services.access.createToken({ team: 'fleet' });
  await local.store.close();

  const d1 = await startDaemon(dataDir, target.dns);
  const pid1 = d1.child.pid!;
  await new Promise((r) => setTimeout(r, 3000));
  const rssEmpty = rssMb(pid1);

  // Domains and endpoints through the bulk routes (1,000 per request).
  const domains: string[] = [];
  for (let i = 0; i < n / PER_DOMAIN; i += 1000) {
    const items = Array.from({ length: Math.min(1000, n / PER_DOMAIN - i) }, (_, k) => ({
      domain: `fleet-${i + k}.example.com`,
    }));
    const r = await expect<{ domains: { id: string }[] }>(
      d1.url,
      token,
      'POST',
      '/api/v1/domains/bulk',
      { domains: items },
      201,
    );
    domains.push(...r.domains.map((x) => x.id));
  }
  const endpointIds: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const items = Array.from({ length: Math.min(1000, n - i) }, (_, k) => {
      const j = i + k;
      return {
        domain_id: domains[Math.floor(j / PER_DOMAIN)],
        name: `e${j}`,
        endpoint_type: 'http',
        subdomain: `h${j % PER_DOMAIN}`,
        path: `/p${j}`,
        port: target.port,
      };
    });
    const r = await expect<{ endpoints: { id: string }[] }>(
      d1.url,
      token,
      'POST',
      '/api/v1/endpoints/bulk',
      { endpoints: items },
      201,
    );
    endpointIds.push(...r.endpoints.map((x) => x.id));
  }

  // The liveness configs: the measured part of creation.
  const ticksC0 = cpuTicks(pid1);
  const tC0 = performance.now();
  const cfg = { interval_seconds: INTERVAL, timeout_seconds: 10 };
  if (CREATE === 'bulk') {
    for (let i = 0; i < n; i += 1000) {
      const r = await expect<{ failed: number; errors: unknown }>(
        d1.url,
        token,
        'POST',
        '/api/v1/liveness/bulk',
        { liveness: endpointIds.slice(i, i + 1000).map((endpoint_id) => ({ endpoint_id, ...cfg })) },
        201,
      );
      if (r.failed) throw new Error(`bulk liveness: ${r.failed} failed: ${JSON.stringify(r.errors).slice(0, 300)}`);
    }
  } else {
    await pool(endpointIds, IN_FLIGHT, async (endpoint_id) => {
      await expect(d1.url, token, 'POST', '/api/v1/liveness', { endpoint_id, ...cfg }, 201);
    });
  }
  const createS = (performance.now() - tC0) / 1000;
  const ticksC1 = cpuTicks(pid1);
  const createCpu = (ticksC1.user + ticksC1.sys - ticksC0.user - ticksC0.sys) / TICK;

  // Warm-up, then the window (announced on stderr with the daemon's pid, e.g. to attach a profiler).
  process.stderr.write(`fleet: ${n} configs created in ${createS.toFixed(1)} s; warm-up ${WARMUP} s\n`);
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  process.stderr.write(`fleet: window of ${WINDOW} s starts, daemon pid ${pid1}\n`);
  const t0 = cpuTicks(pid1);
  const checks0 = d1.last.checks;
  const w0 = Date.now();
  let rssMax = 0;
  while (Date.now() - w0 < WINDOW * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    rssMax = Math.max(rssMax, rssMb(pid1));
  }
  const t1 = cpuTicks(pid1);
  const windowS = (Date.now() - w0) / 1000;
  const windowSeconds = d1.perSecond.slice(-Math.floor(windowS));
  const windowChecks = d1.last.checks - checks0;
  const rssEnd = rssMb(pid1);
  const heap = { used: d1.last.heapMb, total: d1.last.heapTotalMb, external: d1.last.externalMb };
  const cpuS = (t1.user + t1.sys - t0.user - t0.sys) / TICK;
  const final1 = await d1.stop();
  const steadyPerS = windowChecks / windowS;

  // Restart: every config checked again within one interval, and no burst.
  const d2 = await startDaemon(dataDir, target.dns);
  const r0 = Date.now();
  while (d2.last.checkedOnce < n && Date.now() - r0 < (INTERVAL + 30) * 1000)
    await new Promise((r) => setTimeout(r, 500));
  const restartAll = d2.last.allCheckedMs;
  const busiest = Math.max(...d2.perSecond.slice(1));
  await d2.stop();

  const file = config.dbPath;
  const configBytes = dbBytes(file, 'liveness_configs') + dbBytes(file, 'liveness_state');
  const endpointBytes = dbBytes(file, 'endpoints');
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    N: n,
    create: CREATE,
    create_s: +createS.toFixed(1),
    creates_per_s: Math.round(n / createS),
    create_cpu_ms_each: +((createCpu * 1000) / n).toFixed(2),
    'cpu_%_core': +((cpuS / windowS) * 100).toFixed(1),
    rss_mb: Math.round(rssMax),
    cpu_ms_per_check: +((cpuS * 1000) / Math.max(1, windowChecks)).toFixed(3),
    checks_per_s: +steadyPerS.toFixed(1),
    p99_late_ms: final1.p99 === undefined ? null : Math.round(final1.p99),
    // The busiest second of the window against the mean: configs that probe together show as a multiple.
    busiest_s_vs_mean: +(Math.max(...windowSeconds) / steadyPerS).toFixed(2),
    heap_used_total_ext_mb: `${heap.used}/${heap.total}/${heap.external}`,
    rss_kb_per_config: +(((rssEnd - rssEmpty) * 1024) / n).toFixed(2),
    db_bytes_per_config: Math.round(configBytes / n),
    db_bytes_per_endpoint: Math.round(endpointBytes / n),
    restart_all_checked_s: restartAll === null ? null : +(restartAll / 1000).toFixed(1),
    restart_busiest_s_vs_mean: +(busiest / steadyPerS).toFixed(2),
  };
}

try {
  await runScenarios(SIZES, (n, target) => scenario(n, target));
} finally {
  agent.destroy();
}
