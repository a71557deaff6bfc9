// `dommon liveness add|update` with the request and condition options, on a local data directory.
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { cliIn, ensureBuilt } from '../support/cli.js';

t.setTimeout(120_000);
t.before(ensureBuilt);

t.test('request, conditions and credentials from the command line', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);
  t.equal((await run('token', 'create', '--team', 'ops')).code, 0);
  t.equal((await run('domains', 'add', 'example.com')).code, 0);
  const ep = await run('endpoints', 'add', '--domain', 'example.com', '--name', 'api', '--type', 'https', '--json');
  t.equal(ep.code, 0, ep.stderr);

  const add = await run(
    'liveness',
    'add',
    '--endpoint',
    ep.json.id,
    '--method',
    'POST',
    '--headers',
    '{"Content-Type":"application/json"}',
    '--body',
    '{"q":1}',
    '--follow-redirects',
    'true',
    '--conditions',
    '["[STATUS] == 200", "[BODY].status == UP"]',
    '--auth',
    '{"type":"basic","username":"ops","password":"hunter2-long"}',
    '--json',
  );
  t.equal(add.code, 0, add.stderr);
  t.match(add.json, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"q":1}',
    follow_redirects: true,
    conditions: ['[STATUS] == 200', '[BODY].status == UP'],
    auth: { type: 'basic', username: 'ops', password: '********' },
  });
  t.notMatch(add.stdout, /hunter2/, 'the secret is not printed');

  const bad = await run('liveness', 'update', add.json.id, '--conditions', '["[BODY].status==UP"]');
  t.not(bad.code, 0);
  t.match(bad.stderr, /conditions\[0\]: operator "==" needs a space on each side .* at position 13/);

  const cleared = await run('liveness', 'update', add.json.id, '--auth', 'null', '--conditions', '[]', '--json');
  t.equal(cleared.code, 0, cleared.stderr);
  t.match(cleared.json, { auth: null, conditions: [] });
  const wrongMethod = await run('liveness', 'update', add.json.id, '--method', 'TRACE');
  t.not(wrongMethod.code, 0);
  t.match(wrongMethod.stderr, /TRACE/);
});
