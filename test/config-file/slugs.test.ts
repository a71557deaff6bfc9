// Status page slugs are public addresses (/status/<slug>), unique across every team: a file whose
// status page takes a slug another team holds is refused, dry run or apply, with the error at that
// page's line and column, nothing applied, and the other errors of the file still reported (on
// PostgreSQL a failed insert would end the transaction, and the maintenance window after the page
// would fail with a 500: the slug is checked before the write). The
// API answers 409 SLUG_TAKEN with the same rule. test/pg/config-slugs.test.ts runs it on PostgreSQL.
import t from 'tap';
import { request, startApp } from '../support/app.js';

const FILE = (slug: string) => `version: 1
portfolios:
  - name: Web
domains:
  - name: example.com
    portfolio: Web
    endpoints:
      - name: www
        type: https
        liveness:
          interval_seconds: 60
          conditions: ["[STATUS] =="]
status_pages:
  - slug: ${slug}
    title: Status
    portfolio: Web
maintenance_windows:
  - name: Patching
    cron: "0 3 * * 0"
    duration_minutes: 60
    domains: [example.com]
`;

t.test("a slug another team holds: refused at the page's line, nothing applied, never a 500", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const a = await s.token('team-a');
  const b = await s.token('team-b');
  const apply = (token: string, file: string, q = '') =>
    request(s.url, 'POST', `/api/v1/config/apply${q}`, { token, body: { file, filename: 'f.yaml' } });
  const good = FILE('shared-status').replace('          conditions: ["[STATUS] =="]\n', '');
  const first = await apply(a, good);
  t.equal(first.status, 200, JSON.stringify(first.body));

  // Team b's file takes the same slug: the rule at the page, beside the file's other error.
  for (const q of ['?dry_run=true', '']) {
    const r = await apply(b, FILE('shared-status'), q);
    t.equal(r.status, 400, JSON.stringify(r.body));
    t.match(r.body.errors, [
      /^f\.yaml:8:9: endpoint example\.com\/www: conditions\[0\]: /,
      /^f\.yaml:14:5: status page shared-status: slug "shared-status" is taken: a status page's slug is its public address \(\/status\/<slug>\), so it is unique across the installation, whichever team holds it$/,
    ]);
    t.equal(r.body.errors.length, 2);
  }
  // The slug alone: still refused, and team b has nothing.
  const only = await apply(b, good);
  t.equal(only.status, 400);
  t.same(only.body.errors.length, 1);
  t.match(only.body.errors[0], /^f\.yaml:13:5: status page shared-status: slug "shared-status" is taken/);
  const domains = await request(s.url, 'GET', '/api/v1/domains', { token: b });
  t.equal(domains.body.total, 0, 'nothing applied for team b');
  // Another slug: applied.
  t.equal((await apply(b, good.replace('shared-status', 'b-status'))).status, 200);

  // The API: 409 SLUG_TAKEN, create and update alike.
  const pf = (await request(s.url, 'GET', '/api/v1/portfolios', { token: b })).body.data[0];
  const made = await request(s.url, 'POST', '/api/v1/status-pages', {
    token: b,
    body: { portfolio_id: pf.id, slug: 'shared-status', title: 'x' },
  });
  t.equal(made.status, 409);
  t.equal(made.body.code, 'SLUG_TAKEN');
  t.match(made.body.error, /unique across the installation/);
  const own = (await request(s.url, 'GET', '/api/v1/status-pages', { token: b })).body.data[0];
  const renamed = await request(s.url, 'PUT', `/api/v1/status-pages/${own.id}`, {
    token: b,
    body: { slug: 'shared-status' },
  });
  t.equal(renamed.status, 409);
  t.equal(renamed.body.code, 'SLUG_TAKEN');
  const same = await request(s.url, 'PUT', `/api/v1/status-pages/${own.id}`, {
    token: b,
    body: { slug: 'b-status', title: 'Mine' },
  });
  t.equal(same.status, 200, 'its own slug is not taken');
});
