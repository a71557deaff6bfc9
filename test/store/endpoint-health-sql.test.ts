// healthSql (the SQL that lists filter and count by) and endpointHealth (the TS rule every status
// answer shows) agree on every input: each certificate status (and none), each liveness input (and
// none), and 24 h check counts from none up, with every count near the 99 % rounding boundary.
import t from 'tap';
import { sql } from 'kysely';
import { openStore } from '../../src/store/index.js';
import { healthSql, uptimeSql } from '../../src/store/repos/endpoints.js';
import { endpointHealth } from '../../src/domain/endpoint.js';
import { SSL_STATUSES } from '../../src/domain/certificate.js';
import { uptimePercent } from '../../src/domain/liveness.js';

type Input = [ssl: string | null, liveness: 'up' | 'down' | 'unknown' | null, ok: number | null, total: number | null];

const SSL = [null, ...SSL_STATUSES, 'not-a-status'];
const LIVENESS = [null, 'up', 'down', 'unknown'] as const;

/** (ok, total) of the last 24 h: none, and every count up to 120 checks. */
function fewChecks(): [number | null, number | null][] {
  const out: [number | null, number | null][] = [
    [null, null],
    [0, 0],
  ];
  for (let total = 1; total <= 120; total++) for (let ok = 0; ok <= total; ok++) out.push([ok, total]);
  return out;
}

/** Both sides of 99 % (after uptimePercent's rounding) for totals up to 300,000, and exactly 98.995 %. */
function nearBoundary(): [number, number][] {
  const out: [number, number][] = [];
  for (let total = 121; total <= 300_000; total += total < 20_000 ? 1 : 97) {
    const edge = Math.ceil(total * 0.98995);
    for (const ok of [edge - 1, edge, edge + 1]) if (ok <= total) out.push([ok, total]);
  }
  for (let k = 1; k <= 20; k++) out.push([19_799 * k, 20_000 * k]);
  return out;
}

t.test('healthSql agrees with endpointHealth on every input combination', async (t) => {
  const store = await openStore(':memory:');
  t.teardown(() => store.close());
  const inputs: Input[] = [];
  for (const ssl of SSL)
    for (const live of LIVENESS) for (const [ok, total] of fewChecks()) inputs.push([ssl, live, ok, total]);
  // The boundary counts matter where neither certificate nor liveness decides already.
  for (const [ssl, live] of [
    ['valid', 'up'],
    [null, null],
    ['unknown', 'unknown'],
    ['unknown', null],
  ] as const) {
    for (const [ok, total] of nearBoundary()) inputs.push([ssl, live, ok, total]);
  }
  t.ok(inputs.length > 250_000, `${inputs.length} inputs`);
  const mismatches: string[] = [];
  for (let i = 0; i < inputs.length; i += 50_000) {
    const chunk = inputs.slice(i, i + 50_000);
    const { rows } = await sql<{
      health: string;
    }>`select ${healthSql(sql.ref('ssl'), sql.ref('live'), uptimeSql(sql.ref('ok'), sql.ref('total')))} as health
      from (select value ->> 0 as ssl, value ->> 1 as live, value ->> 2 as ok, value ->> 3 as total, key from json_each(${JSON.stringify(chunk)}))
      order by key`.execute(store.db);
    t.equal(rows.length, chunk.length);
    chunk.forEach(([ssl, live, ok, total], k) => {
      const want = endpointHealth(ssl, live, ok === null || total === null ? null : uptimePercent({ ok, total }));
      if (rows[k]!.health !== want)
        mismatches.push(`ssl=${ssl} liveness=${live} ok=${ok} total=${total}: sql ${rows[k]!.health}, ts ${want}`);
    });
  }
  t.same(mismatches.slice(0, 20), [], 'no input where they differ');
});
