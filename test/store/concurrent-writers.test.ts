// Several processes writing to one data directory at once (cron jobs, the CLI beside the daemon):
// every write succeeds; none answers "internal server error" (a deferred BEGIN would get SQLITE_BUSY).
import t from 'tap';
import fs from 'node:fs';
import { tempDir } from '../support/app.js';
import { cliIn, ensureBuilt } from '../support/cli.js';

t.setTimeout(180_000); // several CLI processes at once on a loaded machine
t.test('six CLI processes adding domains at once all succeed', async (t) => {
  await ensureBuilt();
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = cliIn(dir);
  t.equal((await run('token', 'create', '--team', 'ops')).code, 0);
  const names = Array.from({ length: 6 }, (_, i) => `parallel-${i}.example.com`);
  const results = await Promise.all(names.map((n) => run('domains', 'add', n, '--json')));
  t.same(
    results.map((r) => [r.code, r.stderr.trim()]),
    names.map(() => [0, '']),
    'every process exits 0 with nothing on stderr',
  );
  const list = await run('domains', 'list', '--json', '--limit', '100');
  t.same(list.json.data.map((d: { domain: string }) => d.domain).sort(), names.sort());
});
