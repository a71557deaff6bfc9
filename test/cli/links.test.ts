// The command line's one-time links (docs/accounts.md#one-time-links): `serve` prints a set-up link
// on the line after `listening on` while no account exists (and none once one does); `users add`
// prints a sign-in link on DOMMON_PUBLIC_URL / --public-url (else the listen address) besides its
// contract line, and `--json` adds it as fields. Each link works against the daemon.
import { spawn } from 'node:child_process';
import t from 'tap';
import { BIN, cleanEnv, cli, ensureBuilt, nodeCommand } from '../support/cli.js';
import { request, tempDir } from '../support/app.js';

t.setTimeout(240_000);

const PASSWORD = 'correct horse battery';

/** `dommon --data-dir DIR serve --port 0`: its stdout lines until the stderr hint that follows them. */
async function serveLines(dataDir: string) {
  await ensureBuilt();
  const child = spawn(...nodeCommand([BIN, '--data-dir', dataDir, 'serve', '--port', '0']), {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out} ${err}`)), 60_000);
    child.stderr.on('data', (d) => {
      err += d;
      // The hint for people goes to stderr after every stdout line of the start.
      if (err.includes('web dashboard:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`exited: ${out} ${err}`)));
  });
  const lines = out.trimEnd().split('\n');
  const url = /listening on (http:\/\/\S+)/.exec(lines[0]!)![1]!;
  return {
    lines,
    url,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

t.test('serve prints a set-up link while no account exists', async (t) => {
  const dir = tempDir();
  const first = await serveLines(dir);
  t.teardown(() => first.stop());
  t.equal(first.lines.length, 2, first.lines.join('\n'));
  t.match(first.lines[0], /^dommon .+: listening on http:\/\/127\.0\.0\.1:\d+$/, 'the contract line stays as it was');
  const m = /^set-up link \(one use, until \S+Z\): (http:\/\/\S+)\/#\/link\/([A-Za-z0-9_-]{43})$/.exec(first.lines[1]!);
  t.ok(m, first.lines[1]);
  t.equal(m![1], first.url, 'on the listen address without DOMMON_PUBLIC_URL');
  const used = await request(first.url, 'POST', '/ui/link/use', {
    body: { token: m![2], email: 'root@example.com', team: 'ops', password: PASSWORD },
    unchecked: true,
  });
  t.equal(used.status, 201);
  t.match(used.body, { team: 'ops', user: 'root@example.com', role: 'owner' });
  t.equal(await first.stop(), 0);

  const second = await serveLines(dir);
  t.teardown(() => second.stop());
  t.equal(second.lines.length, 1, 'an account exists: no set-up link');
  t.equal(await second.stop(), 0);
});

t.test('users add prints a sign-in link that signs the member in', async (t) => {
  const dir = tempDir();
  const env = { DOMMON_PUBLIC_URL: 'https://dommon.example.com/watch/' };
  // The team's owner first (a new team's first member is its owner, whatever --role says).
  t.equal((await cli(['--data-dir', dir, '--team', 'ops', 'users', 'add', 'root@example.com'], { env })).code, 0);
  const text = await cli(['--data-dir', dir, '--team', 'ops', 'users', 'add', 'Bob@Example.com', '--role', 'editor'], {
    env,
  });
  t.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  t.match(lines[0], /^added bob@example\.com \([0-9a-f-]{36}\) as editor$/, 'the contract line, as before');
  t.equal(text.stderr, '', 'an existing team: the role asked, nothing to say');
  const m =
    /^sign-in link \(one use, until \S+Z\): https:\/\/dommon\.example\.com\/watch\/#\/link\/([A-Za-z0-9_-]{43})$/.exec(
      lines[1]!,
    );
  t.ok(m, `on DOMMON_PUBLIC_URL: ${lines[1]}`);
  const json = await cli(
    [
      '--data-dir',
      dir,
      '--json',
      '--team',
      'ops',
      'users',
      'add',
      'carol@example.com',
      '--public-url',
      'http://10.0.0.5:8080',
    ],
    { env },
  );
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { email: 'carol@example.com', role: 'owner', team_id: String });
  t.match(json.json.sign_in_url, /^http:\/\/10\.0\.0\.5:8080\/#\/link\/[A-Za-z0-9_-]{43}$/, '--public-url wins');
  t.ok(Date.parse(json.json.sign_in_expires_at) > Date.now() + 23 * 3_600_000, 'for 24 hours');
  const bad = await cli([
    '--data-dir',
    dir,
    '--team',
    'ops',
    'users',
    'add',
    'd@example.com',
    '--public-url',
    'ftp://x',
  ]);
  t.equal(bad.code, 2, 'a bad --public-url is a usage error');
  t.equal(
    (await cli(['--data-dir', dir, '--json', '--team', 'ops', 'users', 'list'])).json.length,
    3,
    'and adds nobody',
  );

  const d = await serveLines(dir);
  t.teardown(() => d.stop());
  t.equal(d.lines.length, 1, 'accounts exist (made by users add): no set-up link');
  const used = await request(d.url, 'POST', '/ui/link/use', {
    body: { token: m![1], password: PASSWORD },
    unchecked: true,
  });
  t.equal(used.status, 201);
  t.match(used.body, { team: 'ops', user: 'bob@example.com', role: 'editor', account: true });
  t.equal(await d.stop(), 0);
});

t.test(
  'users add on a team that does not exist yet: its first member is its owner, whatever --role says',
  async (t) => {
    const dir = tempDir();
    const run = (...args: string[]) => cli(['--data-dir', dir, ...args]);
    const first = await run('--team', 'new-team', 'users', 'add', 'ed@example.com', '--role', 'editor');
    t.equal(first.code, 0, first.stderr);
    t.match(
      first.stdout,
      /^added ed@example\.com \([0-9a-f-]{36}\) as owner\n/,
      'the contract line says what was made',
    );
    t.equal(
      first.stderr,
      'dommon: team "new-team" is new, so its first member is its owner (not editor): add another owner, then users set-role ed@example.com editor\n',
    );
    const second = await run('--json', '--team', 'new-team', 'users', 'add', 'vi@example.com', '--role', 'viewer');
    t.equal(second.code, 0, second.stderr);
    t.match(second.json, { email: 'vi@example.com', role: 'viewer', team_created: false });
    t.equal(second.stderr, '', 'the team exists now: the role asked');
    // The owner it made is kept as the last owner until there is another.
    const demote = await run('--team', 'new-team', 'users', 'set-role', 'ed@example.com', 'editor');
    t.equal(demote.code, 4, 'the last owner cannot be demoted');
    t.equal((await run('--team', 'new-team', 'users', 'add', 'boss@example.com')).code, 0);
    t.equal((await run('--team', 'new-team', 'users', 'set-role', 'ed@example.com', 'editor')).code, 0);
    const users = (await run('--json', '--team', 'new-team', 'users', 'list')).json as {
      email: string;
      role: string;
    }[];
    t.same(users.map((u) => [u.email, u.role]).sort(), [
      ['boss@example.com', 'owner'],
      ['ed@example.com', 'editor'],
      ['vi@example.com', 'viewer'],
    ]);
    // --json says so too; --role owner on a new team is nothing to remark on.
    const json = await run('--json', '--team', 'other', 'users', 'add', 'x@example.com', '--role', 'viewer');
    t.match(json.json, { email: 'x@example.com', role: 'owner', team_created: true });
    const owner = await run('--team', 'third', 'users', 'add', 'y@example.com', '--role', 'owner');
    t.equal(owner.code, 0);
    t.equal(owner.stderr, '');
  },
);
