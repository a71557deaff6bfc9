// Each check exactly once on PostgreSQL (issue 40 item 2), the parts the three-node run
// (cluster.test.ts) cannot single out: a node probes only under a lease it holds at that moment (one
// taken from it before the run is due sends nothing), a new configuration's row stays with the node
// that claimed it (its creation revokes nothing), and a change's wake-up does not make a run that may
// have gone out already due again at once, nor does a node that stops while a probe is out.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import t from 'tap';
import { startApp, client } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { startLoopbackDns } from '../support/targets.js';
import type { ServiceDeps } from '../../src/services/deps.js';
import { openPgStore } from '../../src/store/index.js';
import { createServices } from '../../src/services/index.js';
import type { ChangeFeed, WorkingSetChange } from '../../src/services/changes.js';
import { systemClock } from '../../src/domain/clock.js';

t.setTimeout(120_000);
const skip = pgServerUrl() ? false : PG_SKIP;
const live = (now: number) => new Date(now - 30_000).toISOString();
/** These tests never run the exposure scanner: it gets nothing to scan with. */
const noScan = {} as ServiceDeps['exposure'];

t.test('a lease taken from a node before its run is due: that node sends no probe', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'presend'))!;
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  const hits: number[] = [];
  const target = http.createServer((req, res) => {
    if (req.url === '/x') hits.push(Date.now());
    res.end('ok');
  });
  target.keepAliveTimeout = 1;
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => target.close(() => r())));
  const port = (target.address() as AddressInfo).port;

  const api = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api' });
  t.teardown(() => api.close());
  const c = client(api.url, await api.token('presend'));
  const domain = (await c.post('/api/v1/domains', { domain: 'presend.example' })).body;
  const made = await c.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'x',
    endpoint_type: 'http',
    port,
    path: '/x',
    liveness: { interval_seconds: 10, timeout_seconds: 2 },
  });
  t.equal(made.status, 201);
  const configId = made.body.liveness.id as string;
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  const worker = await startApp({
    DOMMON_DATABASE_URL: url,
    DOMMON_ROLE: 'worker',
    DOMMON_NODE_NAME: 'a',
    DOMMON_DNS_SERVERS: dns.server,
  });
  t.teardown(() => worker.close());

  // Wait until the worker holds the row for a run due more than 3.5 s from now (its check of that run's
  // lease comes at most 2.25 s before it), with an earlier result written (so the row is its kept lease).
  const row = async () => (await store.livenessDue.all()).find((r) => r.configId === configId)!;
  let held = await row();
  const end = Date.now() + 40_000;
  while (!(hits.length && held.owner === 'a' && held.due !== null && held.due > Date.now() + 3500)) {
    if (Date.now() > end) throw new Error(`the worker never held a run due later: ${JSON.stringify(held)}`);
    await new Promise((r) => setTimeout(r, 100));
    held = await row();
  }
  // Another node takes the lease (a change revoked it and someone claimed it; or a takeover).
  const takenAt = Date.now();
  await sql`update liveness_due set owner = 'elsewhere', token = token + 1, lease_until = due_at + 60000
    where config_id = ${configId}`.execute(store.db);
  const due = held.due!;
  await new Promise((r) => setTimeout(r, due + 3000 - Date.now()));
  t.same(
    hits.filter((x) => x > takenAt),
    [],
    `no probe from the node whose lease was taken before its run (due ${due - takenAt} ms after)`,
  );
  const after = await row();
  t.equal(after.owner, 'elsewhere', 'the lease is still the other node’s');
  t.equal(after.token, held.token + 1, 'and nothing was written under the old one');
});

t.test(
  'a new configuration: its wake-up does not revoke the lease of the node that claimed it',
  { skip },
  async (t) => {
    const url = (await freshPgDatabase(t, 'created'))!;
    const store = await openPgStore(url);
    t.teardown(() => store.close());
    // The change feed holds the changes back until the claim below is in (a node claiming the new row
    // between its commit and the wake-up).
    const held: WorkingSetChange[] = [];
    const listeners: ((c: WorkingSetChange) => void)[] = [];
    const changes: ChangeFeed = {
      emit: (c) => void held.push(c),
      subscribe: (fn) => {
        listeners.push(fn);
        return () => undefined;
      },
    };
    const services = createServices({
      store,
      clock: systemClock,
      limits: { maxDomains: null, maxEndpoints: null },
      exposure: noScan,
      changes,
    });
    const { team_id: teamId } = await services.access.createToken({ team: 'created' });
    const domain = await services.domains.create(teamId, { domain: 'created.example' });
    const ep = await services.endpoints.create(teamId, {
      domain_id: domain.id,
      name: 'e',
      endpoint_type: 'http',
      port: 8080,
      liveness: { interval_seconds: 30 },
    });
    const lone = await services.endpoints.create(teamId, { domain_id: domain.id, name: 'f', endpoint_type: 'http' });
    const other = await services.liveness.create(teamId, { endpoint_id: lone.id, interval_seconds: 30 });
    const now = Date.now();
    const claimed = await store.livenessDue.claim('n1', {
      now,
      horizon: now + 60_000,
      limit: 10,
      marginMs: 10_000,
      liveSince: live(now),
    });
    t.equal(claimed.runs.length, 2, 'both new rows claimed by one node');
    const before = await store.livenessDue.all();
    t.ok(held.length >= 2, `the creations announced (${held.length} changes)`);
    for (const change of held.splice(0)) for (const fn of listeners) fn(change);
    await new Promise((r) => setTimeout(r, 500));
    const rows = await store.livenessDue.all();
    for (const id of [ep.liveness!.id, other.id]) {
      const a = before.find((r) => r.configId === id)!;
      const b = rows.find((r) => r.configId === id)!;
      t.same(
        { owner: b.owner, token: b.token, due: b.due },
        { owner: 'n1', token: a.token, due: a.due },
        'still the claiming node’s, under its token',
      );
    }
  },
);

