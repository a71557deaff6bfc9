// The change tracker reads which tables a raw statement writes from its text: the first words of a
// plain statement, every data-modifying part of a WITH statement (embedded sql`...` pieces and
// sql.table() parameters included), nothing for reads and locks, "anything" when it cannot tell.
import t from 'tap';
import { sql, type RawBuilder, type RootOperationNode } from 'kysely';
import { ChangeTracker } from '../../src/store/change-tracker.js';

const TABLES = [
  'liveness_due',
  'liveness_region_due',
  'liveness_hourly',
  'liveness_state',
  'liveness_results',
  'teams',
];

/** The tables whose stamp moved when the tracker saw `q` (['*'] when every table's did). */
function written(q: RawBuilder<unknown>): string[] {
  const tracker = new ChangeTracker();
  const before = new Map(TABLES.map((x) => [x, tracker.stamp([x])]));
  const unrelated = tracker.stamp(['never_written']);
  tracker.transformQuery({ node: q.toOperationNode() as unknown as RootOperationNode, queryId: { queryId: 'q' } });
  if (tracker.stamp(['never_written']) !== unrelated) return ['*'];
  return TABLES.filter((x) => tracker.stamp([x]) !== before.get(x));
}

t.test('plain statements: the table after the verb, a sql.table() parameter included', async (t) => {
  t.same(written(sql`update liveness_due q set owner = ${'a'}`), ['liveness_due']);
  t.same(written(sql`update ${sql.table('liveness_region_due')} q set owner = ${'a'}`), ['liveness_region_due']);
  t.same(written(sql`insert into "teams" (id) values (${'x'})`), ['teams']);
  t.same(written(sql`select * from liveness_due where owner is null for update skip locked`), []);
});

t.test('WITH statements: every data-modifying part, not FOR UPDATE or DO UPDATE', async (t) => {
  t.same(
    written(sql`with sf as (select config_id from liveness_due where due_at <= ${1} for update skip locked),
      sl as (select config_id from liveness_due for no key update skip locked),
      us as (update liveness_due q set token = q.token + 1 where q.config_id = any(array(select config_id from sf))
             returning q.config_id),
      ur as (update liveness_region_due q set token = q.token + 1 returning q.config_id)
      select * from us union all select * from ur`),
    ['liveness_due', 'liveness_region_due'],
    'the two updates; neither lock clause',
  );
  t.same(
    written(sql`with h as (insert into ${sql.table('liveness_hourly')} (cfg) select * from unnest(${[1]}::integer[])
        on conflict (cfg) do update set total = excluded.total)
      insert into liveness_state (config_id) values (${'c'}) on conflict (config_id) do update set status = excluded.status`),
    ['liveness_hourly', 'liveness_state'],
    'a table given as a parameter, and the statement the parts lead to',
  );
  const part = sql`insert into liveness_results (cfg) values (${1})`;
  t.same(written(sql`with p0 as (${part}) select 1`), ['liveness_results'], 'an embedded piece is read too');
  t.same(written(sql`with x as (select 1 as a) select * from x`), [], 'a WITH that only reads writes nothing');
  t.same(written(sql`with x as (delete from ${sql.ref('teams')}) select 1`), ['*'], 'a table it cannot read: anything');
});

t.test('statements it cannot read count as writes of anything', async (t) => {
  t.same(written(sql`vacuum liveness_due`), ['*']);
  t.same(written(sql`${sql.raw('update')} ${sql.ref('x')} set a = 1`), ['*']);
});
