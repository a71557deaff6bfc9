// bench/api: seeds 10,000 domains for one team, then measures GET /api/v1/domains?limit=50 and
// POST /api/v1/domains next to the bare koa ceiling, with 16 concurrent keep-alive clients.
// Then each route again at PACED_SHARE (default 0.5) of the rate it sustained: latency under load, not at saturation.
// Usage: npm run bench   (DURATION=5 ROUNDS=5 CONCURRENCY=16 SEED=10000 PACED_SHARE=0.5 to change; ONLY=list,uncached,post picks routes)
//   npm run bench -- --database-url postgres://SERVER: the same on a fresh database of that (local)
//   PostgreSQL server, with the server's own CPU per request beside dommon's (bench/pg.ts)
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { benchDatabase } from './pg.js';
import { cpuTicks, settled, TICK } from './proc.js';
import { domainRow } from '../test/support/rows.js';

const DURATION = Number(process.env.DURATION ?? 5) * 1000;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const SEED = Number(process.env.SEED ?? 10_000);

const pgFlag = process.argv.indexOf('--database-url');
const pgdb = pgFlag >= 0 ? await benchDatabase(process.argv[pgFlag + 1]!, 'api') : null;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-'));
const config = loadConfig({ dataDir, ...(pgdb ? { databaseUrl: pgdb.url } : {}) });
const { store, services } = await openLocal(config);
const { token, team_id } = await services.access.createToken({ team: 'bench' });
const t0 = Date.now();
await store.transaction(async (tx) => {
  const now = new Date().toISOString();
  // As on a daemon that has been running: each seeded domain had its registration and DNS-security
  // refresh, the next one a day away (the domains the benchmark creates are due at once, as usual).
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  for (let i = 0; i < SEED; i++) {
    const id = crypto.randomUUID();
    await tx.schedule.addTarget(['registration', 'security'], id, tomorrow);
    await tx.domains.insert(
      domainRow({ id, team_id, domain: `seed-${i}.example.com`, token: `dommon-verify-${i}`, at: now }),
    );
  }
});
await store.close();
console.log(`seeded ${SEED} domains in ${Date.now() - t0} ms`);

