// bench/probes: dommon's liveness engine against a loopback HTTP server that counts requests.
// Per N (configs) and interval: CPU % of one core (from /proc ticks of the dommon process), RSS,
// CPU ms per check, checks done vs expected, p99 lateness against schedule, database bytes per
// check (over the run, and in steady state once every config has its rows), and the time from start
// until every config was checked once.
// Usage: node --import tsx bench/probes.ts [--duration SECONDS] [--only 100,500]
//   [--hosts N] [--dist | --root DIR] [--database-url postgres://SERVER] [--conditions] [--domains]
//   --conditions: every config judges a 10 KB JSON body by three conditions (docs/http-checks.md)
//   --database-url: each scenario on a fresh database of that (local) PostgreSQL server, with the
//   server's own CPU per check beside dommon's and the bytes on disk from PostgreSQL's relation sizes
//   BENCH_PROFILE=DIR writes a CPU profile of the daemon; BENCH_NODE_ARGS adds node flags (e.g. --perf-basic-prof)
//   (default duration: 3 intervals per N; the issue's set: N=100, 500, 2000 at 20 s, 10000 at 60 s;
//   on request: --only 0,1 for the idle daemon, --only 50000)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config/index.js';
import { seedLiveness } from './seed.js';
import { benchDatabase, type BenchDatabase } from './pg.js';
import { runScenarios, type ProbeTarget } from './report.js';
import { cpuTicks, rssMb, TICK } from './proc.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const durationFlag = flag('--duration') ? Number(flag('--duration')) : undefined;
const only = flag('--only')?.split(',').map(Number);
// --dist: run the daemon from the compiled dist/ (npm run build first), as `dommon serve` does.
// --root DIR: run the daemon from another compiled copy (e.g. `cp -r dist dist-b`), to compare two
// builds side by side on a busy machine: two runs started together share its noise.
const root = flag('--root') ?? (args.includes('--dist') ? 'dist' : 'src');
const useDist = root !== 'src';
// --hosts N: distinct host names among the configs (default 50); N = the config count makes every
// check resolve its own name (a DNS query each time its cached answer expires), as in a real fleet.
const HOSTS = Number(flag('--hosts') ?? 50);
const CONDITIONS = args.includes('--conditions')
  ? ['[STATUS] == 200', '[BODY].status == UP', 'len([BODY].data) > 100']
  : undefined;
const PG_SERVER = flag('--database-url');
// --domains: every config on a domain of its own, so each is a new domain whose first intel round
// (registration, DNS security, health) falls in the run; cpu_ms_total beside a run without it gives
// that round's CPU per domain.
const DOMAINS = args.includes('--domains');
const SCENARIOS = [
  // Only on request (--only 0,1): the idle daemon's fixed work, with no configuration and with one.
  { n: 0, interval: 20, onRequest: true },
  { n: 1, interval: 20, onRequest: true },
  { n: 100, interval: 20 },
  { n: 500, interval: 20 },
  { n: 2000, interval: 20 },
  { n: 10_000, interval: 60 },
  // Only on request (--only 50000): the size of issue #20.
  { n: 50_000, interval: 60, onRequest: true },
].filter((s) => (only ? only.includes(s.n) : !s.onRequest));

function lines(child: ChildProcess, onLine: (l: string) => void): void {
  createInterface({ input: child.stdout! }).on('line', onLine);
}

const LIVENESS_TABLES = ['liveness_results', 'liveness_hourly', 'liveness_daily', 'liveness_state'];

/** Bytes of the liveness tables (pages, indexes included): SQLite's dbstat, or PostgreSQL's relation sizes. */
async function livenessBytes(file: string, pgdb: BenchDatabase | null, tables = LIVENESS_TABLES): Promise<number> {
  if (pgdb) return pgdb.bytes(tables);
  const db = new Database(file, { readonly: true });
  try {
    const r = db
      .prepare(`select sum(pgsize) as b from dbstat where name in (${tables.map((t) => `'${t}'`).join(',')})`)
      .get() as { b: number };
    return r.b ?? 0;
  } finally {
    db.close();
  }
}

