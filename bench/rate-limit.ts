// bench/rate-limit: the cost of the per-team rate limit shared by several nodes on PostgreSQL
// (services/rate-limit.ts): for each slice size, TAKES requests spread over enough teams that every
// one is accepted, CONCURRENCY at a time, each node's limiter in this process. Reports database
// round trips per request, the claim's latency, wall time per request and the PostgreSQL server's
// CPU per request, beside the in-memory limiter (one process, SQLite).
// Usage: node --import tsx bench/rate-limit.ts --database-url postgres://SERVER  (TAKES=20000 CONCURRENCY=16 NODES=3)
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { localRateLimiter, sharedRateLimiter, type RateLimiter } from '../src/services/rate-limit.js';
import { systemClock } from '../src/domain/clock.js';
import { benchDatabase } from './pg.js';
import { TICK } from './proc.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TAKES = Number(process.env.TAKES ?? 20_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const NODES = Number(process.env.NODES ?? 3);
const flag = process.argv.indexOf('--database-url');
if (flag < 0) throw new Error('usage: bench/rate-limit.ts --database-url postgres://SERVER');
const pgdb = await benchDatabase(process.argv[flag + 1]!, 'ratelimit');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-'));
const { store } = await openLocal(loadConfig({ dataDir, databaseUrl: pgdb.url }));

interface Row {
  name: string;
  slice: number | string;
  perTakeUs: number;
  roundTrips: number;
  claimMs: number;
  pgUsPerTake: number;
  accepted: number;
}

async function run(
  name: string,
  limit: number,
  limiters: RateLimiter[],
  claims: () => { n: number; ms: number },
): Promise<Row> {
  const teams = Math.ceil(TAKES / limit);
  let next = 0;
  let accepted = 0;
  const pg0 = pgdb.serverTicks();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TAKES) {
        const i = next++;
        // Round robin over teams and over the nodes, as a load balancer would spread them.
        const d = await limiters[i % limiters.length]!.take(`${name}-team-${i % teams}`);
        if (d.allowed) accepted++;
      }
    }),
  );
  const ms = performance.now() - t0;
  const pg1 = pgdb.serverTicks();
  const pgTicks = pg1.user + pg1.sys - pg0.user - pg0.sys;
  const { n, ms: claimMs } = claims();
  return {
    name,
    slice: name,
    perTakeUs: (ms * 1000) / TAKES,
    roundTrips: n / TAKES,
    claimMs: n ? claimMs / n : 0,
    pgUsPerTake: ((pgTicks / TICK) * 1e6) / TAKES,
    accepted,
  };
}

const rows: Row[] = [];
const local = localRateLimiter(1_000_000, systemClock);
rows.push({ ...(await run('memory', 1_000_000, [local], () => ({ n: 0, ms: 0 }))), slice: '-' });
for (const [limit, slice] of [
  [100, 1],
  [100, undefined],
  [1000, undefined],
  [6000, undefined],
] as const) {
  const nodes = Array.from({ length: NODES }, () => sharedRateLimiter({ store, limit, clock: systemClock, slice }));
  const row = await run(`limit ${limit}${slice ? `, slice ${slice}` : ''}`, limit, nodes, () =>
    nodes.reduce((s, l) => ({ n: s.n + l.stats().claims, ms: s.ms + l.stats().claimMs }), { n: 0, ms: 0 }),
  );
  rows.push({ ...row, slice: slice ?? Math.max(1, Math.floor(limit / 50)) });
}

console.log(`\n${TAKES} accepted requests, ${CONCURRENCY} at a time, ${NODES} nodes' limiters (shared rows)\n`);
console.log(
  '| limiter | slice | round trips / request | ms per claim | µs per request (wall) | PostgreSQL CPU µs / request | accepted |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.slice} | ${r.roundTrips.toFixed(3)} | ${r.claimMs.toFixed(2)} | ${r.perTakeUs.toFixed(1)} | ${r.pgUsPerTake.toFixed(1)} | ${r.accepted} |`,
  );
await store.close();
await pgdb.drop();
fs.rmSync(dataDir, { recursive: true, force: true });
