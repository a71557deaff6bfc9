// bench/home: the dashboard's Home with thousands of endpoints, measured in Chromium. Seeds one team
// with DOMAINS domains of PER endpoints each (5,000 by default), each with a liveness configuration
// and CHECKS recorded checks (every 7th endpoint failing), starts the daemon without probing, signs
// in with a real browser and measures: time to the first rows, bytes on the wire (first visit and a
// repeat one), /api/v1/home requests per view, the longest frame while scrolling the page of rows,
// the daemon's CPU per Home read, and the live feed's row hashing (services/home.ts `digests`).
// Usage: npm run bench:home   (DOMAINS=50 PER=100 CHECKS=20 to change)
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { cpuTicks, settled, TICK } from './proc.js';
import { domainRow } from '../test/support/rows.js';

const DOMAINS = Number(process.env.DOMAINS ?? 50);
const PER = Number(process.env.PER ?? 100);
const CHECKS = Number(process.env.CHECKS ?? 20);
const N = DOMAINS * PER;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-home-'));
const config = loadConfig({ dataDir });
const { store, services } = await openLocal(config);
const { token, team_id } = await services.access.createToken({ team: 'bench' });
const t0 = Date.now();
const now = new Date().toISOString();
const pairs: { config: string; endpoint: string }[] = [];
await store.transaction(async (tx) => {
  for (let d = 0; d < DOMAINS; d++) {
    const domainId = crypto.randomUUID();
    await tx.domains.insert(
      domainRow({ id: domainId, team_id, domain: `site-${d}.example.com`, token: `dommon-verify-${d}`, at: now }),
    );
    for (let i = 0; i < PER; i++) {
      const id = crypto.randomUUID();
      const cfg = crypto.randomUUID();
      await tx.endpoints.insert({
        id,
        team_id,
        domain_id: domainId,
        name: `service-${i}`,
        endpoint_type: 'http',
        subdomain: `s${i}`,
        path: `/health/${i}`,
        port: 9,
        is_enabled: true,
        timeout_seconds: 10,
        notes: null,
        created_at: now,
        updated_at: now,
      });
      await tx.db
        .insertInto('liveness_configs')
        .values({
          id: cfg,
          seq: pairs.length + 1,
          team_id,
          endpoint_id: id,
          is_enabled: 1,
          timeout_seconds: 10,
          expected_status_code: 200,
          interval_seconds: 86_400,
          failure_threshold: 1,
          confirm_from: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      pairs.push({ config: cfg, endpoint: id });
    }
  }
});
console.log(`seeded ${DOMAINS} domains, ${N} endpoints in ${Date.now() - t0} ms`);
const t1 = Date.now();
const start = Date.now() - CHECKS * 60_000;
for (let b = 0; b < pairs.length; b += 250) {
  const batch = [];
  for (const [k, p] of pairs.slice(b, b + 250).entries()) {
    const c = await services.liveness.get(team_id, p.config);
    const e = await services.endpoints.get(team_id, p.endpoint);
    const failing = (b + k) % 7 === 0;
    for (let j = 0; j < CHECKS; j++)
      batch.push({
        config: c,
        endpoint: e,
        at: start + j * 60_000,
        outcome: failing
          ? { ok: false, responseTimeMs: 3, statusCode: null, error: 'refused: connection refused' }
          : { ok: true, responseTimeMs: 20 + ((b + k + j) % 40), statusCode: 200, error: null },
      });
  }
  await services.monitor.record(batch);
}
console.log(`recorded ${N * CHECKS} checks in ${Date.now() - t1} ms`);
// The live feed's work on a change: every row of the team hashed (median of 5, this process's CPU).
const hashing: number[] = [];
for (let i = 0; i < 5; i++) {
  const c = process.cpuUsage();
  const rows = await services.home.digests(team_id);
  const u = process.cpuUsage(c);
  if (rows.size !== N + DOMAINS) throw new Error(`digests: ${rows.size} rows`);
  hashing.push((u.user + u.system) / 1000);
}
hashing.sort((a, b) => a - b);
await store.close();

const server = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts', dataDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, BENCH_NO_PROBING: '1' },
});
const base = await new Promise<string>((resolve, reject) => {
  server.stdout.on('data', (d: Buffer) => {
    const m = /listening on (http:\/\/\S+)/.exec(d.toString());
    if (m) resolve(m[1]!);
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});
await settled(server.pid!);
const serverCpu = () => {
  const c = cpuTicks(server.pid!);
  return ((c.user + c.sys) / TICK) * 1000;
};

// The daemon's CPU per Home read (a page of 100 rows with their checks), median of 10.
const reads: number[] = [];
let homeBytes = 0;
for (let i = 0; i < 10; i++) {
  const c = serverCpu();
  const res = await fetch(`${base}/api/v1/home?limit=100&checks=30`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  homeBytes = body.length;
  reads.push(serverCpu() - c);
}
reads.sort((a, b) => a - b);

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-chromium-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
const page = ctx.pages()[0] ?? (await ctx.newPage());
const cdp = await ctx.newCDPSession(page);
await cdp.send('Network.enable');
let wire = 0;
const homeReads: string[] = [];
cdp.on('Network.loadingFinished', (e) => (wire += e.encodedDataLength));
page.on('request', (r) => {
  if (new URL(r.url()).pathname === '/api/v1/home') homeReads.push(r.url());
});
// Sign in (the form), then time a fresh visit of the Home: navigation to the first rows drawn.
await page.goto(`${base}/`);
await page.getByLabel('API token').fill(token);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByTestId('home-row').first().waitFor({ timeout: 120_000 });
wire = 0;
homeReads.length = 0;
const visit = Date.now();
await page.reload();
await page.getByTestId('home-row').first().waitFor({ timeout: 120_000 });
const firstRows = Date.now() - visit;
await new Promise((r) => setTimeout(r, 1000));
const repeatWire = wire;
const repeatHomeReads = homeReads.length;
const rowsShown = await page.getByTestId('home-row').count();
const summary = await page.getByTestId('home-summary').innerText();

// Scrolling the page of rows: the longest gap between animation frames while it scrolls to its end.
// (A string: tsx would wrap a function's inner functions in helpers the page does not have.)
const frames = (await page.evaluate(`new Promise((done) => {
  const gaps = [];
  let last = 0;
  const step = (t) => {
    if (last) gaps.push(t - last);
    last = t;
    scrollBy(0, 120);
    if (scrollY + innerHeight >= document.documentElement.scrollHeight - 2) {
      gaps.sort((a, b) => a - b);
      done({ frames: gaps.length, p50: gaps[Math.floor(gaps.length / 2)] ?? 0, max: gaps.at(-1) ?? 0 });
    } else requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`)) as { frames: number; p50: number; max: number };
// The next page: one request.
homeReads.length = 0;
wire = 0;
await page.getByRole('button', { name: 'Next' }).click();
await page.getByText(/^101–200 of /).waitFor();
await new Promise((r) => setTimeout(r, 500));
const nextReads = homeReads.length;
const nextWire = wire;

// A first visit in a fresh profile (nothing cached): every byte on the wire until the first rows.
const fresh = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const fctx = await fresh.newContext({ viewport: { width: 1280, height: 900 } });
const fpage = await fctx.newPage();
const fcdp = await fctx.newCDPSession(fpage);
await fcdp.send('Network.enable');
let firstWire = 0;
fcdp.on('Network.loadingFinished', (e) => (firstWire += e.encodedDataLength));
await fpage.goto(`${base}/`);
await fpage.getByLabel('API token').fill(token);
const signedIn = Date.now();
await fpage.getByRole('button', { name: 'Sign in' }).click();
await fpage.getByTestId('home-row').first().waitFor({ timeout: 120_000 });
const firstSignIn = Date.now() - signedIn;
await new Promise((r) => setTimeout(r, 1000));
await fresh.close();
await ctx.close();
server.kill('SIGTERM');
fs.rmSync(profile, { recursive: true, force: true });

const load = os.loadavg().map((x) => x.toFixed(1));
console.log(`
Home with ${DOMAINS} domains x ${PER} endpoints (${N} endpoints, ${CHECKS} checks each), SQLite, Node ${process.version}, ${os.cpus().length} cores, load average ${load.join(' ')}
  summary shown: ${summary.replace(/\s+/g, ' ')}
  first visit (empty cache), sign-in to first rows: ${firstSignIn} ms wall, ${(firstWire / 1024).toFixed(1)} KB on the wire
  repeat visit (reload), navigation to first rows: ${firstRows} ms wall, ${(repeatWire / 1024).toFixed(1)} KB on the wire, ${repeatHomeReads} /api/v1/home request(s), ${rowsShown} rows drawn
  next page: ${nextReads} /api/v1/home request(s), ${(nextWire / 1024).toFixed(1)} KB on the wire
  scrolling the page of rows to its end: ${frames.frames} frames, median ${frames.p50.toFixed(1)} ms, longest ${frames.max.toFixed(1)} ms
  daemon CPU per Home read (100 rows, 30 checks each; ${(homeBytes / 1024).toFixed(1)} KB of JSON uncompressed): median ${reads[5]!.toFixed(0)} ms, max ${reads.at(-1)!.toFixed(0)} ms (10 ms ticks)
  live feed, every row hashed on a change: median ${hashing[2]!.toFixed(0)} ms CPU
`);
fs.rmSync(dataDir, { recursive: true, force: true });
