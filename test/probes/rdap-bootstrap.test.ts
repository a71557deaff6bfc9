// The RDAP bootstrap store: shipped copy, weekly refresh from a (loopback) IANA URL, last good copy kept.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { BOOTSTRAP_FILE, createBootstrapStore } from '../../src/probes/rdap.js';
import { createServerLimiter } from '../../src/probes/limiter.js';

t.test('refresh when a week old, keep the last good copy on failure', async (t) => {
  let answer: { status: number; body: string } = {
    status: 200,
    body: JSON.stringify({ publication: '2026-01-01T00:00:00Z', services: [[['zz'], ['https://rdap.zz.test/']]] }),
  };
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns.json`;
  const dataDir = tempDir();
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const errors: string[] = [];
  const store = createBootstrapStore({ dataDir, url, onError: (e) => errors.push(e.message) });
  t.equal(store.baseFor('example.com'), 'https://rdap.verisign.com/com/v1/', 'shipped copy serves at first start');
  t.equal(store.baseFor('example.zz'), null);
  const now = new Date('2026-06-01T00:00:00Z');
  t.equal(await store.refreshIfStale(now), 'refreshed', 'the shipped copy is older than a week');
  t.equal(store.baseFor('example.zz'), 'https://rdap.zz.test/');
  t.equal(store.fetchedAt(), now.toISOString());
  const saved = JSON.parse(fs.readFileSync(path.join(dataDir, BOOTSTRAP_FILE), 'utf8'));
  t.equal(saved.fetched_at, now.toISOString());
  t.equal(await store.refreshIfStale(new Date(now.getTime() + 6 * 86_400_000)), 'fresh', 'six days later: no fetch');
  t.equal(hits, 1);

  // A week later the server is broken: the copy stays, the error is reported, no retry within the hour.
  answer = { status: 500, body: 'oops' };
  const later = new Date(now.getTime() + 8 * 86_400_000);
  t.equal(await store.refreshIfStale(later), 'failed');
  t.match(errors[0], /HTTP 500/);
  t.equal(store.baseFor('example.zz'), 'https://rdap.zz.test/');
  t.equal(await store.refreshIfStale(new Date(later.getTime() + 60_000)), 'fresh');
  answer = { status: 200, body: '{"services": "nope"}' };
  t.equal(
    await store.refreshIfStale(new Date(later.getTime() + 2 * 3_600_000)),
    'failed',
    'an invalid file is refused',
  );
  t.equal(hits, 3);

  // A new process loads the last good copy from the data directory.
  const again = createBootstrapStore({ dataDir, url });
  t.equal(again.baseFor('example.zz'), 'https://rdap.zz.test/');
  t.equal(again.baseFor('example.com'), null, 'the saved copy replaces the shipped one');
});

t.test('per-server limiter: spacing, back-off with Retry-After and doubling', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const lim = createServerLimiter({ clock: { now: () => new Date(now) }, spacingMs: 200, baseBackoffMs: 60_000 });
  const t0 = performance.now();
  t.equal(await lim.acquire('a', 1000), true);
  t.equal(await lim.acquire('a', 1000), true);
  t.ok(performance.now() - t0 >= 190, 'second query to the same server waits for its slot');
  t.equal(await lim.acquire('b', 1000), true, 'other servers are independent');
  t.equal(await lim.acquire('a', 10), false, 'a wait longer than the budget is refused');
  t.equal(lim.penalize('a', 120_000), 120_000, 'Retry-After wins');
  t.equal(lim.blockedUntil('a'), now + 120_000);
  t.equal(lim.penalize('a', null), 120_000, 'second strike doubles the 60 s base');
  t.equal(lim.penalize('a', null), 240_000);
  now += 241_000;
  t.equal(lim.blockedUntil('a'), null, 'back-off ends');
  lim.success('a');
  t.equal(lim.penalize('a', null), 60_000, 'a good answer resets the strikes');
});

t.test('per-server limiter: an aborted signal ends a wait at once, and later waits never start', async (t) => {
  const lim = createServerLimiter({ clock: { now: () => new Date() }, spacingMs: 5_000 });
  const ac = new AbortController();
  t.equal(await lim.acquire('a', 60_000, ac.signal), true, 'first slot is free');
  const t0 = performance.now();
  const waiting = lim.acquire('a', 60_000, ac.signal);
  setTimeout(() => ac.abort(), 20);
  t.equal(await waiting, false, 'a wait in progress answers false on abort');
  t.equal(await lim.acquire('a', 60_000, ac.signal), false, 'an already aborted signal answers false');
  t.ok(
    performance.now() - t0 < 1_000,
    `no slot waited out (${Math.round(performance.now() - t0)} ms, slots are 5 s apart)`,
  );
});

t.test('WHOIS look-up budget: a server that never answers ends as an error, not a hang', async (t) => {
  const net = await import('node:net');
  const { whoisLookup } = await import('../../src/probes/whois.js');
  const sockets: import('node:net').Socket[] = [];
  const silent = net.createServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    sockets.forEach((s) => s.destroy());
    return new Promise<void>((r) => silent.close(() => r()));
  });
  const port = (silent.address() as AddressInfo).port;
  const t0 = performance.now();
  const out = await whoisLookup('slow.com', { host: '127.0.0.1', port }, 1000);
  t.equal(out.kind, 'error');
  t.match((out as { reason: string }).reason, /timed out|Timeout/);
  t.ok(performance.now() - t0 < 2500, 'within the budget');
  const refused = await whoisLookup('x.com', { host: '127.0.0.1', port: 9 }, 1000);
  t.match((refused as { reason: string }).reason, /ECONNREFUSED/);
});
