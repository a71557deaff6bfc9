// The nameserver watch with two nodes on one PostgreSQL database: each round, each domain's delegation
// is looked at by one node only (the refresh schedule's leases), counted at a real parent zone server.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { runningClock } from '../support/clock.js';
import { startDnsServer } from '../support/dns-server.js';
import { createPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { startParentDns } from '../support/parent-dns.js';
import { sleep, waitFor } from '../support/wait.js';

if (!pgServerUrl()) {
  t.test('two nodes on PostgreSQL', { skip: PG_SKIP }, () => {});
} else {
  t.setTimeout(180_000);
  t.test('each domain is looked at by one node per round', async (t) => {
    const resolver = await startDnsServer({ test: { NS: ['ns1.nic.test'] }, 'ns1.nic.test': { A: ['127.0.0.2'] } });
    const names = ['a', 'b', 'c', 'd'].map((x) => `${x}.test`);
    const parent = await startParentDns({
      host: '127.0.0.2',
      port: resolver.port,
      zone: 'test',
      delegations: Object.fromEntries(names.map((n) => [n, { NS: [`ns1.${n}`] }])),
    });
    const db = (await createPgDatabase('nswatch', { migrated: true }))!;
    const clock = runningClock();
    const env = {
      DOMMON_DATABASE_URL: db.url,
      DOMMON_DNS_SERVERS: resolver.address,
      DOMMON_NAMESERVER_PORT: String(resolver.port),
    };
    const nodes = [
      await startApp({ ...env, DOMMON_NODE_NAME: 'n1' }, { clock }),
      await startApp({ ...env, DOMMON_NODE_NAME: 'n2' }, { clock }),
    ];
    t.teardown(async () => {
      for (const n of nodes) await n.close();
      await db.drop();
      await parent.close();
      await resolver.close();
    });
    const api = client(nodes[0]!.url, await nodes[0]!.token('watch'));
    for (const domain of names) t.equal((await api.post('/api/v1/domains', { domain })).status, 201);
    const looks = (n: string) => parent.queries.filter((q) => q.name === n && q.type === 'NS').length;

    for (let round = 1; round <= 3; round++) {
      if (round > 1) clock.advance(301_000);
      await waitFor(() => names.every((n) => looks(n) >= round), 20_000);
      // Both nodes tick every second: two more seconds give either one the chance to look again.
      await sleep(2500);
      t.same(
        names.map((n) => looks(n)),
        names.map(() => round),
        `round ${round}: one look per domain`,
      );
    }
  });
}
