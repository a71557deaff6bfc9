// `dommon audit list|export` through the built CLI: on a local data directory (the token and user
// commands and the resource commands are recorded as the local command line's), and with --remote
// against a running app (the token's entries, an editor's token refused).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp, tempDir } from '../support/app.js';
import { cli, cliIn, ensureBuilt } from '../support/cli.js';

t.setTimeout(180_000);
t.before(ensureBuilt);

t.test('local: token, users and resource commands are recorded; list, filters, paging, export', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);
  const tok = await run('--json', 'token', 'create', '--team', 'ops', '--name', 'deploy');
  t.equal(tok.code, 0, tok.stderr);
  t.equal((await run('--team', 'ops', 'users', 'add', 'bob@example.com')).code, 0);
  t.equal((await run('--team', 'ops', 'users', 'set-role', 'bob@example.com', 'editor')).code, 0);
  const d = await run('domains', 'add', 'example.com', '--json');
  t.equal(d.code, 0, d.stderr);
  t.equal((await run('domains', 'update', (d.json as { id: string }).id, '--notes', 'main site')).code, 0);

  const list = await run('audit', 'list', '--json');
  t.equal(list.code, 0, list.stderr);
  const entries = (list.json as { data: any[] }).data;
  t.same(
    entries.map((e) => `${e.action} ${e.object.kind} ${e.object.name}`),
    [
      'update domain example.com',
      'create domain example.com',
      'update user bob@example.com',
      'create user bob@example.com',
      'create token deploy',
    ],
    'newest first, one entry per change',
  );
  t.ok(entries.every((e) => e.via.kind === 'cli-local'));
  // The token and user commands: the operator at the shell (the OS account), no person of the team.
  const account = os.userInfo().username;
  t.same(entries.at(-1).actor, { user_id: null, email: null });
  t.equal(entries.at(-1).via.name, account);
  t.notMatch(JSON.stringify(entries), (tok.json as { token: string }).token, 'the token itself is never recorded');
  t.match(entries[2], { before: { role: 'owner' }, after: { role: 'editor' } });
  // The resource commands: the local user the in-process API acts as.
  t.match(entries[0], { before: { notes: null }, after: { notes: 'main site' }, actor: { email: 'admin@localhost' } });

  const text = await run('audit', 'list', '--kind', 'domain', '--limit', '1');
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^AT\s+ACTOR\s+VIA\s+ACTION\s+KIND\s+OBJECT/);
  t.match(text.stdout, /update\s+domain\s+example\.com/);
  const cursor = /--cursor (\S+)/.exec(text.stdout)?.[1];
  t.ok(cursor, 'the next page is offered');
  const next = await run('audit', 'list', '--kind', 'domain', '--cursor', cursor!, '--json');
  t.same(
    (next.json as { data: any[] }).data.map((e) => e.action),
    ['create'],
  );

  const file = path.join(dir, 'audit.jsonl');
  const exp = await run('audit', 'export', '-o', file);
  t.equal(exp.code, 0, exp.stderr);
  t.match(exp.stderr, /5 entries written/);
  const lines = fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    lines.map((e) => e.id),
    entries.map((e) => e.id),
  );
  const out = await run('audit', 'export', '--action', 'create');
  t.equal(out.code, 0, out.stderr);
  t.equal(out.stdout.trimEnd().split('\n').length, 3, 'JSON lines on standard output, filtered');
  t.equal((await run('audit', 'list', '--since', 'soon')).code, 2, 'a bad filter is a usage error (400)');
});

t.test('--remote: the token is the door; an editor is refused', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('remote', 'ann@example.com');
  const remote = (tk: string, ...args: string[]) => cli(['--remote', s.url, '--token', tk, ...args]);
  t.equal((await remote(token, 'portfolios', 'add', 'clients')).code, 0);
  const list = await remote(token, 'audit', 'list', '--json');
  t.equal(list.code, 0, list.stderr);
  t.match((list.json as { data: any[] }).data, [
    {
      action: 'create',
      object: { kind: 'portfolio', name: 'clients' },
      actor: { email: 'ann@example.com' },
      via: { kind: 'token' },
    },
  ]);
  const exp = await remote(token, 'audit', 'export');
  t.equal(exp.code, 0, exp.stderr);
  t.equal(JSON.parse(exp.stdout).object.name, 'clients');
  const editor = (await s.app.services.access.createToken({ team: 'remote', role: 'editor' })).token;
  const refused = await remote(editor, 'audit', 'list');
  t.equal(refused.code, 1);
  t.match(refused.stderr, /owner/);
});
