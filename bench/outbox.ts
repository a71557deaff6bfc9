// bench/outbox: deliveries per second of the notification outbox (src/services/delivery.ts) to a
// loopback webhook receiver (in its own process). Per scenario: N events of one team with one instant
// webhook row are fanned out into N queued deliveries first (not timed), then NODES apps (in this
// process, each with its own node name; several only on PostgreSQL; the worker's cycle every 100 ms)
// deliver them. Reported: the wall time until every delivery succeeded, deliveries per second in all
// and per node, the requests and TCP connections the receiver counted, CPU ms per delivery of this
// process and of the PostgreSQL server, and each node's attempts.
// Usage: node --import tsx bench/outbox.ts [--database-url postgres://SERVER] [--n 20000] [--nodes 1,3]
//   Without --database-url: SQLite (one node). The PostgreSQL server must run on this machine
//   (scripts/pg-cluster.sh start DIR prints its URL).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config/index.js';
import { createApp, openLocal, type App } from '../src/app.js';
import { createDeliveryService } from '../src/services/delivery.js';
import { benchDatabase, type BenchDatabase } from './pg.js';
import { TICK } from './proc.js';

const args = process.argv.slice(2);
const flag = (name: string, def?: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : def;
};
const SERVER = flag('--database-url');
const N = Number(flag('--n', '20000'));
const NODES = SERVER ? flag('--nodes', '1,3')!.split(',').map(Number) : [1];
const OFFLINE = {
  DOMMON_LOG_LEVEL: 'error',
  DOMMON_DNS_SERVERS: '127.0.0.1:9',
  DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
  DOMMON_WHOIS_SERVER: '127.0.0.1:9',
  DOMMON_IANA_WHOIS: '127.0.0.1:9',
};

// The receiver, in its own process so its CPU is not charged to dommon: answers 200 once the body is
// read; GET /__count answers the requests so far, GET /__connections the TCP connections accepted.
// Node's default keep-alive (5 s; bench/probe-target's 1 s makes undici open a connection per request).
const RECEIVER = `
const http = require('node:http');
let count = 0, connections = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/__count') return res.end(String(count));
  if (req.url === '/__connections') return res.end(String(connections));
  req.resume();
  req.on('end', () => { count++; res.end('ok'); });
});
server.on('connection', () => connections++);
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface Target {
  port: number;
}

const count = async (target: Target, what = 'count') =>
  Number(await (await fetch(`http://127.0.0.1:${target.port}/__${what}`)).text());

async function scenario(nodes: number, target: Target) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-outbox-'));
  let pgdb: BenchDatabase | null = null;
  if (SERVER) pgdb = await benchDatabase(SERVER, 'outbox');
  const env = { ...OFFLINE, ...(pgdb ? { DOMMON_DATABASE_URL: pgdb.url } : {}) };
  const log = pino({ level: 'silent' });
  // Seed: a team, its webhook row, N events, fanned out into N queued deliveries.
  {
    const { store, services } = await openLocal(loadConfig({ dataDir }, env));
    const tok = await services.access.createToken({ team: 'bench', user: 'ops@bench.test' });
    await store.notifications.upsertSetting(
      {
        team_id: tok.team_id,
        user_id: tok.user_id,
        notification_type: 'webhook',
        delivery_class: 'instant',
        is_enabled: true,
        frequency_days: null,
        notification_time: null,
        config: { webhook_url: `http://127.0.0.1:${target.port}/hook` },
        min_severity: 'medium',
      },
      new Date().toISOString(),
    );
    for (let i = 0; i < N; i += 500)
      await store.transaction(async (tx) => {
        for (let j = i; j < Math.min(N, i + 500); j++)
          await tx.events.add(
            { team_id: tok.team_id, event_type: 'liveness', severity: 'high', message: `down ${j}` },
            new Date().toISOString(),
          );
      });
    const fan = createDeliveryService({
      store,
      clock: { now: () => new Date() },
      log,
      deliver: () => Promise.reject(new Error('not here')),
    });
    while (await fan.pendingEvents()) await fan.fanOut(1000);
    await store.close();
  }
  const before = await count(target);
  const connectionsBefore = await count(target, 'connections');
  const apps: App[] = [];
  const cpu0 = process.cpuUsage();
  const pg0 = pgdb?.serverTicks();
  const t0 = performance.now();
  for (let i = 0; i < nodes; i++) {
    const app = await createApp(
      loadConfig(
        { dataDir: i ? fs.mkdtempSync(`${dataDir}-${i}`) : dataDir, port: 0, host: '127.0.0.1' },
        {
          ...env,
          DOMMON_NODE_NAME: `bench-${i + 1}`,
        },
      ),
      // The worker's cycle every 100 ms (the default DOMMON_NOTIFY_INTERVAL is 5 s).
      { log, notify: { intervalMs: 100 } },
    );
    await app.start();
    apps.push(app);
  }
  const { store } = apps[0]!;
  const succeeded = async () =>
    Number(
      (
        await store.db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'success')
          .executeTakeFirstOrThrow()
      ).n,
    );
  while ((await succeeded()) < N) await new Promise((r) => setTimeout(r, 100));
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pg1 = pgdb?.serverTicks();
  // Each node's attempts (dommon_notification_deliveries_total, summed over channel and outcome).
  const byNode = await Promise.all(
    apps.map(async (a) =>
      [...(await a.metrics.render()).body.matchAll(/^dommon_notification_deliveries_total\{[^}]*\} (\d+)$/gm)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      ),
    ),
  );
  const requests = (await count(target)) - before;
  const connections = (await count(target, 'connections')) - connectionsBefore;
  for (const a of apps) await a.stop();
  await pgdb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    engine: SERVER ? 'postgres' : 'sqlite',
    nodes,
    deliveries: N,
    seconds: Number(s.toFixed(1)),
    perSecond: Math.round(N / s),
    perNodePerSecond: Math.round(N / s / nodes),
    requests,
    connections,
    // CPU per delivery: this process (every node, the start-ups included) and the PostgreSQL server.
    nodeCpuMsPer: Number(((cpu.user + cpu.system) / 1000 / N).toFixed(2)),
    pgCpuMsPer: pg0 && pg1 ? Number((((pg1.user + pg1.sys - pg0.user - pg0.sys) * (1000 / TICK)) / N).toFixed(2)) : '-',
    attemptsByNode: byNode.join(' '),
  };
}

const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const target: Target = {
  port: await new Promise<number>((resolve) =>
    receiver.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString()))),
  ),
};
const rows: Record<string, unknown>[] = [];
try {
  for (const n of NODES) {
    const r = await scenario(n, target);
    console.log(JSON.stringify(r));
    rows.push(r);
  }
} finally {
  receiver.kill('SIGTERM');
}
const cols = Object.keys(rows[0] ?? {});
console.log(`\n| ${cols.join(' | ')} |\n| ${cols.map(() => '---:').join(' | ')} |`);
for (const r of rows) console.log(`| ${cols.map((c) => String(r[c] ?? '-')).join(' | ')} |`);
