// DOMMON_DATABASE_URL / --database-url (CONTRACT "Past one machine"): `dommon migrate` creates and
// reports the schema on a real PostgreSQL; the password is never printed; commands that do not run
// on PostgreSQL yet refuse with a one-line message (exit 2) instead of silently using SQLite.
import fs from 'node:fs';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { tempDir } from '../support/app.js';
import { freshPgDatabase, PG_SKIP } from '../support/pg.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

t.setTimeout(180_000);
t.before(ensureBuilt);

t.test(
  'migrate on PostgreSQL: applies every migration, then reports them; the password stays hidden',
  { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'cli'))!;
    // The test server trusts loopback: any password is accepted, and must not be echoed.
    const withPassword = new URL(url);
    withPassword.password = 's3cret-pw';
    const dir = tempDir('dommon-pgcli-');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

    const status0 = await cli(['--json', '--data-dir', dir, 'migrate', '--status'], {
      env: { DOMMON_DATABASE_URL: withPassword.toString() },
    });
    t.equal(status0.code, 0, status0.stderr);
    t.same(status0.json.pending, Object.keys(MIGRATIONS).sort(), 'an empty database: everything pending');
    t.equal(status0.json.current, null);

    const r = await cli(['--json', '--data-dir', dir, '--database-url', withPassword.toString(), 'migrate']);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.json.engine, 'postgres');
    t.same(
      r.json.applied.map((a: { name: string }) => a.name),
      Object.keys(MIGRATIONS).sort(),
    );
    t.same(r.json.pending, []);
    t.match(r.json.database, /^postgres:\/\/dommon:\*\*\*@127\.0\.0\.1:\d+\/dommon_cli_/);
    for (const out of [status0, r]) t.notMatch(out.stdout + out.stderr, /s3cret-pw/, 'the password is never printed');
    t.notOk(fs.existsSync(`${dir}/dommon.db`), 'no SQLite file was made');

    const human = await cli(['--data-dir', dir, 'migrate', '--status'], {
      env: { DOMMON_DATABASE_URL: withPassword.toString() },
    });
    t.equal(human.code, 0);
    t.match(human.stdout, /007_delivery_log_order\s+applied/);
    t.notMatch(human.stdout, /s3cret-pw/);
  },
);

t.test('a PostgreSQL URL elsewhere: a clear refusal, not SQLite; a bad URL is a usage error', async (t) => {
  const dir = tempDir('dommon-pgcli-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await cli(['--data-dir', dir, 'domains', 'list'], {
    env: { DOMMON_DATABASE_URL: 'postgres://u:pw-do-not-print@127.0.0.1:9/x' },
  });
  t.equal(r.code, 2);
  t.match(r.stderr, /supported only by `dommon migrate`/);
  t.notMatch(r.stderr, /pw-do-not-print/);
  t.notOk(fs.existsSync(`${dir}/dommon.db`));
  const bad = await cli(['--data-dir', dir, '--database-url', 'mysql://x@localhost/db', 'migrate']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL/);
  const down = await cli(['--data-dir', dir, 'migrate'], {
    env: { DOMMON_DATABASE_URL: 'postgres://u:pw-do-not-print@127.0.0.1:9/x' },
  });
  t.not(down.code, 0, 'a server that is not there fails the command');
  t.match(down.stderr, /postgres:\/\/u:\*\*\*@127\.0\.0\.1:9\/x/);
  t.notMatch(down.stderr, /pw-do-not-print/);
});
