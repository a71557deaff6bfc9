// The real dommon app for bench/probes, started on a seeded data dir: from the compiled dist/ (as
// `dommon serve` runs) or from src/ under tsx. Once a second it prints the liveness scheduler's
// figures as one JSON line (lateness percentiles only in the last one, on SIGTERM). SIGTERM stops it the way `dommon serve` does.
// Usage: node bench/probe-daemon.mjs DATA_DIR dist   |   node --import tsx bench/probe-daemon.mjs DATA_DIR src
import { pino } from 'pino';
import Database from 'better-sqlite3';

// BENCH_SQL=1: time every SQLite statement by its text and print the top ones to stderr on exit.
const sqlTime = new Map();
if (process.env.BENCH_SQL) {
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const orig = proto[m];
    proto[m] = function (...a) {
      const t = performance.now();
      try {
        return orig.apply(this, a);
      } finally {
        const k = this.source.replace(/\s+/g, ' ').slice(0, 160);
        const cur = sqlTime.get(k) ?? { ms: 0, n: 0 };
        cur.ms += performance.now() - t;
        cur.n++;
        sqlTime.set(k, cur);
      }
    };
  }
}

const [dataDir, root = 'src'] = process.argv.slice(2);
const { loadConfig } = await import(`../${root}/config/index.js`);
const { createApp } = await import(`../${root}/app.js`);
// The heap policy of `dommon serve` (src/cli/heap.ts).
(await import(`../${root}/cli/heap.js`)).tuneHeap();
const config = loadConfig({ dataDir, port: 0 }, process.env);
const app = await createApp(config, { log: pino({ level: 'warn' }, pino.destination(2)) });
const { url } = await app.start();
const sched = app.probing.liveness;
process.stdout.write(`${JSON.stringify({ listening: url, size: sched.size() })}\n`);
let allAt = null;
// Lateness percentiles are computed once, in the last line (on SIGTERM): sorting every run's lateness
// each second would charge the harness's own work to the daemon's CPU.
function line(final) {
  // (On PostgreSQL size() is what the node holds now, not the fleet: no such figure there. On SQLite
  // the one process holds its whole queue once its first claim is in.)
  if (allAt === null && !config.database && sched.size() && sched.stats.firstRun.size >= sched.size())
    allAt = Math.max(...sched.stats.firstRun.values()) - sched.stats.startedAt;
  const mem = process.memoryUsage();
  const out = {
    checks: sched.stats.checks,
    size: sched.size(),
    checkedOnce: sched.stats.firstRun.size,
    allCheckedMs: allAt,
    heapMb: Math.round(mem.heapUsed / 1e6),
    heapTotalMb: Math.round(mem.heapTotal / 1e6),
    externalMb: Math.round(mem.external / 1e6),
  };
  if (final) {
    const late = Float64Array.from(sched.stats.lateMs).sort();
    Object.assign(out, {
      final: true,
      p99: late.length ? late[Math.floor(late.length * 0.99)] : null,
      max: late.at(-1) ?? null,
    });
    // On PostgreSQL (the shared due-queue): claim rounds' time and runs taken over.
    if (config.database && sched.stats.claimMs) {
      const claim = Float64Array.from(sched.stats.claimMs).sort();
      Object.assign(out, {
        claimP99: claim.length ? claim[Math.floor(claim.length * 0.99)] : null,
        claimed: sched.stats.claimed,
        takenOver: sched.stats.takenOver,
        fencedOut: sched.stats.fencedOut,
      });
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
const timer = setInterval(() => line(false), 1000);
process.on('SIGTERM', () => {
  clearInterval(timer);
  line(true);
  if (process.env.BENCH_SQL) {
    const top = [...sqlTime].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
    for (const [k, v] of top)
      process.stderr.write(`${v.ms.toFixed(0).padStart(7)} ms ${String(v.n).padStart(7)}x  ${k}\n`);
  }
  void app.stop().then(() => process.exit(0));
});
