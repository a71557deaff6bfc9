// PostgreSQL keeps raw liveness results in one partition per UTC day: opening the store makes today's
// and the next days' ahead, and retention drops whole days instead of deleting rows (what is left of
// the cut-off day, and rows in the default partition, go by range as on SQLite).
import t from 'tap';
import { sql } from 'kysely';
import { openPgStore } from '../../src/store/index.js';
import { createRetentionService } from '../../src/services/retention.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { DEFAULT_REGION } from '../../src/domain/liveness.js';

const DAY = 86_400_000;

t.test(
  'day partitions: made ahead, dropped whole by retention',
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'parts'))!;
    const store = await openPgStore(url);
    t.teardown(() => store.close());
    const partitions = async () =>
      (
        await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent where p.relname = 'liveness_results' order by 1`.execute(store.db)
      ).rows.map((r) => r.name);
    const today = Math.floor(Date.now() / DAY);
    const name = (day: number) =>
      `liveness_results_d${new Date(day * DAY).toISOString().slice(0, 10).replaceAll('-', '')}`;
    t.same(
      await partitions(),
      [...[0, 1, 2, 3].map((d) => name(today + d)), 'liveness_results_default'].sort(),
      'today and 3 days ahead',
    );
    const options = await sql<{ o: string[] | null }>`select reloptions as o from pg_class
      where relname = ${name(today)}`.execute(store.db);
    t.same(options.rows[0]?.o, ['autovacuum_vacuum_insert_threshold=-1'], 'a day partition: no insert-driven vacuums');

    // One config with a result every hour for 12 days: the 4 newest days in their partitions, older
    // days (before any partition existed) in the default one.
    const team = await store.teams.create('t', new Date().toISOString());
    await store.db
      .insertInto('domains')
      .values({
        id: 'd',
        team_id: team.id,
        domain: 'x.com',
        verification_token: 'v',
        created_at: 'x',
        updated_at: 'x',
      } as never)
      .execute();
    await store.db
      .insertInto('endpoints')
      .values({
        id: 'e',
        team_id: team.id,
        domain_id: 'd',
        name: 'e',
        endpoint_type: 'http',
        created_at: 'x',
        updated_at: 'x',
      } as never)
      .execute();
    await store.db
      .insertInto('liveness_configs')
      .values({ id: 'c', seq: 1, team_id: team.id, endpoint_id: 'e', created_at: 'x', updated_at: 'x' } as never)
      .execute();
    const rows: { cfg: number; ts: number; ok: boolean; ms: number; status: number; error: null; region: string }[] =
      [];
    for (let ts = (today - 8) * DAY; ts < (today + 4) * DAY; ts += 3_600_000)
      rows.push({ cfg: 1, ts, ok: true, ms: 10, status: 200, error: null, region: DEFAULT_REGION });
    await store.transaction((tx) => tx.livenessData.addResults(rows));
    t.equal(await store.livenessData.countResults(1), 12 * 24);

    // Retention at noon of day today+3 keeping 7 days: the cut falls at noon of today-4.
    const now = (today + 3) * DAY + DAY / 2;
    const retention = createRetentionService({
      store,
      clock: { now: () => new Date(now) },
      resultRetentionDays: 7,
      batchSize: 50,
    });
    const report = await retention.runOnce();
    const cut = now - 7 * DAY;
    t.equal(report.deleted.liveness_results, rows.filter((r) => r.ts < cut).length, 'every row before the cut is gone');
    t.equal(await store.livenessData.countResults(1), rows.filter((r) => r.ts >= cut).length);
    const after = await partitions();
    t.notOk(
      after.includes(name(today - 1)) || after.includes(name(today - 8)),
      'no partitions of days before the cut (none were made for them)',
    );
    t.ok(
      [0, 1, 2, 3, 4, 5, 6].every((d) => after.includes(name(today + d))),
      'partitions made ahead of the retention day',
    );
    // A later pass drops today's partition whole once its day is past the cut.
    const later = createRetentionService({
      store,
      clock: { now: () => new Date((today + 8) * DAY) },
      resultRetentionDays: 7,
      batchSize: 50,
    });
    const r2 = await later.runOnce();
    const cut2 = (today + 1) * DAY;
    t.equal(
      r2.deleted.liveness_results,
      rows.filter((r) => r.ts >= cut && r.ts < cut2).length,
      'the rest before the new cut: by range and with the partition',
    );
    t.equal(await store.livenessData.countResults(1), rows.filter((r) => r.ts >= cut2).length);
    t.notOk((await partitions()).includes(name(today)), "today's partition dropped");
  },
);

t.test(
  "a config's raw results go with it: a trigger, not a foreign key checked on every insert",
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'cascade'))!;
    const store = await openPgStore(url);
    t.teardown(() => store.close());
    const fks = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = 'liveness_results'::regclass and contype = 'f'`.execute(store.db);
    t.same(fks.rows, [], 'no foreign key on the raw results (migration 017)');

    const team = await store.teams.create('t', new Date().toISOString());
    const at = { created_at: 'x', updated_at: 'x' };
    await store.db
      .insertInto('domains')
      .values({ id: 'd', team_id: team.id, domain: 'x.com', verification_token: 'v', ...at } as never)
      .execute();
    for (const n of [1, 2, 3]) {
      await store.db
        .insertInto('endpoints')
        .values({ id: `e${n}`, team_id: team.id, domain_id: 'd', name: `e${n}`, endpoint_type: 'http', ...at } as never)
        .execute();
      await store.db
        .insertInto('liveness_configs')
        .values({ id: `c${n}`, seq: n, team_id: team.id, endpoint_id: `e${n}`, ...at } as never)
        .execute();
    }
    // Every config: results today (its day's partition) and 20 days ago (the default partition).
    const today = Math.floor(Date.now() / DAY);
    const rows = [1, 2, 3].flatMap((cfg) =>
      [today * DAY + 1000, (today - 20) * DAY + 1000].map((ts) => ({
        cfg,
        ts,
        ok: true,
        ms: 5,
        status: 200,
        error: null,
        region: DEFAULT_REGION,
      })),
    );
    await store.transaction((tx) => tx.livenessData.addResults(rows));
    t.same(await Promise.all([1, 2, 3].map((cfg) => store.livenessData.countResults(cfg))), [2, 2, 2]);

    await store.db.deleteFrom('liveness_configs').where('id', '=', 'c1').execute();
    t.same(
      await Promise.all([1, 2, 3].map((cfg) => store.livenessData.countResults(cfg))),
      [0, 2, 2],
      "a config's delete takes its results from every partition, and no other config's",
    );
    // A domain's delete reaches its configs through the endpoints' cascade: one statement, every result.
    await store.db.deleteFrom('domains').where('id', '=', 'd').execute();
    t.equal(await store.livenessData.countResults(), 0, "the domain's configs' results are gone too");
  },
);
