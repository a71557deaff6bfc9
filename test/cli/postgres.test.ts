// DOMMON_DATABASE_URL / --database-url (CONTRACT "Past one machine"): `dommon migrate` creates and
// reports the schema on a real PostgreSQL, the other commands work on it, the password is never
// printed; backup runs pg_dump, doctor checks the server; restore refuses with a one-line message
// (exit 2) instead of silently using SQLite.
import fs from 'node:fs';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { startApp, tempDir } from '../support/app.js';
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
    t.match(human.stdout, /009_nodes\s+applied/);
    t.match(human.stdout, /018_autovacuum\s+applied/);
    t.notMatch(human.stdout, /s3cret-pw/);
  },
);

t.test(
  'the CLI on PostgreSQL: a domain added by one command is listed by the next; backup, doctor',
  { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'clicrud'))!;
    const dir = tempDir('dommon-pgcli-');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const env = { DOMMON_DATABASE_URL: url };
    const tok = await cli(['--json', '--data-dir', dir, 'token', 'create', '--team', 'ops'], { env });
    t.equal(tok.code, 0, tok.stderr);
    const add = await cli(['--json', '--data-dir', dir, 'domains', 'add', 'example.com'], { env });
    t.equal(add.code, 0, add.stderr);
    t.equal(add.json.domain, 'example.com');
    const list = await cli(['--json', '--data-dir', dir, 'domains', 'list'], { env });
    t.equal(list.code, 0, list.stderr);
    t.same(
      list.json.data.map((d: { domain: string }) => d.domain),
      ['example.com'],
    );
    t.notOk(fs.existsSync(`${dir}/dommon.db`), 'nothing went to a SQLite file');
    // backup runs pg_dump (custom format), the password in PGPASSWORD; doctor checks the server and schema.
    const backup = await cli(['--json', '--data-dir', dir, 'backup', `${dir}/b.dump`], { env });
    t.equal(backup.code, 0, backup.stderr);
    t.match(backup.json, { engine: 'postgres', tool: /pg_dump/ });
    t.ok(fs.statSync(`${dir}/b.dump`).size > 1000, 'a dump was written');
    t.equal(
      (await cli(['--data-dir', dir, 'backup', `${dir}/b.dump`], { env })).code,
      4,
      'an existing file needs --force',
    );
    const doctor = await cli(['--json', '--data-dir', dir, 'doctor', '--timeout', '2000'], { env });
    const checks = doctor.json.checks as { name: string; status: string; detail: string }[];
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    t.match(byName['database connection'], { status: 'ok', detail: /PostgreSQL 1\d/ });
    t.match(byName['schema version'], {
      status: 'ok',
      detail: new RegExp(`at ${Object.keys(MIGRATIONS).sort().at(-1)}`),
    });
    const restore = await cli(['--data-dir', dir, 'restore', `${dir}/b.dump`], { env });
    t.equal(restore.code, 2);
    t.match(restore.stderr, /pg_restore/);
  },
);

t.test(
  '/metrics on PostgreSQL shows the connection pool',
  { skip: process.env.DOMMON_TEST_DATABASE_URL ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'metrics'))!;
    const s = await startApp({ DOMMON_DATABASE_URL: url });
    t.teardown(() => s.close());
    const text = await (await fetch(`${s.url}/metrics`)).text();
    for (const state of ['in_use', 'idle', 'waiting']) {
      t.match(text, new RegExp(`^dommon_database_pool_connections\\{state="${state}"\\} \\d+$`, 'm'));
    }
  },
);

t.test('a bad or unreachable PostgreSQL URL: a clear error, the password never printed', async (t) => {
  const dir = tempDir('dommon-pgcli-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bad = await cli(['--data-dir', dir, '--database-url', 'mysql://x@localhost/db', 'migrate']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL/);
  const down = await cli(['--data-dir', dir, 'migrate'], {
    env: { DOMMON_DATABASE_URL: 'postgres://u:pw-do-not-print@127.0.0.1:9/x' },
  });
  t.not(down.code, 0, 'a server that is not there fails the command');
  t.match(down.stderr, /postgres:\/\/u:\*\*\*@127\.0\.0\.1:9\/x/);
  t.notMatch(down.stderr, /pw-do-not-print/);
  const list = await cli(['--data-dir', dir, 'domains', 'list'], {
    env: { DOMMON_DATABASE_URL: 'postgres://u:pw-do-not-print@127.0.0.1:9/x' },
  });
  t.not(list.code, 0);
  t.notMatch(list.stderr + list.stdout, /pw-do-not-print/);
  t.notOk(fs.existsSync(`${dir}/dommon.db`), 'never falls back to SQLite');
});

t.test('a password in the query string (?password=, ?sslpassword=) is never printed either', async (t) => {
  const dir = tempDir('dommon-pgcli-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // node-postgres takes the password from the query string as well as from the user-info part.
  const url = 'postgres://u@127.0.0.1:9/x?sslmode=disable&password=qs-pw-do-not-print&sslpassword=qs-sslpw-hidden';
  const env = { DOMMON_DATABASE_URL: url };
  for (const args of [['migrate'], ['migrate', '--status'], ['doctor'], ['doctor', '--json'], ['domains', 'list']]) {
    const r = await cli(['--data-dir', dir, ...args], { env });
    t.not(r.code, 0, `${args.join(' ')}: a server that is not there fails the command`);
    t.notMatch(r.stdout + r.stderr, /qs-pw-do-not-print|qs-sslpw-hidden/, `${args.join(' ')}: no password printed`);
  }
  const migrate = await cli(['--data-dir', dir, 'migrate'], { env });
  t.match(
    migrate.stderr,
    /127\.0\.0\.1:9\/x\?sslmode=disable&password=\*\*\*&sslpassword=\*\*\*/,
    'names the URL, masked',
  );
  const serve = await cli(['--data-dir', dir, 'serve', '--port', '0'], { env, timeoutMs: 30_000 });
  t.not(serve.code, 0, 'serve cannot start without its database');
  t.notMatch(serve.stdout + serve.stderr, /qs-pw-do-not-print|qs-sslpw-hidden/, 'serve: no password printed');
  const flag = await cli(['--data-dir', dir, '--database-url', url, 'migrate']);
  t.notMatch(flag.stdout + flag.stderr, /qs-pw-do-not-print|qs-sslpw-hidden/, '--database-url: no password printed');
});
