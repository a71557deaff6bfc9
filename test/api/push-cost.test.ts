// What a heartbeat ping costs (docs/push.md, "What it costs"): the SQL statements one ping runs, on
// SQLite, counted as the daemon runs them. A ping is one write (the insert of the ping), and every
// statement it runs finds its rows by an index (no table scan), whatever the number of pings kept.
import { AsyncLocalStorage } from 'node:async_hooks';
import Database from 'better-sqlite3';
import t from 'tap';
import { client, startApp } from '../support/app.js';

interface Ran {
  source: string;
  args: unknown[];
  db: Database.Database;
}

t.test('a heartbeat ping is one indexed write', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const api = client(s.url, await s.token('push-cost'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'job', endpoint_type: 'push' })).body;
  const key = ep.ping_key as string;

  // Every statement run inside `scope` is recorded with its arguments.
  const scope = new AsyncLocalStorage<Ran[]>();
  const mem = new Database(':memory:');
  const proto = Object.getPrototypeOf(mem.prepare('select 1')) as Record<
    'all' | 'get' | 'run' | 'iterate',
    (...a: unknown[]) => unknown
  >;
  const saved = { all: proto.all, get: proto.get, run: proto.run, iterate: proto.iterate };
  for (const m of ['all', 'get', 'run', 'iterate'] as const) {
    proto[m] = function (this: { source: string; database: Database.Database }, ...args: unknown[]) {
      scope.getStore()?.push({ source: this.source, args, db: this.database });
      return saved[m].apply(this, args);
    };
  }
  mem.close();
  t.teardown(() => void Object.assign(proto, saved));
  const ping = async (action?: string) => {
    const ran: Ran[] = [];
    await scope.run(ran, () => s.app.services.push.ping(key, action, null));
    // Upkeep whose count is timing, not the ping's: the change tracker's data_version read.
    return ran.filter((r) => r.source !== 'pragma data_version');
  };

  // A first success changes the state (a result is written); after it, pings of a steady job.
  await ping();
  // Many pings kept already: the statements' plans must not depend on them.
  for (let i = 0; i < 200; i++) await ping(i % 2 ? undefined : 'start');
  for (const [action, what] of [
    [undefined, 'a success while up'],
    ['start', 'a start'],
    ['log', 'a log message'],
  ] as const) {
    const ran = await ping(action);
    const writes = ran.filter((r) => !/^\s*(select|with)\b/i.test(r.source));
    t.equal(writes.length, 1, `${what}: one write`);
    t.match(writes[0]?.source, /^insert into "push_pings" /, `${what}: the insert of the ping`);
    for (const r of ran) {
      const plan = (r.db.prepare(`explain query plan ${r.source}`).all(...r.args) as { detail: string }[]).map(
        (p) => p.detail,
      );
      const scans = plan.filter((d) => /^SCAN (?!CONSTANT)/.test(d));
      t.same(scans, [], `${what}: by an index: ${r.source.slice(0, 80)} (${plan.join('; ')})`);
    }
    // The key's look-up and the insert; a finish also reads the last start and finish (the run's
    // duration), the configuration and endpoint (2) and the state (to see whether it changes).
    t.equal(ran.length, action === undefined ? 7 : 2, `${what}: ${ran.length} statements in all`);
    t.comment(
      `${what}: ${ran.length} statements: ${ran.map((r) => r.source.replace(/\s+/g, ' ').slice(0, 60)).join(' | ')}`,
    );
  }
});