// BENCH_PROFILE=DIR writes a CPU profile of the server; ONLY=post,list picks routes (the ceiling always runs).
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
const server = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/server.ts', dataDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, ...(pgdb ? { DOMMON_DATABASE_URL: pgdb.url } : {}) },
});
const base = await new Promise<string>((resolve, reject) => {
  server.stdout.on('data', (d: Buffer) => {
    const m = /listening on (http:\/\/\S+)/.exec(d.toString());
    if (m) resolve(m[1]!);
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});
// The daemon's start-up work (the first verification cycle over the seeded, unverified domains, the
// schedule sync) is a burst of its own: windows start once it has died down.
const settleMs = await settled(server.pid!);
console.log(`daemon start-up work settled after ${settleMs} ms`);
const url = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function once(method: string, p: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: p,
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if ((res.statusCode ?? 500) >= 400) reject(new Error(`${method} ${p}: ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - start) / 1e6);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let counter = 0;
type Route = { name: string; make: () => [string, string, string?] };
type Tally = { name: string; lat: number[]; secs: number; cpuTicks: number; pgTicks: number; clientUs: number };

/** One window of `ms` with CONCURRENCY clients on one route; latencies appended to the tally. */
async function window(route: Route, tally: Tally, ms: number): Promise<void> {
  const end = Date.now() + ms;
  const t = Date.now();
  const cpu = () => {
    const c = cpuTicks(server.pid!);
    return c.user + c.sys;
  };
  const pgCpu = () => {
    const c = pgdb?.serverTicks() ?? { user: 0, sys: 0 };
    return c.user + c.sys;
  };
  const c0 = cpu();
  const pg0 = pgCpu();
  const own = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) tally.lat.push(await once(...route.make()));
    }),
  );
  tally.secs += (Date.now() - t) / 1000;
  tally.cpuTicks += cpu() - c0;
  tally.pgTicks += pgCpu() - pg0;
  const used = process.cpuUsage(own);
  tally.clientUs += used.user + used.system;
}

/**
 * CONCURRENCY clients offering `rate` requests/s between them for `ms`: each client sends on its own
 * schedule (one request every CONCURRENCY/rate s) and waits for the answer. Latency counts from the
 * scheduled send time, so a stall that delays the next send is counted, not hidden (no coordinated omission).
 */
async function paced(route: Route, rate: number, ms: number): Promise<number[]> {
  const lat: number[] = [];
  const gap = (CONCURRENCY / rate) * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      for (let k = 0; ; k++) {
        const due = t0 + (c / CONCURRENCY) * gap + k * gap;
        if (due - t0 >= ms) return;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await once(...route.make());
        lat.push(performance.now() - due);
      }
    }),
  );
  return lat.sort((a, b) => a - b);
}

/** The server's event-loop delay since the previous call (bench/server.ts's `/__lag`). */
async function lagSince(): Promise<{ p99: number; max: number }> {
  const res = await fetch(new URL('/__lag', url));
  return (await res.json()) as { p99: number; max: number };
}

const allRoutes: (Route & { key: string })[] = [
  { key: 'ceiling', name: 'ceiling GET /__ceiling', make: () => ['GET', '/__ceiling'] },
  { key: 'list', name: 'GET /api/v1/domains?limit=50', make: () => ['GET', '/api/v1/domains?limit=50'] },
  // A query string never seen before defeats the response cache: a real page query every time.
  {
    key: 'uncached',
    name: 'GET /api/v1/domains?limit=50 (uncached)',
    make: () => ['GET', `/api/v1/domains?limit=50&u=${counter++}`],
  },
  {
    key: 'post',
    name: 'POST /api/v1/domains',
    make: () => ['POST', '/api/v1/domains', JSON.stringify({ domain: `new-${counter++}.example.org` })],
  },
];
const only = process.env.ONLY?.split(',');
const ceilingRoute = allRoutes[0]!;
// Two phases, each interleaving its routes with the ceiling: reads first, then writes. A create
// leaves work behind (the new domain's registration and DNS-security refresh, WAL pages to
// checkpoint) that would otherwise land in the read windows after it.
const phases = [
  { name: 'reads', routes: allRoutes.filter((r) => r.key === 'list' || r.key === 'uncached') },
  { name: 'writes', routes: allRoutes.filter((r) => r.key === 'post') },
]
  .map((ph) => ({ ...ph, routes: ph.routes.filter((r) => !only || only.includes(r.key)) }))
  .filter((ph) => ph.routes.length);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
type Result = {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
  pgMs: number;
  clientMs: number;
  ceiling: number;
};
const results: Result[] = [];
const PACED_SHARE = Number(process.env.PACED_SHARE ?? 0.5);
const pacedResults: {
  name: string;
  rate: number;
  done: number;
  p50: number;
  p99: number;
  lag: { p99: number; max: number };
}[] = [];
for (const ph of phases) {
  const routes = [ceilingRoute, ...ph.routes];
  // Warm-up, then ROUNDS rounds in which every route gets DURATION/ROUNDS: the routes share the same
  // moments of machine load, so their ratio to the ceiling stays meaningful on a busy machine.
  for (const r of routes) for (let i = 0; i < 200; i++) await once(...r.make());
  const tallies: Tally[] = routes.map((r) => ({
    name: r.name,
    lat: [],
    secs: 0,
    cpuTicks: 0,
    pgTicks: 0,
    clientUs: 0,
  }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, r] of routes.entries()) await window(r, tallies[i]!, DURATION / ROUNDS);
  }
  const rows = tallies.map((t) => {
    t.lat.sort((a, b) => a - b);
    const pct = (p: number) => t.lat[Math.min(t.lat.length - 1, Math.floor(t.lat.length * p))]!;
    return {
      name: t.name,
      rps: t.lat.length / t.secs,
      p50: pct(0.5),
      p99: pct(0.99),
      cpuMs: ((t.cpuTicks / TICK) * 1000) / t.lat.length,
      pgMs: ((t.pgTicks / TICK) * 1000) / t.lat.length,
      clientMs: t.clientUs / 1000 / t.lat.length,
    };
  });
  const ceiling = rows[0]!.rps;
  rows[0]!.name = `${rows[0]!.name} (${ph.name} phase)`;
  results.push(...rows.map((r) => ({ ...r, ceiling })));
  // The same routes at half the rate they just sustained: latency under load, not at saturation (where a
  // closed loop's latency is only CONCURRENCY / throughput).
  for (const [i, r] of ph.routes.entries()) {
    const rate = Math.round(rows[i + 1]!.rps * PACED_SHARE);
    await lagSince();
    const lat = await paced(r, rate, DURATION);
    const lag = await lagSince();
    const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))]!;
    pacedResults.push({ name: r.name, rate, done: lat.length / (DURATION / 1000), p50: pct(0.5), p99: pct(0.99), lag });
  }
}
const load = os.loadavg()[0]!.toFixed(1);
console.log(
  `\n${CONCURRENCY} concurrent clients, ${DURATION / 1000} s per route in ${ROUNDS} interleaved rounds per phase, ${SEED} domains seeded, Node ${process.version}, ${os.cpus().length} cores, load average ${load}\n`,
);
console.log(
  `| route | req/s | p50 ms | p99 ms | % of its phase's ceiling | server CPU ms/request | client CPU ms/request |${pgdb ? ' PostgreSQL CPU ms/request |' : ''}`,
);
console.log(`| --- | ---: | ---: | ---: | ---: | ---: | ---: |${pgdb ? ' ---: |' : ''}`);
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${((r.rps / r.ceiling) * 100).toFixed(0)}% | ${r.cpuMs.toFixed(3)} | ${r.clientMs.toFixed(3)} |${pgdb ? ` ${r.pgMs.toFixed(3)} |` : ''}`,
  );
}
console.log(
  `\nThe same ${CONCURRENCY} clients offering ${Math.round(PACED_SHARE * 100)}% of each route's throughput above (latency from the scheduled send time):\n`,
);
console.log('| route | offered req/s | done req/s | p50 ms | p99 ms | server event-loop delay p99 / max ms |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of pacedResults)
  console.log(
    `| ${r.name} | ${r.rate} | ${r.done.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.lag.p99.toFixed(1)} / ${r.lag.max.toFixed(1)} |`,
  );
const list = results.find((r) => r.name === 'GET /api/v1/domains?limit=50');
if (list)
  console.log(
    `\nlist/ceiling ratio ${(list.rps / list.ceiling).toFixed(2)} (target >= 0.35), list p99 ${list.p99.toFixed(2)} ms (target < 10 ms)`,
  );
server.kill('SIGTERM');
agent.destroy();
await new Promise((r) => server.on('exit', r));
fs.rmSync(dataDir, { recursive: true, force: true });
await pgdb?.drop();
