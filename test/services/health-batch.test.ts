// recomputeMany: many domains' health from one read of each input (per 500 domains), stored as the
// one-domain recompute stores it, with every change in one transaction.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import t, { type Test } from 'tap';
import { openPgStore, openStore, type Store } from '../../src/store/index.js';
import { createServices } from '../../src/services/index.js';
import type { Clock } from '../../src/domain/clock.js';
import type { Domain } from '../../src/domain/types.js';
import { tempDir } from '../support/app.js';
import { noExposure } from '../support/no-exposure.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

const DAY = 86_400_000;
const triple = (d: Pick<Domain, 'health_score' | 'health_grade' | 'overall_status'>) => [
  d.health_score,
  d.health_grade,
  d.overall_status,
];

const servicesOn = (store: Store, clock: Clock) =>
  createServices({ store, clock, limits: { maxDomains: null, maxEndpoints: null }, exposure: noExposure() });

/** `body` on a new SQLite file, then on a new PostgreSQL database (when the tests have a server). */
function onBothStores(name: string, body: (t: Test, store: Store) => Promise<void>): void {
  t.test(`${name} (SQLite)`, async (t) => {
    const dir = tempDir('dommon-health-batch-');
    const store = await openStore(path.join(dir, 'dommon.db'));
    t.teardown(async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    await body(t, store);
  });
  t.test(`${name} (PostgreSQL)`, { skip: pgServerUrl() ? false : PG_SKIP }, async (t) => {
    const store = await openPgStore((await freshPgDatabase(t, 'health_batch'))!);
    t.teardown(() => store.close());
    await body(t, store);
  });
}

async function batch(t: Test, store: Store) {
  const now = Date.UTC(2026, 0, 1, 12);
  const clock: Clock = { now: () => new Date(now) };
  const day = (n: number) => new Date(now + n * DAY).toISOString().slice(0, 10);
  const at = new Date(now).toISOString();
  const services = servicesOn(store, clock);
  const { team_id: teamId } = await services.access.createToken({ team: 'batch' });
  const add = async (name: string) => (await services.domains.create(teamId, { domain: name })).id;
  const [full, soon, empty, secOnly] = [
    await add('full.com'),
    await add('soon.com'),
    await add('empty.com'),
    await add('sec-only.com'),
  ];

  // Inputs written straight into the store, so no service's own recompute has stored their health yet.
  const registration = (domainId: string, expiry: string | null, reason: string | null) =>
    store.registrations.save({
      domain_id: domainId,
      source: 'rdap',
      state: expiry ? 'ok' : 'error',
      reason,
      registrar: 'R',
      expiry_date: expiry,
      creation_date: null,
      updated_date: null,
      nameservers: [],
      statuses: [],
      transfer_lock: true,
      dnssec_signed: null,
      checked_at: at,
      next_check_at: null,
    });
  await registration(full, day(200), null);
  await registration(secOnly, null, 'RDAP: ECONNREFUSED');
  await store.domains.update(teamId, soon, { expiry_override: day(10) });
  const security = (domainId: string, score: number) =>
    store.security.save({
      domain_id: domainId,
      spf: 'pass',
      dmarc: 'pass',
      dkim: 'fail',
      caa: 'pass',
      dnssec_enabled: false,
      security_score: score,
      details: {},
      recommendations: [],
      checked_at: at,
      next_check_at: null,
    });
  await security(full, 80);
  await security(secOnly, 45);
  // soon.com: an endpoint whose certificate expires soon and a configuration that is down; full.com: one up.
  const endpoint = async (domainId: string, name: string) =>
    services.endpoints.create(teamId, { domain_id: domainId, name, endpoint_type: 'https', subdomain: name });
  const soonEp = await endpoint(soon, 'www');
  await store.certificates.save({
    endpoint_id: soonEp.id,
    ssl_status: 'expiring_soon',
    subject: 'CN=www.soon.com',
    issuer: 'CN=CA',
    sans: ['www.soon.com'],
    not_before: at,
    not_after: new Date(now + 20 * DAY).toISOString(),
    serial: '01',
    fingerprint256: 'AA',
    protocol: 'TLSv1.3',
    trusted: true,
    hostname_match: true,
    error: null,
    alerted_window: null,
    checked_at: at,
    next_check_at: null,
    chain: [],
  });
  const state = (status: 'up' | 'down') => ({
    status,
    consecutive_failures: status === 'down' ? 3 : 0,
    last_check: at,
    last_check_successful: status === 'up',
    response_time_ms: 5,
    status_code: 200,
    last_error: null,
    alerted_down: false,
  });
  const soonCfg = await services.liveness.create(teamId, { endpoint_id: soonEp.id });
  await store.livenessData.saveState(soonCfg.id, state('down'));
  const fullCfg = await services.liveness.create(teamId, { endpoint_id: (await endpoint(full, 'api')).id });
  await store.livenessData.saveState(fullCfg.id, state('up'));

  // What one recompute per domain would store: the per-domain read of the inputs (explain).
  const expected = new Map<string, unknown[]>();
  for (const id of [full, soon, empty, secOnly]) {
    const h = await services.intel.health.explain((await store.domains.byId(id))!);
    expected.set(id, [h.score, h.grade, h.overall_status]);
  }
  t.same(expected.get(empty), [null, null, null], 'nothing known: no health');
  t.equal(new Set([...expected.values()].map((v) => JSON.stringify(v))).size, 4, 'the four domains differ');
  // The endpoint and configuration creates stored a health of their own: back to none.
  for (const id of [full, soon, empty, secOnly])
    await store.domains.update(teamId, id, { health_score: null, health_grade: null, overall_status: null });

  // Each input's read is counted on the real repositories.
  const reads = { domains: 0, certificates: 0, scores: 0, liveness: 0 };
  const count = <O extends object, K extends keyof O & string>(o: O, k: K, key: keyof typeof reads) => {
    const real = (o[k] as (...a: unknown[]) => unknown).bind(o);
    (o as Record<string, unknown>)[k] = (...a: unknown[]) => {
      reads[key]++;
      return real(...a);
    };
  };
  count(store.domains, 'byIds', 'domains');
  count(store.renewals, 'certificatesOf', 'certificates');
  count(store.security, 'scoresOf', 'scores');
  count(store.livenessData, 'healthInputs', 'liveness');
  let transactions = 0;
  const realTransaction = store.transaction.bind(store);
  store.transaction = (fn) => {
    transactions++;
    return realTransaction(fn);
  };

  const { health } = services.intel;
  t.equal(await health.recomputeMany([full, soon, empty, secOnly, full]), 3, 'three moved (empty.com stays unknown)');
  t.same(reads, { domains: 1, certificates: 1, scores: 1, liveness: 1 }, 'one read of each input for the batch');
  t.equal(transactions, 1, 'the three changes in one transaction');
  for (const id of [full, soon, empty, secOnly])
    t.same(triple((await store.domains.byId(id))!), expected.get(id), `${id}: the health one recompute gives`);
  t.same(expected.get(soon)?.[2], 'critical', 'the down configuration makes soon.com critical');

  // Nothing moved since: nothing is written, and the one-domain recompute agrees with every stored value.
  t.equal(await health.recomputeMany([full, soon, empty, secOnly]), 0);
  t.equal(transactions, 1, 'no change, no transaction');
  for (const id of [full, soon, empty, secOnly]) {
    const h = await health.recompute(store, id);
    t.same([h?.score, h?.grade, h?.overall_status], expected.get(id), `${id}: recompute agrees`);
  }

  // The liveness input the batch read is reused for a minute by recomputes whose cause is not liveness.
  const before = reads.liveness;
  await health.recomputeNotLiveness(store, secOnly);
  t.equal(reads.liveness, before, 'kept from the batch');

  // Past 500 domains the inputs are read per 500; ids of deleted domains are skipped.
  const gone = Array.from({ length: 500 }, () => crypto.randomUUID());
  reads.domains = 0;
  await store.domains.update(teamId, secOnly, { expiry_override: day(5) });
  t.equal(await health.recomputeMany([...gone, secOnly]), 1, 'the override moved sec-only.com');
  t.equal(reads.domains, 2, 'two chunks');
  const h = await health.explain((await store.domains.byId(secOnly))!);
  t.same(triple((await store.domains.byId(secOnly))!), [h.score, h.grade, h.overall_status]);
}

/**
 * A domain with a security score of 80 and no stored health yet, the services over `store`, and a
 * writer of another score (the input change a refresh commits with its own recompute).
 */
async function raceSetup(store: Store) {
  const at = new Date(Date.UTC(2026, 0, 1, 12)).toISOString();
  const clock: Clock = { now: () => new Date(at) };
  const services = servicesOn(store, clock);
  const { team_id: teamId } = await services.access.createToken({ team: 'race' });
  const id = (await services.domains.create(teamId, { domain: 'race.com' })).id;
  const score = (repos: Pick<Store, 'security'>, security_score: number) =>
    repos.security.save({
      domain_id: id,
      spf: 'pass',
      dmarc: 'pass',
      dkim: 'fail',
      caa: 'pass',
      dnssec_enabled: false,
      security_score,
      details: {},
      recommendations: [],
      checked_at: at,
      next_check_at: null,
    });
  await score(store, 80);
  const health = async () => {
    const h = await services.intel.health.explain((await store.domains.byId(id))!);
    return [h.score, h.grade, h.overall_status];
  };
  const at80 = await health();
  await score(store, 20);
  const at20 = await health();
  await score(store, 80);
  await store.domains.update(teamId, id, { health_score: null, health_grade: null, overall_status: null });
  return { services, id, score, at80, at20, stored: async () => triple((await store.domains.byId(id))!) };
}

async function readThenCommit(t: Test, store: Store) {
  const { services, id, score, at80, at20, stored } = await raceSetup(store);
  t.not(JSON.stringify(at80), JSON.stringify(at20), 'the two scores give two healths');
  // Right after the batch's unlocked read, a refresh commits score 20 and its own recompute.
  const realScores = store.security.scoresOf.bind(store.security);
  let raced = false;
  store.security.scoresOf = async (ids) => {
    const read = await realScores(ids);
    if (!raced) {
      raced = true;
      await store.transaction(async (tx) => {
        await score(tx, 20);
        await services.intel.health.recompute(tx, id);
      });
    }
    return read;
  };
  const changed = await services.intel.health.recomputeMany([id]);
  t.ok(raced, 'the refresh committed between the read and the write');
  t.same(await stored(), at20, "the batch's read of score 80 did not overwrite it");
  t.equal(changed, 0, 'read again under the lock, nothing had moved');
}

onBothStores('a batch never overwrites a health committed after its read', readThenCommit);

t.test(
  "a batch on one node does not wait for, nor overwrite, another node's open recompute (PostgreSQL)",
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'health_nodes'))!;
    const [a, b] = [await openPgStore(url), await openPgStore(url)];
    t.teardown(async () => {
      await a.close();
      await b.close();
    });
    const { services, id, score, at20, stored } = await raceSetup(a);
    const onB = servicesOn(b, { now: () => new Date(Date.UTC(2026, 0, 1, 12)) });
    // Node B: a refresh that stores score 20 and its health, and holds its transaction open.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const refresh = b.transaction(async (tx) => {
      await score(tx, 20);
      await onB.intel.health.recompute(tx, id);
      holding();
      await gate;
    });
    await held;
    // Node A's batch reads score 80 (B's is not committed) and finds the row locked.
    let transactions = 0;
    const realTransaction = a.transaction.bind(a);
    a.transaction = (fn) => {
      if (++transactions === 1) setTimeout(release, 20);
      return realTransaction(fn);
    };
    const changed = await services.intel.health.recomputeMany([id]);
    await refresh;
    t.ok(transactions >= 2, `tried again after the row was released (${transactions} transactions)`);
    t.same(await stored(), at20, "B's health stands");
    t.equal(changed, 0, "read again once B committed: B's health was already the one");
  },
);

onBothStores('a batch stores what one recompute per domain stores, reading each input once', batch);
