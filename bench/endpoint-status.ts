// bench/endpoint-status: seeds 5,000 endpoints for team A (certificates in every state, liveness
// configurations with state rows and 24 h / 7 d of aggregates), then for DURATION s hammers
// GET /api-endpoint-status?limit=100 (every page in turn) as team A with CONCURRENCY_A clients,
// while team B (10 endpoints) sends one small request every B_GAP ms (open loop: on schedule, whatever
// is outstanding). Prints team A's list latency p50/p99, team B's latency p50/p99/max (from the
// scheduled send time) and the server's event-loop delay over the window: what one big team's list
// costs every other team.
// Usage: node --import tsx bench/endpoint-status.ts   (N=5000 DURATION=10 CONCURRENCY_A=4 B_GAP=20 to change)
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { dayOf, hourOf } from '../src/domain/liveness.js';
import type { Store } from '../src/store/index.js';
import { settled } from './proc.js';
import { domainRow } from '../test/support/rows.js';

const N = Number(process.env.N ?? 5000);
const DURATION = Number(process.env.DURATION ?? 10) * 1000;
const CONCURRENCY_A = Number(process.env.CONCURRENCY_A ?? 4);
const B_GAP = Number(process.env.B_GAP ?? 20);
const PER_DOMAIN = 100;

// DNS, RDAP and WHOIS at a closed loopback port: the seeded hosts are never looked up for real.
const OFFLINE = {
  DOMMON_DNS_SERVERS: '127.0.0.1:9',
  DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
  DOMMON_WHOIS_SERVER: '127.0.0.1:9',
  DOMMON_IANA_WHOIS: '127.0.0.1:9',
};
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-status-'));
const config = loadConfig({ dataDir }, { ...process.env, ...OFFLINE });
const { store, services } = await openLocal(config);

const SSL = ['valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'expiring_soon', 'expired', 'error', null] as const;
/** One team's domains and endpoints as a daemon that has been running has them (every refresh a day away). */
async function seed(s: Store, teamId: string, name: string, n: number): Promise<void> {
  const now = Date.now();
  const iso = new Date(now).toISOString();
  const tomorrow = new Date(now + 86_400_000).toISOString();
  const hour = hourOf(now);
  const day = dayOf(now);
  await s.transaction(async (tx) => {
    let domainId = '';
    for (let i = 0; i < n; i++) {
      if (i % PER_DOMAIN === 0) {
        domainId = crypto.randomUUID();
        await tx.schedule.addTarget(['registration', 'security'], domainId, tomorrow);
        await tx.domains.insert(
          domainRow({
            id: domainId,
            team_id: teamId,
            domain: `${name}-${i / PER_DOMAIN}.example.com`,
            token: `dommon-verify-${name}-${i}`,
            at: iso,
            verified: true,
          }),
        );
      }
      const id = crypto.randomUUID();
      const created = new Date(now - (n - i) * 1000).toISOString();
      await tx.endpoints.insert({
        id,
        team_id: teamId,
        domain_id: domainId,
        name: `ep-${i}`,
        endpoint_type: 'https',
        subdomain: `h${i}`,
        path: null,
        port: null,
        is_enabled: true,
        timeout_seconds: 10,
        notes: null,
        created_at: created,
        updated_at: created,
      });
      await tx.certificates.schedule(id, tomorrow, iso, 'ok');
      const ssl = SSL[i % SSL.length]!;
      if (ssl) {
        await tx.certificates.save({
          endpoint_id: id,
          ssl_status: ssl,
          subject: `CN=h${i}`,
          issuer: 'CN=Bench CA',
          sans: [],
          not_before: iso,
          not_after: tomorrow,
          serial: null,
          fingerprint256: null,
          protocol: 'TLSv1.3',
          trusted: true,
          hostname_match: true,
          error: null,
          alerted_window: null,
          checked_at: iso,
          next_check_at: tomorrow,
          chain: [],
        });
      }
      // 7 in 8 have a liveness configuration (one in 16 of those disabled): up, 1 in 10 down, 1 in 7 under 99 % uptime.
      if (i % 8 === 7) continue;
      const cfgId = await tx.liveness.insert({
        team_id: teamId,
        endpoint_id: id,
        is_enabled: i % 16 !== 3,
        timeout_seconds: 10,
        expected_status_code: 200,
        interval_seconds: 60,
        failure_threshold: 1,
        regions: [],
        confirm_from: 1,
        created_at: created,
        updated_at: created,
      });
      const seq = (await tx.liveness.get(teamId, cfgId))!.seq;
      const down = i % 10 === 4;
      const ok = down || i % 7 === 2 ? 55 : 60;
      await tx.db
        .insertInto('liveness_hourly')
        .values(Array.from({ length: 24 }, (_, k) => ({ cfg: seq, bucket: hour - k, total: 60, ok, sum_ms: 60 * 40 })))
        .execute();
      await tx.db
        .insertInto('liveness_daily')
        .values(
          Array.from({ length: 7 }, (_, k) => ({
            cfg: seq,
            bucket: day - k,
            total: 1440,
            ok: ok * 24,
            sum_ms: 1440 * 40,
          })),
        )
        .execute();
      await tx.livenessData.saveState(cfgId, {
        status: down ? 'down' : 'up',
        consecutive_failures: down ? 3 : 0,
        last_check: iso,
        last_check_successful: !down,
        response_time_ms: 40,
        status_code: down ? 503 : 200,
        last_error: down ? 'HTTP 503' : null,
        alerted_down: down,
      });
    }
  });
}

const a = await services.access.createToken({ team: 'team-a' });
const b = await services.access.createToken({ team: 'team-b' });
const t0 = Date.now();
await seed(store, a.team_id, 'a', N);
await seed(store, b.team_id, 'b', 10);
await store.close();
console.log(`seeded ${N} endpoints for team A and 10 for team B in ${Date.now() - t0} ms`);

// The probing workers are stopped once the server is up (BENCH_NO_PROBING): only the requests are measured.
const server = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts', dataDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, ...OFFLINE, BENCH_NO_PROBING: '1' },
});
// However this script ends, the server goes with it.
process.on('exit', () => server.kill('SIGKILL'));
const base = await new Promise<string>((resolve, reject) => {
  server.stdout.on('data', (d: Buffer) => {
    const m = /listening on (http:\/\/\S+)/.exec(d.toString());
    if (m) resolve(m[1]!);
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});
console.log(`daemon start-up work settled after ${await settled(server.pid!)} ms`);
const url = new URL(base);
// Kept-alive connections, dropped after 4 s idle (the server closes them after 5 s). A server loop
// stalled for seconds (the old code) still fires its keep-alive timer late, on a connection just
// reused: such a request fails (ECONNRESET) and is counted as failed.
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY_A, timeout: 4000 });
const agentB = new http.Agent({ keepAlive: true, timeout: 4000 });

