// Start-up recovery with several nodes on one PostgreSQL database (issue #22): a starting node marks
// failed only the exposure scans it left running itself and those of dead nodes (heartbeat stale, or
// no row in the node list), never a scan another live node is running; scans of nodes that die later
// are recovered on the exposure worker's schedule.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

t.setTimeout(120_000);

t.test(
  "a starting node fails its own and dead nodes' running scans, not a live node's",
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'recovery'))!;
    const two = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: 'n2' });
    t.teardown(() => two.close());
    const store = two.app.store;
    const token = await two.token('acme');
    const domain = (await client(two.url, token).post('/api/v1/domains', { domain: 'example.com' })).body;
    const teamId = (
      await store.db.selectFrom('domains').select('team_id').where('id', '=', domain.id).executeTakeFirstOrThrow()
    ).team_id;
    const now = Date.now();
    const iso = (ago: number) => new Date(now - ago).toISOString();
    // A node that died 2 minutes ago: its row is stale.
    await store.nodes.heartbeat({
      name: 'dead',
      role: 'all',
      region: 'default',
      version: '0',
      host: 'elsewhere',
      pid: 1,
      started_at: iso(3_600_000),
      last_heartbeat: iso(120_000),
      work_claimed: 0,
      checks_total: 0,
      checks_per_minute: 0,
      singletons: [],
    });
    const scans: Record<string, { node: string | null; startedAgo: number }> = {
      own: { node: 'n1', startedAgo: 60_000 }, // n1 was killed mid-scan and now restarts
      live: { node: 'n2', startedAgo: 60_000 }, // n2 is running it now
      dead: { node: 'dead', startedAgo: 60_000 },
      gone: { node: 'left-the-list', startedAgo: 60_000 },
      'old-unnamed': { node: null, startedAgo: 3_600_000 }, // before 014_shared_state, long over its budget
      'new-unnamed': { node: null, startedAgo: 60_000 }, // before 014_shared_state, maybe still running
    };
    const ids: Record<string, string> = {};
    for (const [label, s] of Object.entries(scans)) {
      ids[label] = await store.exposure.insertScan({
        team_id: teamId,
        domain_id: domain.id,
        status: 'running',
        trigger: 'schedule',
        started_at: iso(s.startedAgo),
        finished_at: null,
        findings_count: 0,
        error: null,
        hosts: [],
        wildcard: false,
        checks: {},
        node: s.node,
      });
    }
    const status = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(ids).map(async ([label, id]) => {
            const r = await store.db
              .selectFrom('exposure_scans')
              .select(['status', 'error'])
              .where('id', '=', id)
              .executeTakeFirstOrThrow();
            return [label, r.status];
          }),
        ),
      );

    const one = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: 'n1', DOMMON_ROLE: 'api' });
    t.teardown(() => one.close());
    t.same(
      await status(),
      {
        own: 'failed',
        live: 'running',
        dead: 'failed',
        gone: 'failed',
        'old-unnamed': 'failed',
        'new-unnamed': 'running',
      },
      "n1 at start: its own and dead nodes' scans failed; n2's untouched",
    );
    const own = await store.db
      .selectFrom('exposure_scans')
      .select(['error', 'finished_at'])
      .where('id', '=', ids.own!)
      .executeTakeFirstOrThrow();
    t.match(own, { error: /interrupted/, finished_at: String });

    // n2 dies (its heartbeat stops): the scheduled recovery on n1 takes its scan, not n1's own running one.
    const mine = await store.exposure.insertScan({
      team_id: teamId,
      domain_id: domain.id,
      status: 'running',
      trigger: 'manual',
      started_at: iso(0),
      finished_at: null,
      findings_count: 0,
      error: null,
      hosts: [],
      wildcard: false,
      checks: {},
      node: 'n1',
    });
    t.equal(await one.app.services.exposure.recover(false), 0, 'n2 is live: nothing to recover');
    await store.db
      .updateTable('nodes')
      .set({ last_heartbeat: iso(40_000) })
      .where('name', '=', 'n2')
      .execute();
    t.equal(await one.app.services.exposure.recover(false), 1, 'n2 went stale: its scan is recovered');
    t.match(await status(), { live: 'failed', 'new-unnamed': 'running' });
    const still = await store.db
      .selectFrom('exposure_scans')
      .select('status')
      .where('id', '=', mine)
      .executeTakeFirstOrThrow();
    t.equal(still.status, 'running', "the scheduled recovery leaves the node's own running scan alone");
  },
);
