// POST /api/v1/config/apply (what `dommon apply` sends, locally and with --remote): the plan of a file
// against the team's stored setup, applied in one transaction through the services; a second apply of
// the same file changes nothing; a change is one update with its fields; without prune nothing is
// deleted, with it what the file leaves out is; an invalid file, or one the services refuse, applies
// nothing and lists every error at its line and column; an apply with nothing to change writes no table.
// test/pg/config-apply.test.ts runs it on PostgreSQL.
import fs from 'node:fs';
import t from 'tap';
import { request, startApp } from '../support/app.js';

/** The tables of the store (the committed schema snapshot the store tests keep). */
const SCHEMA = JSON.parse(fs.readFileSync(new URL('../store/schema.sqlite.json', import.meta.url), 'utf8')) as {
  tables: Record<string, unknown>;
};

const FILE = (interval: number, extra = '') => `# yaml-language-server: $schema=../schemas/config/dommon.schema.json
version: 1
portfolios:
  - name: Production
    description: customer-facing
channels:
  - type: webhook
    webhook_url: https://hooks.example.test/dommon
    secret_key: \${WEBHOOK_SECRET}
domains:
  - name: example.com
    portfolio: Production
    dkim_selectors: [s1]
    manual_expiry: 2027-01-01
    endpoints:
      - name: api
        type: https
        subdomain: api
        path: /health
        liveness:
          interval_seconds: ${interval}
          failure_threshold: 3
          conditions: ["[STATUS] == 200"]
      - name: backup
        type: push
        period_seconds: 3600
${extra}status_pages:
  - slug: example-public
    title: Example status
    portfolio: Production
    endpoints:
      - endpoint: example.com/api
        display_name: API
maintenance_windows:
  - name: Sunday patching
    cron: "0 3 * * 0"
    duration_minutes: 60
    timezone: Europe/Berlin
    endpoints: [example.com/api]
`;
const ENV = { WEBHOOK_SECRET: 'hook-secret' };

t.test('apply: plan, one transaction, idempotent, updates, prune, errors', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const apply = (file: string, q = '', env: Record<string, string> = ENV) =>
    request(s.url, 'POST', `/api/v1/config/apply${q}`, { token, body: { file, filename: 'dommon.yaml', env } });
  const names = (steps: { kind: string; action: string; name: string }[]) =>
    steps.map((x) => `${x.action} ${x.kind} ${x.name}`);

  const dry = await apply(FILE(60), '?dry_run=true');
  t.equal(dry.status, 200);
  t.same(names(dry.body.steps), [
    'create portfolio Production',
    'create channel webhook instant',
    'create domain example.com',
    'create endpoint example.com/api',
    'create liveness example.com/api',
    'create endpoint example.com/backup',
    'create status_page example-public',
    'create maintenance_window Sunday patching',
  ]);
  t.equal(dry.body.applied, false);
  t.equal(
    (await request(s.url, 'GET', '/api/v1/domains', { token })).body.domains.length,
    0,
    'a dry run writes nothing',
  );

  const first = await apply(FILE(60));
  t.equal(first.status, 200);
  t.equal(first.body.applied, true);
  t.same(first.body.summary.endpoint, { create: 2, update: 0, delete: 0 });
  const domains = (await request(s.url, 'GET', '/api/v1/domains', { token })).body.domains;
  t.equal(domains.length, 1);
  t.equal(domains[0].expiry_date, '2027-01-01');
  const eps = (await request(s.url, 'GET', '/api/v1/endpoints', { token })).body.endpoints;
  t.same(eps.map((e: { name: string }) => e.name).sort(), ['api', 'backup']);
  const live = (await request(s.url, 'GET', '/api/v1/liveness', { token })).body.configs;
  t.match(live, [{ interval_seconds: 60, failure_threshold: 3, conditions: ['[STATUS] == 200'] }]);
  const settings = (await request(s.url, 'GET', '/api/v1/notifications/settings', { token })).body;
  const hook = (settings.settings ?? settings).find(
    (r: { notification_type: string }) => r.notification_type === 'webhook',
  );
  t.match(hook.config.secret_key, /^\*{8}cret$/, 'the secret came from the variable');
  const pages = (await request(s.url, 'GET', '/api/v1/status-pages', { token })).body;
  t.equal(JSON.stringify(pages).includes('example-public'), true);

  const again = await apply(FILE(60));
  t.equal(again.status, 200);
  t.same(again.body.steps, [], 'the same file again: no changes');
  t.equal(again.body.applied, false);

  const changed = await apply(FILE(30));
  t.same(changed.body.steps, [
    {
      kind: 'liveness',
      action: 'update',
      name: 'example.com/api',
      changes: [{ field: 'interval_seconds', from: 60, to: 30 }],
    },
  ]);
  t.same((await apply(FILE(30))).body.steps, [], 'and then no changes');

  // Without prune nothing absent from the file is deleted; with it, it is.
  const less = FILE(30).replace('      - name: backup\n        type: push\n        period_seconds: 3600\n', '');
  t.same((await apply(less)).body.steps, []);
  const pruned = await apply(less, '?prune=true');
  t.same(names(pruned.body.steps), ['delete endpoint example.com/backup']);
  t.equal((await request(s.url, 'GET', '/api/v1/endpoints', { token })).body.endpoints.length, 1);

  // The services' own checks, every one, each at its object; nothing of the file applied.
  const bad = FILE(
    30,
    `  - name: second.example
    portfolio: Nowhere
    endpoints:
      - name: web
        type: https
        liveness: { conditions: ["[STATUS] === 200"] }
`,
  )
    .replace('Sunday patching', 'Other window')
    .replace('cron: "0 3 * * 0"', 'cron: "not a cron"');
  const refused = await apply(bad);
  t.equal(refused.status, 400);
  t.equal(refused.body.code, 'INVALID_CONFIG');
  t.equal(refused.body.errors.length, 3, refused.body.errors.join('\n'));
  t.match(refused.body.errors[0], /^dommon\.yaml:28:16: no portfolio named "Nowhere"$/);
  t.match(
    refused.body.errors[1],
    /^dommon\.yaml:30:9: endpoint second\.example\/web: conditions\[0\]: operator "==" needs/,
  );
  t.match(refused.body.errors[2], /^dommon\.yaml:41:5: maintenance window Other window: cron: /);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).body.domains.length, 1, 'nothing applied');

  const unset = await apply(FILE(30), '', {});
  t.equal(unset.status, 400);
  t.same(unset.body.errors, ['dommon.yaml:9:17: channels.0.secret_key: the variable WEBHOOK_SECRET is not set']);
});

