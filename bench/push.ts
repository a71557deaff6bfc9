// bench/push: what N push (heartbeat) monitors cost a daemon that is waiting for their pings. A push
// check asks the liveness scheduler for its next deadline instead of being run every interval, so
// once each one had its first check nothing should run until a ping is due: this counts the checks
// and the process's CPU time in a window after that, and the cost of a ping.
//   1. N push endpoints (a one-hour period and a one-hour grace) created in one process with the daemon
//      (its services' bulk create, as POST /api/v1/endpoints/bulk runs it), on SQLite;
//   2. wait until every liveness configuration had its first check (spread over one 60 s interval);
//   3. a measured window: checks run (liveness_results rows written), CPU time (user + sys) of the
//      process, and the liveness scheduler's pending timers;
//   4. 1,000 success pings in sequence through the service: CPU time per ping.
// Usage: node --import tsx bench/push.ts [--n 10000] [--window 30]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { createApp } from '../src/app.js';

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : def;
};
const N = Number(flag('--n', '10000'));
const WINDOW_S = Number(flag('--window', '30'));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-push-'));
const config = loadConfig(
  { dataDir: dir, port: 0, host: '127.0.0.1' },
  {
    DOMMON_LOG_LEVEL: 'error',
    DOMMON_DNS_SERVERS: '127.0.0.1:9',
    DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
    DOMMON_WHOIS_SERVER: '127.0.0.1:9',
    DOMMON_IANA_WHOIS: '127.0.0.1:9',
    DOMMON_MAX_ENDPOINTS: String(N + 10),
  },
);
const app = await createApp(config);
await app.start();
const { store, services } = app;
const { team_id: team } = await services.access.createToken({ team: 'bench' });
const domain = await services.domains.create(team, { domain: 'example.com' });

let firstId: string | undefined;
const t0 = performance.now();
for (let i = 0; i < N; i += 1000) {
  const items = Array.from({ length: Math.min(1000, N - i) }, (_, k) => ({
    domain_id: domain.id,
    name: `job-${i + k}`,
    endpoint_type: 'push' as const,
    period_seconds: 3600,
    grace_seconds: 3600,
  }));
  const r = await services.endpoints.bulkCreate(team, items, (x) => x as never);
  if (r.failed.length) throw new Error(`create failed: ${JSON.stringify(r.failed[0])}`);
  firstId ??= r.created[0]!.id;
}
const created = performance.now() - t0;

const count = async () =>
  Number(
    (
      await store.db
        .selectFrom('liveness_results')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
// Every configuration's first check (each new one runs within its first interval).
const firstBy = Date.now() + 180_000;
let checked = 0;
while ((checked = await count()) < N && Date.now() < firstBy) await new Promise((r) => setTimeout(r, 1000));
if (checked < N) throw new Error(`only ${checked} of ${N} first checks within 180 s`);
await new Promise((r) => setTimeout(r, 2000));

const before = await count();
const cpu0 = process.cpuUsage();
const w0 = performance.now();
await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - w0;
const ran = (await count()) - before;

const key = (await store.push.byEndpoint(firstId!))!.ping_key;
const p0 = process.cpuUsage();
const pw = performance.now();
for (let i = 0; i < 1000; i++) await services.push.ping(key, undefined, null);
const pcpu = process.cpuUsage(p0);
const pwall = performance.now() - pw;

const ms = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
console.log(
  JSON.stringify(
    {
      push_monitors: N,
      create_s: +(created / 1000).toFixed(1),
      window_s: +(wall / 1000).toFixed(1),
      checks_in_window: ran,
      cpu_ms_in_window: Math.round(ms(cpu)),
      cpu_percent_of_one_core: +((ms(cpu) / wall) * 100).toFixed(2),
      ping_cpu_ms: +(ms(pcpu) / 1000).toFixed(3),
      ping_wall_ms: +(pwall / 1000).toFixed(3),
      load: os.loadavg().map((x) => +x.toFixed(1)),
    },
    null,
    2,
  ),
);
await app.stop();
fs.rmSync(dir, { recursive: true, force: true });
