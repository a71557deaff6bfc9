// The built CLI on a temp data dir without any daemon, and a spawned `dommon serve` driven with --remote.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { BIN, cleanEnv, cli, cliIn, ensureBuilt, nodeCommand } from '../support/cli.js';

t.setTimeout(240_000);
t.before(ensureBuilt);

t.test('local database: token, resources, import, status --once (text and --json)', { timeout: 180_000 }, async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);

  const noTeam = await run('domains', 'list');
  t.equal(noTeam.code, 3, 'no team yet is a not-found');
  t.match(noTeam.stderr, /^dommon: .*token create --team.*\n$/);

  const tok = await run('token', 'create', '--team', 'ops', '--json');
  t.equal(tok.code, 0, tok.stderr);
  t.match(tok.json, { team: 'ops', token: /^dmn_/, user: 'admin@localhost' });
  t.ok(fs.existsSync(path.join(dir, 'dommon.db')), 'database created in the data dir');

  fs.writeFileSync(path.join(dir, 'list.txt'), 'alpha.com\nbad_domain!\nbeta.org\n');
  // Writers from several processes at once are not tested here (see the report on deferred
  // transactions); reads run in parallel with at most one writer.
  const add = await run('domains', 'add', 'example.com', '--json');
  const imp = await run('domains', 'import', path.join(dir, 'list.txt'));
  const tokText = await run('token', 'create', '--team', 'ops', '--name', 'ci');
  t.equal(add.code, 0, add.stderr);
  t.equal(imp.code, 1, 'a failed line makes the exit code 1');
  t.match(imp.stdout, /^2 created, 0 skipped, 1 failed\n {2}line 2: bad_domain!: /);
  t.match(tokText.stdout, /^dmn_\S+\n$/, 'text output is the token alone');

  const ep = await run('endpoints', 'add', '--domain', 'example.com', '--name', 'web', '--type', 'https', '--json');
  t.equal(ep.code, 0, ep.stderr);
  const dup = await run('portfolios', 'add', 'p1');
  const [lv, list, tokens, statusJson] = await Promise.all([
    run('liveness', 'add', '--endpoint', ep.json.id, '--json'),
    run('domains', 'list'),
    run('token', 'list', '--json'),
    run('status', '--json'),
  ]);
  t.equal(lv.code, 0, lv.stderr);
  for (const d of ['alpha.com', 'beta.org', 'example.com'])
    t.match(list.stdout, new RegExp(`^[0-9a-f-]{36}  ${d.replace('.', '\\.')}\\s+false`, 'm'));
  t.match(list.stdout, /\n3 total\n$/);
  t.equal(tokens.json.length, 2);
  t.notOk(JSON.stringify(tokens.json).includes(tok.json.token), 'token list never shows a secret');
  t.equal(dup.code, 0);
  t.equal(statusJson.code, 0, statusJson.stderr);
  t.same(statusJson.json.domains.map((d: any) => d.name).sort(), ['alpha.com', 'beta.org', 'example.com']);
  const exampleRow = statusJson.json.domains.find((d: any) => d.name === 'example.com');
  t.same(
    exampleRow.endpoints.map((e: any) => e.name),
    ['web'],
  );

  const [once, dupDomain] = await Promise.all([
    run('status', '--once', '--width', '140'),
    run('domains', 'add', 'alpha.com'),
  ]);
  const revoke = await run('token', 'revoke', tokens.json[1].id);
  t.equal(once.code, 0, once.stderr);
  t.match(once.stdout, /^dommon status {2}3 domain\(s\), 1 endpoint\(s\)/);
  t.match(once.stdout, /NAME\s+HEALTH\s+GRADE\s+EXPIRES\s+SSL\s+LIVE\s+RESPONSE\s+CHECKED/);
  t.match(once.stdout, /^ {2}example\.com\s+unknown\s+-\s+-\s+-/m, 'fields nobody filled yet show -');
  t.match(once.stdout, /^ {4}web https:\/\/example\.com\/\s+unknown/m, 'endpoint under its domain');
  t.notMatch(once.stdout, /\u001b\[/, 'no ANSI codes in a pipe');
  t.notMatch(once.stdout, /q quit/, 'no key help in a one-shot frame');
  t.equal(dupDomain.code, 4);
  t.match(revoke.stdout, /^revoked token /);
});

t.test('serve + --remote: the same commands against a running daemon', { timeout: 120_000 }, async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tok = await cli(['--data-dir', dir, 'token', 'create', '--team', 'ops']);
  const token = tok.stdout.trim();
  const child = spawn(...nodeCommand([BIN, 'serve', '--data-dir', dir, '--port', '0']), {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  t.teardown(() => child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', () => reject(new Error(`serve exited: ${out}`)));
  });
  const remote = (...args: string[]) => cli(['--remote', url, '--token', token, ...args]);
  const add = await remote('domains', 'add', 'remote.example', '--json');
  t.equal(add.code, 0, add.stderr);
  const [list, viaEnv, badToken, noToken, local, once] = await Promise.all([
    remote('domains', 'list', '--json'),
    cli(['domains', 'show', 'remote.example', '--json'], { env: { DOMMON_URL: url, DOMMON_TOKEN: token } }),
    cli(['--remote', url, '--token', 'dmn_wrong', 'domains', 'list']),
    cli(['--remote', url, 'domains', 'list']),
    cli(['--data-dir', dir, 'domains', 'list', '--json']),
    remote('status', '--once', '--width', '120'),
  ]);
  t.same(
    list.json.data.map((d: any) => d.domain),
    ['remote.example'],
  );
  t.equal(viaEnv.json.id, add.json.id, 'DOMMON_URL and DOMMON_TOKEN work like the flags');
  t.equal(badToken.code, 1, 'a 401 is exit 1');
  t.match(badToken.stderr, /^dommon: .*\n$/);
  t.equal(noToken.code, 2, '--remote without a token is a usage error');
  t.equal(local.json.data[0].domain, 'remote.example', 'the local CLI sees the same database while the daemon runs');
  t.match(once.stdout, /remote\.example/);
  const down = await cli(['--remote', 'http://127.0.0.1:1', '--token', token, 'domains', 'list']);
  t.equal(down.code, 1);
  t.match(down.stderr, /^dommon: cannot reach http:\/\/127\.0\.0\.1:1/);
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM stops the daemon with exit 0');
});
