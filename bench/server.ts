// The real dommon app plus one bare route (`GET /__ceiling` -> {}) that measures koa's own ceiling
// through the same server: no auth, no database, and `GET /__lag` (its event-loop delay). Used by
// bench/api.ts and bench/endpoint-status.ts.
import { loadConfig } from '../src/config/index.js';
import { createApp } from '../src/app.js';
import { pino } from 'pino';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const config = loadConfig({ dataDir: process.argv[2], port: 0 }, { ...process.env, DOMMON_RATE_LIMIT: '1000000000' });
const app = await createApp(config, { log: pino({ level: 'silent' }) });
app.router.get('/__ceiling', (ctx) => {
  ctx.body = {};
});
// The server's event-loop delay since the last call (ms), then reset: tells server stalls from client ones.
const lag = monitorEventLoopDelay({ resolution: 1 });
lag.enable();
app.router.get('/__lag', (ctx) => {
  ctx.body = { p50: lag.percentile(50) / 1e6, p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
  lag.reset();
});
// Routes registered after start() would not be seen by an already-composed router, so add first.
const { url } = await app.start();
// BENCH_NO_PROBING=1: no liveness probes or TLS inspections beside the requests being measured.
if (process.env.BENCH_NO_PROBING) await app.probing.stop(0);
process.stdout.write(`listening on ${url}\n`);
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