t.test('a wake-up: a leased run due within 3 s comes one interval after it', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'wakesent'))!;
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  const services = createServices({
    store,
    clock: systemClock,
    limits: { maxDomains: null, maxEndpoints: null },
    exposure: noScan,
  });
  const { team_id: teamId } = await services.access.createToken({ team: 'wake' });
  const domain = await services.domains.create(teamId, { domain: 'wake.example' });
  const ids: string[] = [];
  for (const name of ['soon', 'later', 'free']) {
    const ep = await services.endpoints.create(teamId, {
      domain_id: domain.id,
      name,
      endpoint_type: 'http',
      liveness: { interval_seconds: 60 },
    });
    ids.push(ep.liveness!.id);
  }
  const [soon, later, free] = ids as [string, string, string];
  const now = Date.now();
  await store.livenessDue.claim('n1', {
    now,
    horizon: now + 60_000,
    limit: 10,
    marginMs: 10_000,
    liveSince: live(now),
  });
  const set = (id: string, due: number) =>
    sql`update liveness_due set due_at = ${due}::bigint where config_id = ${id}`.execute(store.db);
  await set(soon, now + 2000);
  await set(later, now + 20_000);
  await set(free, now + 1000);
  await sql`update liveness_due set owner = null, lease_until = null where config_id = ${free}`.execute(store.db);
  await store.livenessDue.wake({ domain: domain.id }, now);
  const rows = new Map((await store.livenessDue.all()).map((r) => [r.configId, r]));
  t.equal(rows.get(soon)!.due, now + 2000 + 60_000, 'leased, due in 2 s (its probe may be out): one interval on');
  t.equal(rows.get(later)!.due, now + 20_000, 'leased, due in 20 s (its holder reads the revoke first): unchanged');
  t.equal(rows.get(free)!.due, now + 1000, 'not leased (nobody sent it): unchanged');
  t.ok(
    [soon, later].every((id) => rows.get(id)!.owner === null),
    'both leases revoked',
  );
});

t.test('a node that stops while a probe is out hands its run back due an interval on', { skip }, async (t) => {
  const url = (await freshPgDatabase(t, 'cutshort'))!;
  const dns = await startLoopbackDns();
  t.teardown(() => dns.close());
  // The target answers after 8 s: longer than a stop's 3 s of grace.
  const hits: number[] = [];
  const target = http.createServer((req, res) => {
    if (req.url === '/slow') hits.push(Date.now());
    setTimeout(() => res.end('ok'), 8000).unref();
  });
  target.keepAliveTimeout = 1;
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    target.closeAllConnections();
    return new Promise<void>((r) => target.close(() => r()));
  });
  const port = (target.address() as AddressInfo).port;
  const api = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api' });
  t.teardown(() => api.close());
  const c = client(api.url, await api.token('cutshort'));
  const domain = (await c.post('/api/v1/domains', { domain: 'cutshort.example' })).body;
  const made = await c.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'slow',
    endpoint_type: 'http',
    port,
    path: '/slow',
    liveness: { interval_seconds: 30, timeout_seconds: 10 },
  });
  t.equal(made.status, 201);
  const configId = made.body.liveness.id as string;
  const store = await openPgStore(url);
  t.teardown(() => store.close());
  const worker = await startApp({
    DOMMON_DATABASE_URL: url,
    DOMMON_ROLE: 'worker',
    DOMMON_NODE_NAME: 'a',
    DOMMON_DNS_SERVERS: dns.server,
  });
  const end = Date.now() + 20_000;
  while (!hits.length) {
    if (Date.now() > end) throw new Error('the worker never probed');
    await new Promise((r) => setTimeout(r, 50));
  }
  await worker.close();
  const row = (await store.livenessDue.all()).find((r) => r.configId === configId)!;
  t.equal(row.owner, null, 'the lease handed back');
  t.ok(
    row.due !== null && row.due >= hits[0]! + 15_000,
    `due at least half an interval after the probe that went out (${row.due === null ? null : row.due - hits[0]!} ms after it)`,
  );
});
