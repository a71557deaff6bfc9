// `dommon maintenance ...` on a local data directory and with --remote against a running app.
import fs from 'node:fs';
import t from 'tap';
import { startApp, tempDir } from '../support/app.js';
import { cli, cliIn, ensureBuilt } from '../support/cli.js';

t.setTimeout(180_000);
t.before(ensureBuilt);

t.test('local: add (one-off and recurring), list, show, update, remove; refusals', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);
  t.equal((await run('token', 'create', '--team', 'ops')).code, 0);
  const d = await run('domains', 'add', 'example.com', '--json');
  t.equal(d.code, 0, d.stderr);
  const domainId = (d.json as { id: string }).id;

  const once = await run(
    'maintenance',
    'add',
    'db upgrade',
    '--starts-at',
    '2030-01-01T22:00:00Z',
    '--ends-at',
    '2030-01-01T23:00:00Z',
    '--domains',
    domainId,
    '--json',
  );
  t.equal(once.code, 0, once.stderr);
  t.match(once.json, {
    name: 'db upgrade',
    domain_ids: [domainId],
    active: false,
    starts_at: '2030-01-01T22:00:00.000Z',
  });
  const rec = await run(
    'maintenance',
    'add',
    'nightly',
    '--cron',
    '0 3 * * *',
    '--duration',
    '30',
    '--timezone',
    'Europe/Berlin',
    '--domains',
    domainId,
    '--json',
  );
  t.equal(rec.code, 0, rec.stderr);
  const id = (rec.json as { id: string }).id;
  const list = await run('maintenance', 'list', '--json');
  t.equal((list.json as { total: number }).total, 2);
  const text = await run('maintenance', 'list');
  t.match(text.stdout, /nightly/);
  t.match(text.stdout, /Europe\/Berlin/);
  const upd = await run('maintenance', 'update', id, '--enabled', 'false', '--json');
  t.equal(upd.code, 0, upd.stderr);
  t.match(upd.json, { is_enabled: false, current_or_next: null });
  const bad = await run('maintenance', 'add', 'x', '--cron', 'every day', '--duration', '5', '--domains', domainId);
  t.not(bad.code, 0);
  t.match(bad.stderr, /cron/);
  const rm = await run('maintenance', 'remove', id);
  t.equal(rm.code, 0, rm.stderr);
  t.equal((await run('maintenance', 'show', id)).code, 3, 'gone: not found');
});

t.test('--remote: the same commands against a running daemon', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const token = await s.token('remote');
  const remote = (...args: string[]) => cli(['--remote', s.url, '--token', token, ...args]);
  const d = await remote('domains', 'add', 'remote.example', '--json');
  t.equal(d.code, 0, d.stderr);
  const add = await remote(
    'maintenance',
    'add',
    'now',
    '--starts-at',
    new Date(Date.now() - 60_000).toISOString(),
    '--ends-at',
    new Date(Date.now() + 3_600_000).toISOString(),
    '--domains',
    (d.json as { id: string }).id,
    '--json',
  );
  t.equal(add.code, 0, add.stderr);
  t.equal((add.json as { active: boolean }).active, true);
  const show = await remote('maintenance', 'show', (add.json as { id: string }).id, '--json');
  t.equal((show.json as { name: string }).name, 'now');
});