function once(token: string, p: string, via = agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'GET',
        path: p,
        agent: via,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('error', reject);
        res.on('end', () =>
          (res.statusCode ?? 500) >= 400 ? reject(new Error(`GET ${p}: ${res.statusCode}`)) : resolve(),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function lag(): Promise<{ p50: number; p99: number; max: number }> {
  return (await (await fetch(new URL('/__lag', url))).json()) as { p50: number; p99: number; max: number };
}

const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]! : NaN);
const pages = Math.ceil(N / 100);
// Warm-up: a few of each, so the first measured requests do not compile statements or JIT.
for (let i = 0; i < 3; i++) {
  await once(a.token, `/api-endpoint-status?limit=100&offset=${i * 100}`).catch(() => undefined);
  await once(b.token, '/api-endpoint-status?limit=10', agentB).catch(() => undefined);
}

await lag();
const end = performance.now() + DURATION;
const aLat: number[] = [];
const bLat: number[] = [];
// Requests that failed (see the agents above).
const errors = { a: 0, b: 0 };
let page = 0;
const teamA = Array.from({ length: CONCURRENCY_A }, async () => {
  while (performance.now() < end) {
    const t = performance.now();
    await once(a.token, `/api-endpoint-status?limit=100&offset=${(page++ % pages) * 100}`).then(
      () => void aLat.push(performance.now() - t),
      () => void errors.a++,
    );
  }
});
// Team B sends on a fixed schedule whatever is still outstanding (its own sockets): each latency is
// the time one request waited and ran, counted from its scheduled send time.
const teamB = (async () => {
  const t0 = performance.now();
  const sent: Promise<void>[] = [];
  for (let k = 0; ; k++) {
    const due = t0 + k * B_GAP;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sent.push(
      once(b.token, '/api-endpoint-status?limit=10', agentB).then(
        () => void bLat.push(performance.now() - due),
        () => void errors.b++,
      ),
    );
  }
  await Promise.all(sent);
})();
await Promise.all([...teamA, teamB]);
const loop = await lag();
aLat.sort((x, y) => x - y);
bLat.sort((x, y) => x - y);

console.log(
  `\n${N} endpoints in team A, ${CONCURRENCY_A} clients on GET /api-endpoint-status?limit=100 for ${DURATION / 1000} s; team B one GET /api-endpoint-status?limit=10 every ${B_GAP} ms; Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}\n`,
);
console.log(
  '| team A lists done (failed) | A p50 ms | A p99 ms | team B requests done (failed) | B p50 ms | B p99 ms | B max ms | server event-loop delay p99 / max ms |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
console.log(
  `| ${aLat.length} (${errors.a}) | ${pct(aLat, 0.5).toFixed(1)} | ${pct(aLat, 0.99).toFixed(1)} | ${bLat.length} (${errors.b}) | ${pct(bLat, 0.5).toFixed(1)} | ${pct(bLat, 0.99).toFixed(1)} | ${(bLat[bLat.length - 1] ?? NaN).toFixed(1)} | ${loop.p99.toFixed(1)} / ${loop.max.toFixed(1)} |`,
);
server.kill('SIGTERM');
agent.destroy();
agentB.destroy();
await new Promise((r) => server.on('exit', r));
fs.rmSync(dataDir, { recursive: true, force: true });
