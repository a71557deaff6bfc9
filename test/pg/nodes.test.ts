// Several nodes on one PostgreSQL database (issue #22 item 5): each writes its row in the node list,
// every node's API lists them all, a name a live node uses is refused, a clean stop leaves the list.
import t from 'tap';
import { client, startApp, tempDir } from '../support/app.js';
import fs from 'node:fs';
import { cli, serveDaemon } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

t.setTimeout(120_000);

t.test(
  'two nodes on one database: both listed, names unique, a clean stop leaves',
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'nodes'))!;
    const worker = await startApp({ DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'worker', DOMMON_NODE_NAME: 'w1' });
    let workerOpen = true;
    t.teardown(() => (workerOpen ? worker.close() : undefined));
    const front = await startApp({
      DOMMON_DATABASE_URL: url,
      DOMMON_ROLE: 'api',
      DOMMON_NODE_NAME: 'a1',
      DOMMON_NODE_REGION: 'us-east',
    });
    t.teardown(() => front.close());
    const api = client(front.url, await front.token('ops', undefined, { operator: true }));

    const list = (await api.get('/api/v1/nodes')).body;
    t.equal(list.live, 2);
    t.match(list.data, [
      { name: 'a1', role: 'api', region: 'us-east', status: 'live' },
      { name: 'w1', role: 'worker', region: 'default', status: 'live' },
    ]);

    // A third process under a live node's name is refused before it serves anything.
    const { loadConfig } = await import('../../src/config/index.js');
    const { createApp } = await import('../../src/app.js');
    const { pino } = await import('pino');
    const clash = await createApp(
      loadConfig(
        { dataDir: worker.dataDir + '-clash', port: 0, host: '127.0.0.1' },
        { DOMMON_DATABASE_URL: url, DOMMON_NODE_NAME: 'w1', DOMMON_LOG_LEVEL: 'error' },
      ),
      { log: pino({ level: 'silent' }) },
    );
    await t.rejects(clash.start(), { code: 'NODE_NAME_IN_USE', message: /node name "w1" is in use by a live node/ });
    await clash.stop();
    t.equal((await api.get('/api/v1/nodes')).body.total, 2, 'the refused node left no row and removed none');

    // `dommon nodes` on the same database, without a team.
    const r = await cli(['--database-url', url, 'nodes', '--json']);
    t.equal(r.code, 0, r.stderr);
    t.same(
      r.json.data.map((n: { name: string }) => n.name),
      ['a1', 'w1'],
    );

    await worker.close();
    workerOpen = false;
    t.match((await api.get('/api/v1/nodes')).body, { live: 1, total: 1, data: [{ name: 'a1' }] }, 'w1 left the list');
  },
);

t.test(
  'dommon --database-url URL serve: the global flag reaches serve',
  { skip: pgServerUrl() ? false : PG_SKIP },
  async (t) => {
    const url = (await freshPgDatabase(t, 'nodesflag'))!;
    const dir = tempDir();
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const d = await serveDaemon(['--database-url', url, '--data-dir', dir], { DOMMON_NODE_NAME: 'viaflag' });
    t.teardown(() => d.stop());
    const r = await cli(['--database-url', url, 'nodes', '--json']);
    t.equal(r.code, 0, r.stderr);
    t.match(r.json, { live: 1, data: [{ name: 'viaflag', role: 'all', pid: d.child.pid }] });
    t.equal(fs.existsSync(`${dir}/dommon.db`), false, 'no SQLite file was made');
  },
);
