// bench/cluster: 1, 2 and 3 worker nodes on one PostgreSQL database at a fixed fleet (default 20,000
// liveness configs at 60 s), each node a real dommon process (bench/probe-daemon.mjs) claiming its
// checks from the shared due-queue (src/scheduler/liveness.ts), all probing one loopback HTTP target.
// Per node count: checks per minute achieved against expected, CPU ms per check of each node,
// PostgreSQL's own CPU ms per check (its processes, from /proc), the claim rounds' p99, lateness p99
// (the worst node's), runs taken over and results fenced out, and the machine's speed for PostgreSQL
// now (bench/pg.ts referenceMs) with the check's cost in those reference statements.
// Usage: npm run build && node --import tsx bench/cluster.ts --database-url postgres://SERVER
//   [--nodes 1,2,3] [--n 20000] [--interval 60] [--window 120] [--hosts 50]
// The PostgreSQL server must run on this machine (scripts/pg-cluster.sh start DIR prints its URL).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../src/config/index.js';
import { benchDatabase } from './pg.js';
import { runScenarios, type ProbeTarget } from './report.js';
import { cpuTicks, TICK } from './proc.js';
import { seedLiveness } from './seed.js';

const args = process.argv.slice(2);
const flag = (name: string, def?: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : def;
};
const SERVER = flag('--database-url');
if (!SERVER) {
  console.error('usage: node --import tsx bench/cluster.ts --database-url postgres://SERVER [--nodes 1,2,3]');
  process.exit(2);
}
const NODES = flag('--nodes', '1,2,3')!.split(',').map(Number);
const N = Number(flag('--n', '20000'));
const INTERVAL = Number(flag('--interval', '60'));
const WINDOW = Number(flag('--window', '120'));
const HOSTS = Number(flag('--hosts', '50'));

interface Line {
  checks: number;
  p99?: number | null;
  claimP99?: number | null;
  claimed?: number;
  takenOver?: number;
  fencedOut?: number;
}

interface Node {
  child: ChildProcess;
  last: Line;
  dir: string;
}

async function startNode(i: number, url: string, dns: string): Promise<Node> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-cluster-'));
  const child = spawn(process.execPath, ['bench/probe-daemon.mjs', dir, 'dist'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      DOMMON_DATABASE_URL: url,
      DOMMON_ROLE: 'worker',
      DOMMON_NODE_NAME: `bench-${i}`,
      DOMMON_DNS_SERVERS: dns,
      DOMMON_LOG_LEVEL: 'warn',
      DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
      DOMMON_WHOIS_SERVER: '127.0.0.1:9',
      DOMMON_IANA_WHOIS: '127.0.0.1:9',
    },
  });
  const node: Node = { child, last: { checks: 0 }, dir };
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const j = JSON.parse(l) as Line & { listening?: string };
      if (j.listening) resolve();
      else node.last = j;
    });
    child.once('exit', (code) => reject(new Error(`node ${i} exited ${code}`)));
  });
  return node;
}

async function scenario(k: number, target: ProbeTarget) {
  const db = await benchDatabase(SERVER!, 'cluster');
  const seedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-cluster-seed-'));
  await seedLiveness(loadConfig({ dataDir: seedDir, databaseUrl: db.url }), {
    n: N,
    interval: INTERVAL,
    port: target.port,
    hosts: HOSTS,
  });
  // How fast the machine runs PostgreSQL's work now, before the nodes start and after they stop.
  const ref0 = await db.referenceMs();
  const nodes: Node[] = [];
  for (let i = 0; i < k; i++) nodes.push(await startNode(i + 1, db.url, target.dns));
  // The first interval spreads the first runs (the queue's repair makes each config due within a minute).
  await new Promise((r) => setTimeout(r, (INTERVAL + 10) * 1000));
  const sum = (x: { user: number; sys: number }) => x.user + x.sys;
  const t0 = Date.now();
  const cpu0 = nodes.map((n) => sum(cpuTicks(n.child.pid!)));
  const checks0 = nodes.map((n) => n.last.checks);
  const pg0 = sum(db.serverTicks());
  await new Promise((r) => setTimeout(r, WINDOW * 1000));
  const secs = (Date.now() - t0) / 1000;
  const cpu1 = nodes.map((n) => sum(cpuTicks(n.child.pid!)));
  const checks1 = nodes.map((n) => n.last.checks);
  const pg1 = sum(db.serverTicks());
  for (const n of nodes) {
    const exited = new Promise((r) => n.child.once('exit', r));
    n.child.kill('SIGTERM');
    await exited;
  }
  const finals = nodes.map((n) => n.last);
  const ref = (ref0 + (await db.referenceMs())) / 2;
  for (const n of nodes) fs.rmSync(n.dir, { recursive: true, force: true });
  fs.rmSync(seedDir, { recursive: true, force: true });
  await db.drop();
  const checks = checks1.map((c, i) => c - checks0[i]!);
  const total = checks.reduce((a, b) => a + b, 0);
  const ms = (ticks: number, n: number) => +(((ticks / TICK) * 1000) / Math.max(1, n)).toFixed(3);
  return {
    nodes: k,
    configs: N,
    interval_s: INTERVAL,
    window_s: Math.round(secs),
    checks_per_min: Math.round((total / secs) * 60),
    expected_per_min: Math.round((N * 60) / INTERVAL),
    share_per_node: checks.map((c) => `${Math.round((c / Math.max(1, total)) * 100)}%`).join(' '),
    cpu_ms_per_check_per_node: checks.map((c, i) => ms(cpu1[i]! - cpu0[i]!, c)).join(' '),
    pg_cpu_ms_per_check: ms(pg1 - pg0, total),
    // The reference (bench/pg.ts): the server's CPU ms per 1,000 one-row updates, and what a check
    // cost in those updates (a figure a slower or faster hour of a shared machine moves far less).
    pg_ref_ms_per_1000: +ref.toFixed(1),
    pg_check_in_ref_updates: +(ms(pg1 - pg0, total) / (ref / 1000)).toFixed(2),
    claim_p99_ms: Math.max(...finals.map((f) => f.claimP99 ?? 0)).toFixed(1),
    late_p99_ms: Math.round(Math.max(...finals.map((f) => f.p99 ?? 0))),
    taken_over: finals.reduce((a, f) => a + (f.takenOver ?? 0), 0),
    fenced_out: finals.reduce((a, f) => a + (f.fencedOut ?? 0), 0),
  };
}

await runScenarios(NODES, (k, target) => scenario(k, target));
console.log(`\nNode ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}`);
