// `dommon token create --role ROLE --expires DURATION|DATE` and what `token list` shows of them (own role,
// expiry, last use), on SQLite and on PostgreSQL: a role above the user's is refused, an expiry must be in
// the future, and a running daemon holds the token to its role. `users set-role` and `users remove`
// refuse to leave the team without an owner; `users set-password` ends the person's password sessions
// on the running daemon.
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { cli, ensureBuilt, serve } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP } from '../support/pg.js';

t.setTimeout(240_000);
t.before(ensureBuilt);

const DAY = 86_400_000;

for (const engine of ['sqlite', 'postgres'] as const)
  t.test(
    `token create --role --expires, token list (${engine})`,
    { skip: engine === 'postgres' && !process.env.DOMMON_TEST_DATABASE_URL ? PG_SKIP : false },
    async (t) => {
      t.setTimeout(150_000);
      const dir = tempDir('dommon-token-role-');
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const env: Record<string, string> =
        engine === 'postgres' ? { DOMMON_DATABASE_URL: (await freshPgDatabase(t, 'tokrole'))! } : {};
      const run = (...args: string[]) => cli(['--data-dir', dir, ...args], { env });

      // The team's owner first: a new team's first member is its owner, whatever --role says.
      t.equal((await run('--team', 'ops', 'users', 'add', 'boss@example.com')).code, 0);
      t.equal((await run('--team', 'ops', 'users', 'add', 'ed@example.com', '--role', 'editor')).code, 0);
      const before = Date.now();
      const scoped = await run(
        '--json',
        'token',
        'create',
        '--team',
        'ops',
        '--user',
        'ed@example.com',
        '--name',
        'ci',
        '--role',
        'Viewer',
        '--expires',
        '90d',
      );
      t.equal(scoped.code, 0, scoped.stderr);
      t.match(scoped.json, { user: 'ed@example.com', token_name: 'ci', role: 'viewer', read_only: false });
      const expires = Date.parse(scoped.json.expires_at);
      t.ok(expires >= before + 90 * DAY && expires <= Date.now() + 90 * DAY, `90d from now: ${scoped.json.expires_at}`);

      const [dated, tooHigh] = await Promise.all([
        run('--json', 'token', 'create', '--team', 'ops', '--user', 'ed@example.com', '--expires', '2099-01-31'),
        run('token', 'create', '--team', 'ops', '--user', 'ed@example.com', '--role', 'owner'),
      ]);
      t.equal(dated.code, 0, dated.stderr);
      t.match(dated.json, { role: null, expires_at: '2099-01-31T00:00:00.000Z' }, 'a date alone: its midnight UTC');
      t.equal(tooHigh.code, 1, 'a role above the user: refused');
      t.match(tooHigh.stderr, /^dommon: a token's role cannot be higher than its user's: ed@example\.com is editor/);
      t.equal(tooHigh.stdout, '');
      // --expires and --role are read before the database is opened: the refusals of what they say are
      // the same process on either engine, so they run on SQLite only.
      if (engine === 'sqlite') {
        const [past, garbage, badRole] = await Promise.all([
          run('token', 'create', '--team', 'ops', '--user', 'ed@example.com', '--expires', '2001-01-01T00:00:00Z'),
          run('token', 'create', '--team', 'ops', '--user', 'ed@example.com', '--expires', '90'),
          run('token', 'create', '--team', 'ops', '--user', 'ed@example.com', '--role', 'admin'),
        ]);
        t.equal(past.code, 2, 'an expiry in the past: invalid');
        t.match(past.stderr, /not in the future/);
        t.equal(garbage.code, 2, 'a number without a unit is neither a duration nor a date');
        t.match(garbage.stderr, /neither a duration \(such as 90d/);
        t.equal(badRole.code, 2);
        t.match(badRole.stderr, /"admin" is not a role/);
      }

      // The team's last owner can be neither demoted nor removed (409 LAST_OWNER: the conflict exit code, 4).
      const [demote, remove] = await Promise.all([
        run('--team', 'ops', 'users', 'set-role', 'boss@example.com', 'editor'),
        run('--team', 'ops', 'users', 'remove', 'boss@example.com'),
      ]);
      for (const r of [demote, remove]) {
        t.equal(r.code, 4, r.stderr);
        t.equal(
          r.stderr,
          'dommon: boss@example.com is the last owner of team "ops": make another member an owner first\n',
        );
      }

      const list = await run('--json', 'token', 'list');
      t.equal(list.code, 0, list.stderr);
      t.equal(list.json.length, 2, 'the refused ones made nothing (not even a token row)');
      t.match(
        list.json.find((r: any) => r.id === scoped.json.id),
        { role: 'viewer', expires_at: scoped.json.expires_at, last_used_at: null },
      );

      // A running daemon holds the token to its role (viewer: a write is 403 FORBIDDEN_ROLE) and records its use.
      const d = await serve(dir, env);
      t.teardown(() => d.child.kill('SIGKILL'));
      const auth = { authorization: `Bearer ${scoped.json.token}`, 'content-type': 'application/json' };
      t.equal((await fetch(`${d.url}/api/v1/domains`, { headers: auth })).status, 200);
      const write = await fetch(`${d.url}/api/v1/portfolios`, { method: 'POST', headers: auth, body: '{"name":"p"}' });
      t.equal(write.status, 403);
      t.match(await write.json(), { code: 'FORBIDDEN_ROLE' });

      // A password set on the command line ends the person's password sessions, on the running daemon too.
      const setPw = (pw: string) =>
        cli(['--data-dir', dir, '--json', '--team', 'ops', 'users', 'set-password', 'ed@example.com'], {
          env,
          input: `${pw}\n`,
        });
      const first = await setPw('first password 1');
      t.equal(first.code, 0, first.stderr);
      t.equal(first.json.ended_sessions, 0);
      const signIn = (password: string) =>
        fetch(`${d.url}/ui/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: d.url },
          body: JSON.stringify({ email: 'ed@example.com', password }),
        });
      const signedIn = await signIn('first password 1');
      t.equal(signedIn.status, 201);
      const cookie = { cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]! };
      t.equal((await fetch(`${d.url}/api/v1/domains`, { headers: cookie })).status, 200, 'the password session reads');
      const second = await setPw('second password 2');
      t.equal(second.code, 0, second.stderr);
      t.equal(second.json.ended_sessions, 1, 'the old password signed in once');
      t.equal((await fetch(`${d.url}/api/v1/domains`, { headers: cookie })).status, 401, 'that session has ended');
      t.equal((await signIn('first password 1')).status, 401, 'the old password is refused');
      t.equal((await signIn('second password 2')).status, 201, 'the new one signs in');
      t.equal((await fetch(`${d.url}/api/v1/domains`, { headers: auth })).status, 200, "the person's token stays");
      t.equal(await d.stop(), 0);

      const text = await run('token', 'list');
      t.match(
        text.stdout,
        /ID\s+NAME\s+TEAM\s+USER\s+SCOPE\s+ROLE\s+OPERATOR\s+PREFIX\s+CREATED_AT\s+EXPIRES_AT\s+LAST_USED_AT/,
      );
      const row = text.stdout.split('\n').find((l) => l.startsWith(scoped.json.id)) ?? '';
      t.match(row, /\sci\s+ops\s+ed@example\.com\s+full\s+viewer\s+no\s+dmn_/);
      t.match(
        row,
        new RegExp(`${scoped.json.expires_at.replace(/\./g, '\\.')}\\s+\\d{4}-\\d\\d-\\d\\dT`),
        'expiry, then last use',
      );
      t.match(text.stdout, /\s-\s+no\s+dmn_\S+\s+\S+\s+2099-01-31T00:00:00\.000Z\s+-\s+-/, 'no own role, never used');
    },
  );
