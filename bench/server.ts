// The real dommon app plus one bare route (`GET /__ceiling` -> {}) that measures koa's own ceiling
// through the same server: no auth, no database. Used only by bench/api.ts.
import { loadConfig } from '../src/config/index.js';
import { createApp } from '../src/app.js';
import { pino } from 'pino';

const config = loadConfig({ dataDir: process.argv[2], port: 0 }, { ...process.env, DOMMON_RATE_LIMIT: '1000000000' });
const app = await createApp(config, { log: pino({ level: 'silent' }) });
app.router.get('/__ceiling', (ctx) => {
  ctx.body = {};
});
// Routes registered after start() would not be seen by an already-composed router, so add first.
const { url } = await app.start();
process.stdout.write(`listening on ${url}\n`);
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