t.test('a second apply of the same file writes no table; a change writes only its own', async (t) => {
  // An API node: no scheduler writes beside the applies (registration look-ups, results).
  const s = await startApp({ DOMMON_ROLE: 'api' });
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const apply = (file: string) =>
    request(s.url, 'POST', '/api/v1/config/apply', { token, body: { file, filename: 'dommon.yaml', env: ENV } });
  // Every table of the schema but those written beside any request: this node's heartbeat, the
  // token's last use, the sign-in throttle's pruning, and on PostgreSQL the shared rate limit.
  const bookkeeping = ['nodes', 'api_tokens', 'auth_failures', 'rate_limits'];
  const tables = Object.keys(SCHEMA.tables).filter((x) => !bookkeeping.includes(x));
  // The store's per-table write counters (store/change-tracker.ts): the stamp's last part.
  const epochs = () => new Map(tables.map((x) => [x, s.app.store.stamp([x]).split(':').pop()]));
  // On PostgreSQL this process's commits are announced again through the change feed a moment after
  // they are made (store/change-feed.ts), which moves the counters of the tables they wrote: the
  // counters are read once they have stopped moving for half a second.
  const settled = async () => {
    let last = JSON.stringify([...epochs()]);
    for (let quiet = 0, end = Date.now() + 10_000; quiet < 5 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 100));
      const now = JSON.stringify([...epochs()]);
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
    return epochs();
  };
  const written = (before: Map<string, string | undefined>) => {
    const after = epochs();
    return tables.filter((x) => before.get(x) !== after.get(x));
  };

  let before = epochs();
  t.equal((await apply(FILE(60))).status, 200);
  t.ok(written(before).includes('endpoints'), 'the counters see the first apply');
  before = await settled();
  const again = await apply(FILE(60));
  t.same(again.body.steps, []);
  t.same(written(before), [], 'no table written');
  before = await settled();
  t.equal((await apply(FILE(30))).body.steps.length, 1);
  // Its row and its audit entry (and on PostgreSQL the due-queues' rows of the check: its next run).
  t.same(
    written(before).filter((x) => !x.endsWith('_due')),
    ['audit_log', 'liveness_configs'],
    'one change: its row and its audit entry',
  );
});
