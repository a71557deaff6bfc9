// `dommon token create|list|revoke` and `dommon users list|add|remove|set-role|set-password` through the built CLI, in text
// and --json, with the contract's exit codes; a CLI revoke is seen by a running daemon at once.
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { dommon, ensureBuilt, serve } from '../support/cli.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The file spawns Node processes: allow more than tap's 30 s per file on a loaded machine. This limit and
// the tests' count from the latest CLI process started or ended (test/support/cli.ts, progressed()).
t.setTimeout(240_000);

t.test('token and users commands', async (t) => {
  t.setTimeout(150_000); // from the latest CLI process (each a fresh Node process, 0.5-15 s)
  await ensureBuilt();
  const dir = tempDir('dommon-cli-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = async (...args: string[]) => {
    const t0 = Date.now();
    const r = await dommon(['--data-dir', dir, ...args]);
    t.comment(`${Date.now() - t0} ms: dommon ${args.join(' ')}`);
    return r;
  };

  // token create: the token alone on stdout; the team and the default user are created
  const plain = await run('token', 'create', '--team', 'ops');
  t.equal(plain.code, 0, plain.stderr);
  t.match(plain.stdout, /^dmn_[A-Za-z0-9_-]{43,}\n$/, 'only the token');
  const json = await run('--json', 'token', 'create', '--team', 'ops', '--user', 'Alice@Example.com', '--name', 'ci');
  t.equal(json.code, 0, json.stderr);
  const tok = JSON.parse(json.stdout);
  t.same(
    Object.keys(tok).sort(),
    [
      'id',
      'team',
      'team_id',
      'token',
      'token_name',
      'user',
      'user_id',
      'read_only',
      'operator',
      'role',
      'expires_at',
    ].sort(),
  );
  t.match(tok, {
    team: 'ops',
    user: 'alice@example.com',
    token_name: 'ci',
    read_only: false,
    role: null,
    expires_at: null,
  });
  // --read-only: a token that may only read (docs/security.md)
  const roRun = await run('--json', 'token', 'create', '--team', 'ops', '--name', 'viewer', '--read-only');
  t.equal(roRun.code, 0, roRun.stderr);
  const ro = JSON.parse(roRun.stdout);
  t.match(ro, { token_name: 'viewer', read_only: true, team: 'ops' });
  t.match(tok.id, UUID);
  t.match(tok.team_id, UUID);
  t.match(tok.user_id, UUID);

  // independent runs go in parallel (each is a fresh Node process)
  const [usage, badUser, list, listText, unknownTeam] = await Promise.all([
    run('token', 'create'),
    run('token', 'create', '--team', 'ops', '--user', 'not-an-email'),
    run('--json', 'token', 'list'),
    run('token', 'list'),
    run('--team', 'nope', 'token', 'list'),
  ]);
  t.equal(usage.code, 2, 'create without --team is a usage error');
  t.equal(usage.stderr.trim().split('\n').length, 1);
  t.equal(usage.stdout, '');
  t.equal(badUser.code, 2);

  // token list: never the secret
  t.equal(list.code, 0);
  const rows = JSON.parse(list.stdout);
  t.equal(rows.length, 3);
  t.ok(rows.every((r: any) => r.team === 'ops' && 'prefix' in r && 'last_used_at' in r && 'revoked_at' in r));
  t.same(
    rows.map((r: any) => [r.name, r.read_only]).filter((r: [string, boolean]) => r[0] !== rows[0].name),
    [
      ['ci', false],
      ['viewer', true],
    ],
  );
  t.notOk(list.stdout.includes(ro.token), 'no secret of the read-only token');
  t.notOk(list.stdout.includes(tok.token), 'no secret in --json');
  t.notOk(list.stdout.includes(plain.stdout.trim()), 'no secret of the other token either');
  t.notOk(list.stdout.includes('token_hash'));
  t.match(listText.stdout, /ID\s+NAME\s+TEAM\s+USER\s+SCOPE/);
  t.match(listText.stdout, /ci\s+ops\s+alice@example\.com\s+full/);
  t.match(listText.stdout, /viewer\s+ops\s+admin@localhost\s+read-only/);
  t.notOk(listText.stdout.includes(tok.token));
  t.equal(unknownTeam.code, 3, 'unknown team: not found');

  // users
  const [usersRun, add, addJsonRun, notEmail] = await Promise.all([
    run('--json', '--team', 'ops', 'users', 'list'),
    run('--team', 'ops', 'users', 'add', 'Bob@Example.com'),
    run('--json', '--team', 'ops', 'users', 'add', 'carol@example.com'),
    run('--team', 'ops', 'users', 'add', 'nope'),
  ]);
  const users = JSON.parse(usersRun.stdout);
  t.ok(
    users.some((u: any) => u.email === 'admin@localhost') && users.some((u: any) => u.email === 'alice@example.com'),
  );
  t.equal(add.code, 0, add.stderr);
  t.match(add.stdout, /added bob@example\.com/);
  t.equal(notEmail.code, 2, 'not an e-mail address');
  const addJson = JSON.parse(addJsonRun.stdout);
  t.match(addJson, { email: 'carol@example.com', team_id: tok.team_id });
  t.match(addJson.id, UUID);
  const dupe = await run('--team', 'ops', 'users', 'add', 'bob@example.com');
  t.equal(dupe.code, 4, 'existing user: conflict');
  t.equal(dupe.stderr.trim().split('\n').length, 1);
  t.equal(addJson.role, 'owner', 'a member added without --role is an owner (as every member was before roles)');
  const [editorRun, badRole] = await Promise.all([
    run('--json', '--team', 'ops', 'users', 'add', 'dave@example.com', '--role', 'Editor'),
    run('--team', 'ops', 'users', 'add', 'erin@example.com', '--role', 'admin'),
  ]);
  t.match(JSON.parse(editorRun.stdout), { email: 'dave@example.com', role: 'editor' });
  t.equal(badRole.code, 2, 'an unknown role: usage');
  t.match(badRole.stderr, /"admin" is not a role: one of owner, editor, viewer/);
  const setRole = await run('--team', 'ops', 'users', 'set-role', 'dave@example.com', 'viewer');
  t.equal(setRole.code, 0, setRole.stderr);
  t.match(setRole.stdout, /dave@example\.com is now viewer/);
  t.equal((await run('--team', 'ops', 'users', 'set-role', 'nobody@example.com', 'viewer')).code, 3, 'unknown user');
  const usersText = await run('--team', 'ops', 'users', 'list');
  t.match(usersText.stdout, /EMAIL\s+ROLE/);
  t.match(usersText.stdout, /bob@example\.com\s+owner/);
  t.match(usersText.stdout, /dave@example\.com\s+viewer/);

  // a second team makes --team required where it would be ambiguous
  t.equal((await run('token', 'create', '--team', 'dev')).code, 0);
  const ambiguous = await run('users', 'list');
  t.equal(ambiguous.code, 2, 'two teams: choose one');
  t.match(ambiguous.stderr, /--team/);

  // removing a user revokes the user's tokens
  const removed = await run('--json', '--team', 'ops', 'users', 'remove', 'alice@example.com');
  t.equal(removed.code, 0, removed.stderr);
  t.match(JSON.parse(removed.stdout), { user: { email: 'alice@example.com' }, revoked_tokens: 1 });
  const after = JSON.parse((await run('--json', 'token', 'list')).stdout);
  t.notOk(
    after.some((r: any) => r.id === tok.id && r.revoked_at === null),
    "alice's token is revoked or gone",
  );
  const target = after.find((r: any) => r.revoked_at === null && r.team === 'ops');
  t.equal((await run('--team', 'ops', 'users', 'remove', 'alice@example.com')).code, 3, 'already removed: not found');
  const removeText = await run('--team', 'ops', 'users', 'remove', 'carol@example.com');
  t.match(removeText.stdout, /removed carol@example\.com; revoked 0 token/);

  // revoke
  const rev = await run('token', 'revoke', target.id);
  t.equal(rev.code, 0, rev.stderr);
  t.match(rev.stdout, new RegExp(`revoked token ${target.id}`));
  const revAgain = await run('--json', 'token', 'revoke', target.id);
  t.equal(revAgain.code, 4, 'revoking twice: conflict');
  t.equal(revAgain.stdout, '');
  t.equal((await run('token', 'revoke', '00000000-0000-4000-8000-000000000000')).code, 3, 'unknown id: not found');
  const revoked = JSON.parse((await run('--json', 'token', 'list')).stdout).find((r: any) => r.id === target.id);
  t.type(revoked.revoked_at, 'string');
});