/** Bytes per row of the hourly and daily aggregate tables (pages over rows, indexes included). */
async function bucketRowBytes(file: string, pgdb: BenchDatabase | null): Promise<{ hourly: number; daily: number }> {
  if (pgdb) {
    const per = async (t: string) => {
      const n = await pgdb.count(t);
      return n ? (await pgdb.bytes([t])) / n : 0;
    };
    return { hourly: await per('liveness_hourly'), daily: await per('liveness_daily') };
  }
  const db = new Database(file, { readonly: true });
  try {
    const per = (t: string) => {
      const b = (db.prepare(`select sum(pgsize) as b from dbstat where name = '${t}'`).get() as { b: number }).b ?? 0;
      const n = (db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n;
      return n ? b / n : 0;
    };
    return { hourly: per('liveness_hourly'), daily: per('liveness_daily') };
  } finally {
    db.close();
  }
}

async function scenario(n: number, interval: number, target: ProbeTarget) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-probes-'));
  // Named after the build too: two builds run side by side (--root) are told apart in the server's process list.
  const pgdb = PG_SERVER
    ? await benchDatabase(PG_SERVER, `probes_${path.basename(root).replace(/\W/g, '_').toLowerCase()}`)
    : null;
  const config = loadConfig({ dataDir, ...(pgdb ? { databaseUrl: pgdb.url } : {}) });
  await seedLiveness(config, {
    n,
    interval,
    port: target.port,
    hosts: HOSTS,
    conditions: CONDITIONS,
    domains: DOMAINS,
  });
  const bytes0 = await livenessBytes(config.dbPath, pgdb);
  const raw0 = await livenessBytes(config.dbPath, pgdb, ['liveness_results']);
  const count = async () => Number(await (await fetch(`http://127.0.0.1:${target.port}/__count`)).text());
  const requests0 = await count();

  const nodeArgs = [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : []),
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(useDist ? [] : ['--import', 'tsx']),
  ];
  const child = spawn(process.execPath, [...nodeArgs, 'bench/probe-daemon.mjs', dataDir, root], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      DOMMON_DNS_SERVERS: target.dns,
      DOMMON_LOG_LEVEL: 'warn',
      ...(pgdb ? { DOMMON_DATABASE_URL: pgdb.url } : {}),
    },
  });
  // The daemon's stats lines (bench/probe-daemon.mjs); the last, written on SIGTERM, adds the lateness percentiles.
  let last = {} as {
    checks: number;
    checkedOnce: number;
    allCheckedMs: number | null;
    p99?: number | null;
    max?: number | null;
  };
  const started = await new Promise<number>((resolve, reject) => {
    lines(child, (l) => {
      // Anything else on the daemon's stdout (node's --trace-gc through BENCH_NODE_ARGS) goes to stderr.
      if (!l.startsWith('{')) return void process.stderr.write(`${l}\n`);
      const j = JSON.parse(l) as typeof last & { listening?: string };
      if (j.listening) resolve(Date.now());
      else last = j;
    });
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}`)));
  });
  const pid = child.pid!;
  const ticks0 = cpuTicks(pid);
  const zero = { user: 0, sys: 0 };
  const pgTicks0 = pgdb?.serverTicks() ?? zero;
  // Start-up: from `listening` to the end of the first interval plus 5 s (every config has run once,
  // has its state row and this hour's and day's aggregate rows, and the JIT has warmed up). Steady
  // state: from there to the end of the run (by default 3 intervals, at least 60 s): what the daemon
  // costs for as long as it runs, the figure set against Uptime Kuma's.
  const steadyAt = started + interval * 1000 + 5000;
  const duration = (durationFlag ?? interval + 5 + Math.max(60, interval * 3)) * 1000;
  const until = started + duration;
  let rssMax = 0;
  let steady: {
    bytes: number;
    checks: number;
    ticks: { user: number; sys: number };
    pgTicks: { user: number; sys: number };
    at: number;
  } | null = null;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    rssMax = Math.max(rssMax, rssMb(pid));
    if (!steady && Date.now() >= steadyAt && until - Date.now() > interval * 500) {
      steady = {
        ticks: cpuTicks(pid),
        pgTicks: pgdb?.serverTicks() ?? zero,
        checks: last.checks,
        at: Date.now(),
        bytes: await livenessBytes(config.dbPath, pgdb),
      };
    }
  }
  const elapsed = (Date.now() - started) / 1000;
  const t1 = cpuTicks(pid);
  const pgT1 = pgdb?.serverTicks() ?? zero;
  const t1At = Date.now();
  const checksAtEnd = last.checks;
  const requests = (await count()) - requests0;
  const bytesAtEnd = await livenessBytes(config.dbPath, pgdb);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const stats = last; // the final line, written on SIGTERM, carries the lateness percentiles
  const bytes = (await livenessBytes(config.dbPath, pgdb)) - bytes0;
  const rawBytes = (await livenessBytes(config.dbPath, pgdb, ['liveness_results'])) - raw0;
  // A new hourly row per config each hour and a daily row each day, spread over the checks of that hour / day.
  const bucketBytes = await bucketRowBytes(config.dbPath, pgdb);
  const perHour = 3600 / interval;
  const bucketPerCheck = bucketBytes.hourly / perHour + bucketBytes.daily / (24 * perHour);
  fs.rmSync(dataDir, { recursive: true, force: true });
  await pgdb?.drop();

  const sum = (t: { user: number; sys: number }) => t.user + t.sys;
  // Without a steady window (a --duration shorter than one interval) the whole run is reported.
  const from = steady ?? { ticks: ticks0, pgTicks: pgTicks0, checks: 0, at: started, bytes: bytes0 };
  const ticks = sum(t1) - sum(from.ticks);
  const pgTicksUsed = sum(pgT1) - sum(from.pgTicks);
  const windowSec = (t1At - from.at) / 1000;
  const windowChecks = Math.max(1, checksAtEnd - from.checks);
  const startTicks = steady ? sum(steady.ticks) - sum(ticks0) : null;
  const steadyPerCheck =
    steady && checksAtEnd > steady.checks
      ? (bytesAtEnd - steady.bytes) / (checksAtEnd - steady.checks) + bucketPerCheck
      : null;
  // Expected: first runs spread over one interval, then one per interval.
  const expected = Math.round((n * elapsed) / interval);
  return {
    N: n,
    engine: pgdb ? 'postgres' : 'sqlite',
    interval_s: interval,
    seconds: Math.round(elapsed),
    steady_s: Math.round(windowSec),
    'cpu_%_core': +((ticks / TICK / windowSec) * 100).toFixed(1),
    // The same, as milliseconds of CPU per second (the idle daemon's fixed work at N=0 and 1).
    cpu_ms_per_s: +(((ticks / TICK) * 1000) / windowSec).toFixed(1),
    // The daemon's CPU over the whole run, from `listening` (start-up included).
    cpu_ms_total: Math.round(((sum(t1) - sum(ticks0)) / TICK) * 1000),
    rss_mb: Math.round(rssMax),
    cpu_ms_per_check: +(((ticks / TICK) * 1000) / windowChecks).toFixed(3),
    // PostgreSQL's own processes over the same window (null on SQLite, whose work is in dommon's figure).
    pg_cpu_ms_per_check: pgdb ? +(((pgTicksUsed / TICK) * 1000) / windowChecks).toFixed(3) : null,
    // Share of that CPU spent in the kernel (loopback TCP handshakes are charged to the prober).
    'kernel_%': ticks ? Math.round(((t1.sys - from.ticks.sys) / ticks) * 100) : 0,
    // The start-up window: first-run spread, JIT warm-up, first rows of every table.
    start_cpu_ms_per_check:
      startTicks === null ? null : +(((startTicks / TICK) * 1000) / Math.max(1, steady!.checks)).toFixed(3),
    checks: stats.checks,
    expected,
    target_requests: requests,
    p99_late_ms: Math.round(stats.p99 ?? 0),
    max_late_ms: Math.round(stats.max ?? 0),
    // All liveness tables over the whole run (raw rows + per-config state and hourly/daily rows, a fixed
    // cost per config that dominates short runs) and the raw results table alone.
    db_bytes_per_check: +(bytes / Math.max(1, stats.checks)).toFixed(1),
    raw_bytes_per_check: +(rawBytes / Math.max(1, stats.checks)).toFixed(1),
    // Growth of every liveness table (indexes included) in the steady window, plus each check's share
    // of the next hour's and day's aggregate rows: what a long-running daemon adds per check.
    steady_bytes_per_check: steadyPerCheck === null ? null : +steadyPerCheck.toFixed(1),
    checked_once: stats.checkedOnce,
    all_checked_s: stats.allCheckedMs === null ? null : +(stats.allCheckedMs / 1000).toFixed(1),
  };
}

await runScenarios(SCENARIOS, (s, target) => scenario(s.n, s.interval, target));
