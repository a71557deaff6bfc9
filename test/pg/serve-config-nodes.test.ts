// Two `dommon serve --config FILE` nodes on one PostgreSQL database, started at once with the same file
// (docs/configuration-file.md#gitops-serve---config): real processes, as test/pg/cluster.test.ts starts
// them. The file is applied once (one node creates, the other finds no changes: the apply lock), no row
// is made twice, both nodes refuse to change what the file manages (409 MANAGED_BY_CONFIG), and a changed
// file with SIGHUP to one node is seen through both (one update in all, the rows still single).
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { cli, serveDaemon, type Daemon } from '../support/cli.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(240_000);
const skip = pgServerUrl() ? false : PG_SKIP;

const FILE = (notes: string) => `version: 1
portfolios:
  - name: Web
channels:
  - type: email
    recipients: [ops@example.com]
domains:
  - name: example.com
    portfolio: Web
    notes: ${notes}
    endpoints:
      - name: www
        type: https
        subdomain: www
        liveness: { interval_seconds: 3600 }
      - name: beat
        type: push
        grace_seconds: 3600
status_pages:
  - slug: nodes-public
    title: Public
    portfolio: Web
maintenance_windows:
  - name: Patching
    cron: "0 3 * * 0"
    duration_minutes: 60
    domains: [example.com]
`;

t.test(
  'two serve --config nodes on one database: one apply, no duplicates, 409 on both, SIGHUP seen by both',
  { skip },
  async (t) => {
    const url = (await freshPgDatabase(t, 'gitops_nodes'))!;
    const env = { DOMMON_DATABASE_URL: url };
    const dirs = [tempDir('dommon-gn1-'), tempDir('dommon-gn2-')];
    const conf = tempDir('dommon-gn-conf-');
    t.teardown(() => [...dirs, conf].forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    const made = await cli(['--data-dir', dirs[0]!, 'token', 'create', '--team', 'ops'], { env });
    t.equal(made.code, 0, made.stderr);
    const token = made.stdout.trim();
    const file = path.join(conf, 'dommon.yaml');
    fs.writeFileSync(file, FILE('main site'));

    const nodes: Daemon[] = await Promise.all(
      dirs.map((dir, k) =>
        serveDaemon(['--data-dir', dir], {
          ...env,
          DOMMON_CONFIG: file,
          DOMMON_LOG_LEVEL: 'info',
          DOMMON_NODE_NAME: `g${k + 1}`,
        }),
      ),
    );
    t.teardown(() => Promise.all(nodes.filter((d) => d.child.exitCode === null).map((d) => d.stop())));
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    t.teardown(() => db.end());
    const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);
    const api = async (node: Daemon, method: string, p: string, body?: unknown) => {
      const r = await fetch(`${node.url}${p}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, body: (await r.json().catch(() => null)) as any };
    };
    const applied = (d: Daemon) => [...d.stderr().matchAll(/configuration file applied: ([^"]*)/g)].map((m) => m[1]!);

    // Applied once: one node created everything, the other found it made.
    const starts = nodes.map(applied);
    t.same(
      starts.map((a) => a.length),
      [1, 1],
      'each node applied the file once at start',
    );
    const created = starts.flat().filter((x) => x.startsWith('8 to create'));
    t.equal(created.length, 1, `one node created the setup: ${JSON.stringify(starts)}`);
    t.equal(starts.flat().filter((x) => x === 'no changes').length, 1, 'the other found no changes');
    // No duplicate rows.
    t.equal(await count("select count(*) as n from domains where domain = 'example.com'"), 1);
    t.equal(await count('select count(*) as n from endpoints'), 2);
    t.equal(await count('select count(*) as n from liveness_configs'), 2, "www's check and the push endpoint's");
    t.equal(await count('select count(*) as n from portfolios'), 1);
    t.equal(await count('select count(*) as n from status_pages'), 1);
    t.equal(await count('select count(*) as n from maintenance_windows'), 1);
    t.equal(await count("select count(*) as n from notification_settings where notification_type = 'email'"), 1);
    const marks = await count('select count(*) as n from config_managed');
    t.equal(
      marks,
      8,
      "a mark per object the file names: portfolio, channel, domain, 2 endpoints, www's check, page, window",
    );

    // Both nodes refuse to change what the file manages, and both say it is managed.
    const dom = (await api(nodes[0]!, 'GET', '/api/v1/domains')).body.data[0];
    for (const [k, node] of nodes.entries()) {
      const r = await api(node, 'PUT', `/api/v1/domains/${dom.id}`, { notes: 'by hand' });
      t.equal(r.status, 409, `node ${k + 1}: 409`);
      t.equal(r.body.code, 'MANAGED_BY_CONFIG');
      t.match((await api(node, 'GET', `/api/v1/domains/${dom.id}`)).body, { managed_by: 'config', editable: false });
      const pf = (await api(node, 'GET', '/api/v1/portfolios')).body.data[0];
      t.equal(
        (await api(node, 'DELETE', `/api/v1/portfolios/${pf.id}`)).status,
        409,
        `node ${k + 1}: portfolio delete`,
      );
    }

    // The file changed, SIGHUP to the first node: both answer the new value; one node wrote the update.
    fs.writeFileSync(file, FILE('edited'));
    nodes[0]!.child.kill('SIGHUP');
    for (const node of nodes)
      await waitFor(
        async () => (await api(node, 'GET', `/api/v1/domains/${dom.id}`)).body.notes === 'edited',
        30_000,
        150,
      );
    t.pass('both nodes answer the edited notes');
    await waitFor(async () => /SIGHUP received: applying the configuration file/.test(nodes[0]!.stderr()), 10_000, 100);
    // Let every apply the change started finish (the other node's watcher sees the file too).
    await waitFor(async () => nodes.every((d) => applied(d).length >= 2), 30_000, 150).catch(() => undefined);
    const after = nodes.flatMap((d) => applied(d).slice(1));
    t.equal(
      after.filter((x) => x.startsWith('0 to create, 1 to update, 0 to delete')).length,
      1,
      `one update in all: ${JSON.stringify(after)}`,
    );
    t.notOk(
      after.some((x) => /to create|to delete/.test(x) && !x.startsWith('0 to create, 1 to update, 0 to delete')),
      'nothing else',
    );
    t.equal(await count("select count(*) as n from domains where domain = 'example.com'"), 1);
    t.equal(await count('select count(*) as n from endpoints'), 2);
    t.equal(await count('select count(*) as n from config_managed'), marks, 'the marks unchanged');
    for (const node of nodes) t.equal(await node.stop(), 0);
  },
);
