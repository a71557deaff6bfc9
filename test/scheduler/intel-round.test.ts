// The intel scheduler's round: each claimed domain's refreshes run together and its health is
// recomputed once afterwards, the round's domains read in one batch, not in each refresh's
// transaction; the health stored is the one a per-domain recompute gives. A refresh a person asks
// for still stores the health in its own transaction.
import fs from 'node:fs';
import t from 'tap';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { openLocal } from '../../src/app.js';
import { createIntelScheduler } from '../../src/scheduler/intel.js';
import type { Domain } from '../../src/domain/types.js';
import { OFFLINE_ENV, tempDir } from '../support/app.js';
import { startDnsServer } from '../support/dns-server.js';
import { rdapDomain, startRdapServer } from '../support/rdap-server.js';

const DAY = 86_400_000;
const day = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);
const triple = (d: Pick<Domain, 'health_score' | 'health_grade' | 'overall_status'>) => [
  d.health_score,
  d.health_grade,
  d.overall_status,
];

t.test('a round recomputes each domain once, in one batch, to the per-domain health', async (t) => {
  const dns = await startDnsServer({
    'one.com': { TXT: ['v=spf1 -all'], CAA: [{ tag: 'issue', value: 'letsencrypt.org' }] },
    '_dmarc.one.com': { TXT: ['v=DMARC1; p=reject'] },
    'two.com': { TXT: ['v=spf1 mx -all'] },
  });
  const rdap = await startRdapServer({
    'one.com': rdapDomain('one.com', { registrar: 'R', expiry: `${day(200)}T00:00:00Z` }),
    'two.com': rdapDomain('two.com', { registrar: 'R', expiry: `${day(20)}T00:00:00Z` }),
  });
  const dataDir = tempDir('dommon-intel-round-');
  const config = loadConfig(
    { dataDir },
    { ...OFFLINE_ENV, DOMMON_DNS_SERVERS: dns.address, DOMMON_RDAP_URL: rdap.url },
  );
  const log = pino({ level: 'silent' });
  const { store, services } = await openLocal(config, undefined, { log });
  const scheduler = createIntelScheduler({
    intel: services.intel,
    clock: { now: () => new Date() },
    log,
    checkInterval: config.checkInterval,
    verifyInterval: 3600,
    // The round's end flushes its health; the timer (1 s after a domain's refreshes by default) fires
    // before it when a round takes longer, as on a loaded machine: not here.
    healthFlushMs: 60_000,
  });
  t.teardown(async () => {
    await scheduler.stop();
    await store.close();
    await Promise.all([dns.close(), rdap.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { team_id: teamId } = await services.access.createToken({ team: 'round' });
  const ids = [
    (await services.domains.create(teamId, { domain: 'one.com' })).id,
    (await services.domains.create(teamId, { domain: 'two.com' })).id,
    (await services.domains.create(teamId, { domain: 'three.com' })).id,
  ];

  // The one-domain recompute starts by reading the domain by id: counted in every transaction, and
  // the batches' reads of domains on the store itself.
  let recomputesInTransactions = 0;
  const realTransaction = store.transaction.bind(store);
  store.transaction = (fn) =>
    realTransaction((tx) => {
      const byId = tx.domains.byId.bind(tx.domains);
      tx.domains.byId = (id) => {
        recomputesInTransactions++;
        return byId(id);
      };
      return fn(tx);
    });
  const batches: number[] = [];
  const byIds = store.domains.byIds.bind(store.domains);
  store.domains.byIds = (list) => {
    batches.push(list.length);
    return byIds(list);
  };

  t.equal(await scheduler.tick(), 9, 'three kinds due for each new domain');
  t.equal(recomputesInTransactions, 0, 'no refresh recomputed health in its transaction');
  t.same(batches, [3, 3], 'the round read its domains in one batch, and recomputed them in one');
  const stored = async (id: string) => (await store.domains.byId(id))!;
  for (const id of ids) {
    const d = await stored(id);
    const h = await services.intel.health.explain(d);
    t.same(triple(d), [h.score, h.grade, h.overall_status], `${d.domain}: the health a per-domain recompute gives`);
  }
  t.equal((await stored(ids[0]!)).health_grade, 'A');
  t.equal((await stored(ids[1]!)).overall_status, 'warning', 'two.com expires in 20 days');
  t.same(triple(await stored(ids[2]!)), [0, 'F', 'critical'], 'three.com: no registration, no DNS-security record');
  t.equal(await scheduler.tick(), 0, 'nothing due any more');

  // Asked for by a person: the registration's transaction stores the new health at once.
  rdap.domains['one.com'] = rdapDomain('one.com', { registrar: 'R', expiry: `${day(5)}T00:00:00Z` });
  await services.intel.refreshRegistration(await stored(ids[0]!), { fresh: true });
  t.equal(recomputesInTransactions, 1, 'recomputed in the refresh transaction');
  t.equal((await stored(ids[0]!)).overall_status, 'critical', 'expiring in 5 days');
});
