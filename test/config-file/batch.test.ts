// A file's new domains and endpoints are created together (services' createMany): each one is still
// checked as a single create checks it, with an earlier object of the file counting as stored, so a
// dry run finds every error the apply finds, at the object's line; the audit trail has one entry per
// object, in the file's order. The file is read by js-yaml,
// and by the yaml library when js-yaml refuses it or it has aliases: both give the same document.
// test/pg/config-batch.test.ts runs it on PostgreSQL.
import t from 'tap';
import { request, startApp } from '../support/app.js';

// 720 endpoints planned twice and applied, on SQLite or (test/pg/config-batch) PostgreSQL: about 20 s
// on a loaded 2-core machine, past tap's default 30 s with the rest of the file.
t.setTimeout(120_000);

const ENDPOINT = (name: string, extra = '') => `      - name: ${name}
        type: https
        subdomain: ${name}
        liveness:
          interval_seconds: 60
${extra}`;

t.test('dry run and apply refuse the same objects, at their lines; nothing is written', async (t) => {
  // A team may have 3 endpoints.
  const s = await startApp({ DOMMON_MAX_ENDPOINTS: '3' });
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const apply = (file: string, q = '') =>
    request(s.url, 'POST', `/api/v1/config/apply${q}`, { token, body: { file, filename: 'f.yaml' } });
  const file = `version: 1
domains:
  - name: a.example
    endpoints:
${ENDPOINT('one')}${ENDPOINT('two', '          conditions: ["[STATUS] =="]\n')}${ENDPOINT(
    'three',
    '          headers: {Authorization: x}\n',
  )}      - name: db
        type: port
  - name: b.example
    endpoints:
${ENDPOINT('four')}${ENDPOINT('five')}${ENDPOINT('six')}`;
  // Refused objects are not counted: one, four and five are the three the limit allows.
  const want = [
    /^f\.yaml:10:9: endpoint a\.example\/two: conditions\[0\]: .* at position \d+$/,
    /^f\.yaml:16:9: endpoint a\.example\/three: headers\.Authorization: credentials go in auth/,
    /^f\.yaml:22:9: endpoint a\.example\/db: port: required for endpoint_type "port"$/,
    /^f\.yaml:36:9: endpoint b\.example\/six: endpoint limit reached \(3 per team\)$/,
  ];
  for (const q of ['?dry_run=true', '']) {
    const r = await apply(file, q);
    t.equal(r.status, 400, q);
    const errors = r.body.errors as string[];
    t.equal(errors.length, want.length, errors.join('\n'));
    want.forEach((re, i) => t.match(errors[i], re));
  }
  const list = await request(s.url, 'GET', '/api/v1/domains', { token });
  t.equal(list.body.total, 0, 'nothing applied');

  // Two endpoints already stored: the file's third is the last one the limit allows.
  const seed = `version: 1\ndomains:\n  - name: a.example\n    endpoints:\n${ENDPOINT('one')}${ENDPOINT('two')}`;
  t.equal((await apply(seed)).status, 200);
  const more = `${seed}  - name: b.example\n    endpoints:\n${ENDPOINT('three')}${ENDPOINT('four')}`;
  for (const q of ['?dry_run=true', '']) {
    const r = await apply(more, q);
    t.equal(r.status, 400);
    t.same(r.body.errors, ['f.yaml:22:9: endpoint b.example/four: endpoint limit reached (3 per team)']);
  }
});

t.test('a file of many objects: audit entries in order, and the same plan in a dry run', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const apply = (file: string, q = '') =>
    request(s.url, 'POST', `/api/v1/config/apply${q}`, { token, body: { file, filename: 'f.yaml' } });
  const domains = Array.from(
    { length: 12 },
    (_, d) =>
      `  - name: d${d}.example\n    endpoints:\n${Array.from({ length: 60 }, (_, e) => ENDPOINT(`e${e}`)).join('')}`,
  ).join('');
  const file = `version: 1\ndomains:\n${domains}`;
  const dry = await apply(file, '?dry_run=true');
  t.equal(dry.status, 200);
  const real = await apply(file);
  t.equal(real.status, 200);
  t.same(real.body.steps, dry.body.steps, 'the dry run plans what the apply does');
  t.same(real.body.summary.endpoint, { create: 720, update: 0, delete: 0 });
  t.same(real.body.summary.liveness, { create: 720, update: 0, delete: 0 });

  // One entry per object, oldest first in the file's order: each domain, then its endpoints with their checks.
  const entries: { action: string; object: { kind: string; name: string }; via: { kind: string; id: string } }[] = [];
  for (let cursor: string | null = null; ;) {
    const page: { status: number; body: { data: typeof entries; next_cursor: string | null } } = await request(
      s.url,
      'GET',
      `/api/v1/audit?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
      {
        token,
      },
    );
    t.equal(page.status, 200);
    entries.push(...page.body.data);
    cursor = page.body.next_cursor;
    if (!cursor) break;
  }
  const mine = entries.filter((e) => e.via.kind === 'config-apply' && e.via.id === real.body.apply_id).reverse();
  t.equal(mine.length, 12 + 720 * 2);
  t.same(
    mine.slice(0, 12).map((e) => `${e.action} ${e.object.kind} ${e.object.name}`),
    Array.from({ length: 12 }, (_, d) => `create domain d${d}.example`),
  );
  t.same(
    mine.slice(12, 16).map((e) => `${e.action} ${e.object.kind} ${e.object.name}`),
    [
      'create endpoint d0.example/e0',
      'create liveness d0.example/e0',
      'create endpoint d0.example/e1',
      'create liveness d0.example/e1',
    ],
  );
  t.same(mine.at(-1) && `${mine.at(-1)!.object.kind} ${mine.at(-1)!.object.name}`, 'liveness d11.example/e59');
});

t.test('the same document whichever reader reads the file', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const apply = (file: string, q = '?dry_run=true') =>
    request(s.url, 'POST', `/api/v1/config/apply${q}`, { token, body: { file, filename: 'f.yaml' } });
  // Aliases (read by the yaml library) and the same file without them (read by js-yaml).
  const aliased = `version: 1
domains:
  - name: a.example
    endpoints:
      - name: web
        type: https
        liveness: &check
          interval_seconds: 120
          failure_threshold: 2
      - name: api
        type: https
        subdomain: api
        liveness: *check
`;
  const plain = aliased
    .replace(' &check', '')
    .replace(
      '        liveness: *check\n',
      '        liveness:\n          interval_seconds: 120\n          failure_threshold: 2\n',
    );
  const a = await apply(aliased, '');
  t.equal(a.status, 200, JSON.stringify(a.body));
  t.equal(a.body.summary.liveness.create, 2);
  const b = await apply(plain);
  t.equal(b.status, 200);
  t.same(b.body.steps, [], 'the same setup, so nothing to change');

  // A syntax error, a duplicate key and a file js-yaml reads but the schema refuses: each at its place.
  const bad = await apply('version: 1\ndomains:\n  - name: a.example\n    notes: [x,\n');
  t.equal(bad.status, 400);
  t.match(bad.body.errors[0], /^f\.yaml:\d+:\d+: /);
  const dup = await apply('version: 1\nversion: 1\n');
  t.equal(dup.status, 400);
  t.match(dup.body.errors, [/^f\.yaml:2:1: Map keys must be unique/]);
  const unknown = await apply('version: 1\ndomains:\n  - name: a.example\n    colour: red\n');
  t.equal(unknown.status, 400);
  t.same(unknown.body.errors, ['f.yaml:4:5: domains.0.colour: unknown field']);
});
