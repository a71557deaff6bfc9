// bench/config: a big configuration file through POST /api/v1/config/apply (what `dommon apply -f`
// sends) on SQLite: 10,000 endpoints (with a liveness check each) under 1,000 domains. Measures, wall
// and CPU (the whole process: the app serves in-process, the client is one request at a time):
// the plan of the file against an empty team (a dry run: every create checked, then rolled back), its
// application, the plan of the same file against the applied setup (nothing to change), a second apply
// (which must write nothing: the store's per-table write counters, store/change-tracker.ts, name every
// table a step wrote, and SQLite's `PRAGMA data_version`, read on a second connection, counts the
// commits that changed the database, the node's heartbeat included), the plan and apply of a file with
// one change, and the export.
// The node runs no scheduler (DOMMON_ROLE=api): nothing else commits, and no probe goes out. Prints one JSON
// line per step, then a markdown table and the load average.
// Usage: npm run bench:config -- [--endpoints 10000] [--per-domain 10]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { loadConfig } from '../src/config/index.js';
import { createApp } from '../src/app.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const total = Number(flag('--endpoints') ?? 10_000);
const perDomain = Number(flag('--per-domain') ?? 10);

function file(interval: number, changed = -1): string {
  const lines = ['version: 1', 'portfolios:', '  - name: Fleet', 'domains:'];
  for (let d = 0; d * perDomain < total; d++) {
    lines.push(`  - name: bench-${d}.example`, '    portfolio: Fleet', '    endpoints:');
    for (let e = 0; e < perDomain && d * perDomain + e < total; e++) {
      const n = d * perDomain + e;
      lines.push(
        `      - name: ep-${e}`,
        '        type: https',
        `        subdomain: s${e}`,
        '        path: /health',
        '        liveness:',
        `          interval_seconds: ${n === changed ? interval + 1 : interval}`,
        '          failure_threshold: 2',
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-config-'));
const config = loadConfig(
  { dataDir: dir, port: 0, host: '127.0.0.1' },
  {
    DOMMON_LOG_LEVEL: 'error',
    // The API alone: no scheduler writes beside the applies (the commit counter sees every commit).
    DOMMON_ROLE: 'api',
    DOMMON_RATE_LIMIT: '1000000000',
    DOMMON_DNS_SERVERS: '127.0.0.1:9',
    DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
    DOMMON_WHOIS_SERVER: '127.0.0.1:9',
    DOMMON_IANA_WHOIS: '127.0.0.1:9',
  },
);
const app = await createApp(config, { log: pino({ level: 'silent' }) });
const { url } = await app.start();
const token = (await app.services.access.createToken({ team: 'bench' })).token;
const watcher = new Database(config.dbPath, { readonly: true });
const dataVersion = () => Number(watcher.pragma('data_version', { simple: true }));
const tables = (
  watcher.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]
).sort();
/** The store's per-table write counters (store/change-tracker.ts): which tables a step wrote. */
const stamps = () => new Map(tables.map((t) => [t, app.store.stamp([t])]));

interface Row {
  step: string;
  wall_ms: number;
  cpu_ms: number;
  steps: number;
  commits: number;
  wrote: string;
}
const rows: Row[] = [];
/**
 * Tables written beside any request, left out of "tables written": `nodes` (this node's heartbeat,
 * every few seconds), `api_tokens` (the token's last use) and `auth_failures` (the sign-in throttle's
 * pruning).
 */
const BOOKKEEPING = ['nodes', 'api_tokens', 'auth_failures'];

async function step(name: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const v0 = dataVersion();
  const s0 = stamps();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(url + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const out = (await res.json()) as { steps?: unknown[]; error?: string };
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (res.status !== 200) throw new Error(`${name}: ${res.status} ${out.error ?? ''}`);
  const row = {
    step: name,
    wall_ms: Math.round(wall),
    cpu_ms: Math.round((c.user + c.system) / 1000),
    steps: out.steps?.length ?? 0,
    commits: dataVersion() - v0,
    wrote: '',
  };
  const s1 = stamps();
  row.wrote = tables.filter((t) => !BOOKKEEPING.includes(t) && s0.get(t) !== s1.get(t)).join(', ') || '-';
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
  return out;
}

const apply = (text: string, q = '') =>
  step(q ? 'plan' : 'apply', 'POST', `/api/v1/config/apply${q}`, { file: text, filename: 'bench.yaml' });

const base = file(60);
process.stdout.write(`file: ${total} endpoints, ${Math.ceil(total / perDomain)} domains, ${base.length} bytes\n`);
try {
  await apply(base, '?dry_run=true');
  rows.at(-1)!.step = 'plan against an empty team (dry run)';
  await apply(base);
  rows.at(-1)!.step = 'apply into an empty team';
  await apply(base, '?dry_run=true');
  rows.at(-1)!.step = 'plan, nothing to change';
  await apply(base);
  rows.at(-1)!.step = 'apply, nothing to change';
  const one = file(60, Math.floor(total / 2));
  await apply(one, '?dry_run=true');
  rows.at(-1)!.step = 'plan, one change';
  await apply(one);
  rows.at(-1)!.step = 'apply, one change';
  await step('export', 'GET', '/api/v1/config/export');
} finally {
  watcher.close();
  await app.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(
  `\n| step | wall | CPU | plan steps | commits | tables written |\n| --- | ---: | ---: | ---: | ---: | --- |\n${rows
    .map(
      (r) =>
        `| ${r.step} | ${(r.wall_ms / 1000).toFixed(2)} s | ${(r.cpu_ms / 1000).toFixed(2)} s | ${r.steps} | ${r.commits} | ${r.wrote} |`,
    )
    .join('\n')}\n\nload average: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (${os.cpus().length} cores)\n`,
);