t.test('a token revoked with the CLI is refused by a running daemon on the next request', async (t) => {
  t.setTimeout(150_000); // from the latest CLI process (each a fresh Node process, 0.5-15 s)
  await ensureBuilt();
  const dir = tempDir('dommon-cli-revoke-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const created = JSON.parse((await dommon(['--data-dir', dir, '--json', 'token', 'create', '--team', 'ops'])).stdout);
  // users set-password: the member signs in to the dashboard with e-mail and password (piped in)
  const pw = await dommon(
    ['--data-dir', dir, '--json', 'users', 'set-password', 'Admin@Localhost'],
    {},
    'correct horse battery\nignored second line\n',
  );
  t.equal(pw.code, 0, pw.stderr);
  t.match(JSON.parse(pw.stdout), { email: 'admin@localhost', team: 'ops', user_id: created.user_id });
  const short = await dommon(['--data-dir', dir, 'users', 'set-password', 'admin@localhost'], {}, 'short\n');
  t.equal(short.code, 2, 'a password under 10 characters: invalid input');
  t.match(short.stderr, /10-1024 characters/);
  t.equal(
    (await dommon(['--data-dir', dir, 'users', 'set-password', 'nobody@example.com'], {}, 'long enough pw\n')).code,
    3,
    'not a member: not found',
  );
  const d = await serve(dir, { DOMMON_LOG_LEVEL: 'debug' });
  t.teardown(() => d.child.kill('SIGKILL'));
  const auth = { authorization: `Bearer ${created.token}` };
  t.equal((await fetch(`${d.url}/api/v1/validate`, { headers: auth })).status, 200);
  const signIn = (password: string) =>
    fetch(`${d.url}/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: d.url },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
  const ok = await signIn('correct horse battery');
  t.equal(ok.status, 201, 'the password set on the command line signs in');
  t.match(await ok.json(), { signed_in: true, team: 'ops', user: 'admin@localhost', role: 'owner' });
  t.equal((await signIn('ignored second line')).status, 401, 'only the first line is the password');
  t.equal((await fetch(`${d.url}/api/v1/domains?api_key=${created.token}`)).status, 200);
  t.equal(
    (
      await fetch(`${d.url}/api/v1/portfolios`, {
        method: 'POST',
        body: JSON.stringify({ api_key: created.token, name: 'p' }),
      })
    ).status,
    201,
  );
  // last_used_at is written when the daemon stops (and every 30 s)
  const rev = await dommon(['--data-dir', dir, 'token', 'revoke', created.id]);
  t.equal(rev.code, 0, rev.stderr);
  const r = await fetch(`${d.url}/api/v1/validate`, { headers: auth });
  t.equal(r.status, 401, 'refused at once, without waiting for a cache timer');
  const body = (await r.json()) as any;
  t.equal(body.path, '/api/v1/validate');
  d.child.kill('SIGTERM');
  t.equal(await new Promise((res) => d.child.once('exit', res)), 0);
  t.match(d.stderr(), /"path":"\/api\/v1\/domains"/, 'debug request logs are written');
  t.notOk(d.stderr().includes(created.token), 'the token never reaches the logs');
  t.notOk(d.stderr().includes(created.token.slice(4, 20)), 'not even a part of it');
  const list = JSON.parse((await dommon(['--data-dir', dir, '--json', 'token', 'list'])).stdout);
  t.type(list[0].last_used_at, 'string', 'last_used_at recorded');
});
