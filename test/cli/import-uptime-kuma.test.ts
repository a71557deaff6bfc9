// `dommon import uptime-kuma FILE`: the kuma.db a real Uptime Kuma 2.5.3 wrote
// (test/fixtures/uptime-kuma-2.5.3, its README lists every object in it) becomes a dommon file whose
// every object the API's schemas accept, and every monitor, notification, tag, maintenance window and
// status page of the README is in that file or named on stderr. Kuma's directory is never written to.
// A JSON backup (Kuma 1.x's export: monitors and notifications) is read too, and so is a kuma.db
// without the monitor columns Kuma 2.x added.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { parse } from 'yaml';
import { importUptimeKuma } from '../../src/services/import/uptime-kuma.js';
import { tempDir } from '../support/app.js';
import { cli, ensureBuilt, ROOT } from '../support/cli.js';
import { applyErrors, fileProblems } from '../support/import-file.js';

t.setTimeout(180_000);

const FIXTURE = path.join(ROOT, 'test/fixtures/uptime-kuma-2.5.3');

/** kuma.db copied to a temporary directory: a test never leaves files beside the fixture. */
function kumaCopy(t: { teardown(fn: () => unknown): void }): string {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'kuma.db');
  fs.copyFileSync(path.join(FIXTURE, 'kuma.db'), file);
  return file;
}

/** The fixture README's tables: monitors (id, name, type), notifications, tags, windows, pages. */
function readmeObjects() {
  const text = fs.readFileSync(path.join(FIXTURE, 'README.md'), 'utf8');
  const rows = (re: RegExp) => [...text.matchAll(re)];
  return {
    monitors: rows(/^\| (\d+) \| ([^|]+) \| (group|http|keyword|json-query|port|ping|dns|push) \|/gm).map((m) => ({
      id: Number(m[1]),
      name: m[2]!.trim(),
      type: m[3]!,
    })),
    notifications: rows(/^\| (\d) \| ([^|]+) \| (webhook|slack|discord|telegram|ntfy|smtp)\b/gm).map((m) => ({
      id: Number(m[1]),
      name: m[2]!.trim(),
    })),
    tags: rows(/\d `(env|team|critical)` \(#/g).map((m) => m[1]!),
    windows: rows(/^- Maintenance (\d), "([^"]+)"/gm).map((m) => ({ id: Number(m[1]), name: m[2]! })),
    pages: rows(/^- Status page (\d), `([a-z-]+)`/gm).map((m) => ({ id: Number(m[1]), slug: m[2]! })),
  };
}

t.test("every object the fixture's README lists is in the file or reported", async (t) => {
  const file = kumaCopy(t);
  const before = fs.readdirSync(path.dirname(file));
  const r = importUptimeKuma(file);
  t.same(fs.readdirSync(path.dirname(file)), before, 'no -wal or -shm beside the file: it was read from a copy');
  t.same(fileProblems(r.file), [], 'the API schemas accept every object');
  const o = readmeObjects();
  t.equal(o.monitors.length, 25, 'README: 25 monitors');
  t.equal(o.notifications.length, 6, 'README: 6 notifications');
  t.same(o.tags, ['env', 'team', 'critical']);
  t.equal(o.windows.length, 2);
  t.equal(o.pages.length, 1);
  const notes = r.notes.map((n) => `${n.at}: ${n.message}`);
  const endpoints = (r.file.domains ?? []).flatMap((d) => d.endpoints.map((e) => e.name));
  const portfolios = (r.file.portfolios ?? []).map((p) => p.name);
  for (const m of o.monitors) {
    const inFile = m.type === 'group' ? portfolios.includes(m.name) : endpoints.includes(m.name);
    const noted = notes.some((n) => n.startsWith(`${file}: monitor ${m.id} "${m.name}": not carried over`));
    t.ok(inFile !== noted, `monitor ${m.id} "${m.name}": ${inFile ? 'in the file' : noted ? 'reported' : 'MISSING'}`);
  }
  for (const n of o.notifications)
    t.ok(
      notes.some((x) => x.startsWith(`${file}: notification ${n.id} "${n.name}": carried over as the team's`)) ||
        notes.some((x) => x.startsWith(`${file}: notification ${n.id} "${n.name}": not carried over`)),
      `notification ${n.id} "${n.name}" accounted for`,
    );
  t.equal(r.file.channels?.length, 6, 'all six are channel types dommon has');
  for (const tag of o.tags)
    t.ok(
      portfolios.some((p) => p === tag || p.startsWith(`${tag}: `)) || notes.some((x) => x.includes(`tag "${tag}`)),
      `tag ${tag} accounted for`,
    );
  for (const w of o.windows)
    t.ok(
      r.file.maintenance_windows?.some((x) => x.name === w.name),
      `maintenance window "${w.name}" in the file`,
    );
  for (const p of o.pages)
    t.ok(
      r.file.status_pages?.some((x) => x.slug === p.slug),
      `status page ${p.slug} in the file`,
    );
});

t.test('what the monitors become', async (t) => {
  const file = kumaCopy(t);
  const r = importUptimeKuma(file);
  const ep = (domain: string, name: string) =>
    r.file.domains!.find((d) => d.name === domain)!.endpoints.find((e) => e.name === name)!;
  t.same(ep('example.com', 'Homepage'), {
    name: 'Homepage',
    type: 'https',
    subdomain: 'www',
    liveness: {
      interval_seconds: 60,
      failure_threshold: 3,
      timeout_seconds: 48,
      follow_redirects: true,
      conditions: ['[STATUS] >= 200', '[STATUS] <= 299'],
    },
  });
  t.same(ep('example.com', 'API health (POST JSON)').liveness, {
    interval_seconds: 30,
    failure_threshold: 4,
    timeout_seconds: 10,
    method: 'POST',
    body: '{\n    "probe": "uptime-kuma",\n    "deep": true\n}',
    headers: {
      Accept: 'application/json',
      'X-Api-Key': '${API_HEALTH_POST_JSON_X_API_KEY}',
      'Content-Type': 'application/json',
    },
    follow_redirects: true,
    conditions: ['[STATUS] == any(200, 201, 204)'],
  });
  t.same(ep('example.org', 'No error banner (inverted keyword)').liveness!.conditions, [
    '[STATUS] >= 200',
    '[STATUS] <= 299',
    '[BODY] != pat(*Internal Server Error*)',
  ]);
  t.same(
    ep('example.org', 'Blog redirect').liveness,
    {
      interval_seconds: 600,
      timeout_seconds: 48,
      conditions: ['[STATUS] == any(301, 302)'],
    },
    'maxredirects 0: the redirect is the answer judged',
  );
  t.same(ep('example.com', 'API version (json-query)').liveness!.conditions, [
    '[STATUS] >= 200',
    '[STATUS] <= 299',
    '[BODY].version == 2.5.3',
  ]);
  t.same(ep('example.com', 'Session API (PUT form)').liveness!.body, 'user=probe&token=${SESSION_API_PUT_FORM_TOKEN}');
  t.same(ep('example.com', 'DNS TXT example.com (SPF)'), {
    name: 'DNS TXT example.com (SPF)',
    type: 'dns',
    record_type: 'TXT',
    resolver: 'ns1.example.com',
    liveness: { interval_seconds: 900, timeout_seconds: 48 },
  });
  t.same(ep('example.org', 'Gateway ping'), {
    name: 'Gateway ping',
    type: 'icmp',
    subdomain: 'gw',
    count: 3,
    liveness: { interval_seconds: 60, failure_threshold: 3, timeout_seconds: 10 },
  });
  // A push monitor's token is its ping key: the job's /api/push/<token> URL keeps working (docs/push.md).
  t.same(ep('example.com', 'Nightly backup (push)'), {
    name: 'Nightly backup (push)',
    type: 'push',
    period_seconds: 86400,
    grace_seconds: 60,
    ping_key: 'ExAmPlEpUsHtOkEnNiGhTlYbAcKuP001',
  });
  t.equal(ep('example.com', 'Cron heartbeat (push, 5 min)').ping_key, 'ExAmPlEpUsHtOkEnCrOnHeArTbEaT002');
  t.ok(
    r.notes.some(
      (n) =>
        n.at === `${file}: monitor 22 "Nightly backup (push)"` &&
        /its push token is its ping key: the job's URL \/api\/push\/<token> keeps working/.test(n.message),
    ),
    'the note says the URL keeps working',
  );
  t.same(ep('example.com', 'FTP (decommissioned, paused)').liveness!.is_enabled, false, 'paused: not enabled');
  t.same(ep('example.org', 'Admin (basic auth)').liveness!.auth, {
    type: 'basic',
    username: 'kuma-probe',
    password: '${ADMIN_BASIC_AUTH_PASSWORD}',
  });
  const text = JSON.stringify(r.file);
  for (const secret of ['EXAMPLE-PASSWORD', 'EXAMPLE-TOKEN-4', 'EXAMPLE-TOKEN-5', 'EXAMPLE-TOKEN-6', 'EXAMPLE-TOKEN-7'])
    t.notOk(text.includes(secret), `${secret}... is not in the file`);
  t.same(
    r.file.maintenance_windows,
    [
      {
        name: 'Weekly patch window',
        timezone: 'UTC',
        cron: '0 2 * * 0,6',
        duration_minutes: 120,
        endpoints: [
          'example.com/Homepage',
          'example.com/Homepage keyword',
          'example.org/No error banner (inverted keyword)',
          'example.org/Blog redirect',
        ],
      },
      {
        name: 'Datacenter migration',
        timezone: 'Europe/Berlin',
        starts_at: '2027-03-14T21:00:00.000Z',
        ends_at: '2027-03-15T01:00:00.000Z',
        endpoints: ['example.com/API health (POST JSON)', 'example.com/API version (json-query)'],
      },
    ],
    'the group in window 1 stands for the monitors under it; 22:00 in Berlin in March is 21:00 UTC',
  );
  t.same(r.file.status_pages, [
    {
      slug: 'example-status',
      portfolio: 'Public website',
      title: 'Example Services Status',
      show_certificates: true,
      endpoints: [
        { endpoint: 'example.com/Homepage', display_name: 'Homepage' },
        { endpoint: 'example.com/API health (POST JSON)', display_name: 'API health (POST JSON)' },
        { endpoint: 'example.com/API version (json-query)', display_name: 'API version (json-query)' },
        { endpoint: 'example.com/Nightly backup (push)', display_name: 'Nightly backup (push)' },
      ],
    },
  ]);
});

t.test("a kuma.db without the monitor columns Kuma 2.x's migrations added, as Kuma 1.23 has it", async (t) => {
  // The fixture with its monitor table cut back to the columns before mqtt_check_type: those from it on
  // came with Kuma 2.x's migrations (db/knex_migrations, October 2023 on: MQTT check type, remote
  // browsers, SNMP, JSON operators, conditions, cache busting, ping options, IP family, bearer token...).
  // Not a file a real 1.23 wrote: the importer is shown to need none of those columns.
  const file = kumaCopy(t);
  const full = importUptimeKuma(file);
  const db = new Database(file);
  const cols = (db.prepare('PRAGMA table_info(monitor)').all() as { name: string }[]).map((c) => c.name);
  const kept = cols.slice(0, cols.indexOf('mqtt_check_type'));
  t.ok(kept.length > 60 && kept.includes('push_token') && !kept.includes('json_path_operator'), 'cut back');
  db.pragma('foreign_keys = OFF');
  db.exec(
    `CREATE TABLE monitor_1_23 AS SELECT ${kept.map((c) => `"${c}"`).join(', ')} FROM monitor;
     DROP TABLE monitor; ALTER TABLE monitor_1_23 RENAME TO monitor;`,
  );
  db.close();
  const r = importUptimeKuma(file);
  t.same(fileProblems(r.file), []);
  t.same(
    r.notes.map((n) => `${n.at}: ${n.message}`),
    full.notes.map((n) => `${n.at}: ${n.message}`),
    'the same notes: every monitor carried over or reported as before',
  );
  // The one difference: a ping monitor's count (ping_count came with 2.x) is dommon's default.
  const ping = (f: typeof r.file) => f.domains!.flatMap((d) => d.endpoints).find((e) => e.name === 'Gateway ping')!;
  t.equal(ping(full.file).count, 3);
  const { count: _count, ...rest } = ping(full.file);
  t.same(ping(r.file), rest);
  ping(r.file).count = 3;
  t.same(r.file, full.file, 'else the same file');
});

t.test('a JSON backup: monitors, their tags and notifications', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'Uptime_Kuma_Backup.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      version: '1.23.16',
      notificationList: [
        {
          id: 1,
          name: 'Slack',
          active: 1,
          isDefault: false,
          config: JSON.stringify({ name: 'Slack', type: 'slack', slackwebhookURL: 'https://hooks.example.com/s' }),
        },
        {
          id: 2,
          name: 'Signal',
          active: 1,
          isDefault: false,
          config: JSON.stringify({ name: 'Signal', type: 'signal', signalURL: 'http://x' }),
        },
      ],
      monitorList: [
        {
          id: 1,
          name: 'Shop',
          type: 'http',
          url: 'https://shop.example.net/health',
          method: 'GET',
          interval: 30,
          retryInterval: 30,
          maxretries: 1,
          active: true,
          upsideDown: false,
          ignoreTls: false,
          maxredirects: 10,
          accepted_statuscodes: ['200'],
          notificationIDList: { 1: true },
          tags: [{ tag_id: 4, monitor_id: 1, value: '', name: 'shop', color: '#000' }],
        },
        { id: 2, name: 'Docker', type: 'docker', docker_container: 'x', interval: 60, active: true },
      ],
    }),
  );
  const r = importUptimeKuma(file);
  t.same(fileProblems(r.file), []);
  t.same(applyErrors(JSON.stringify(r.file), 'dommon.json'), [], 'JSON is the same format');
  t.same(r.file.portfolios, [{ name: 'shop' }]);
  t.same(r.file.domains, [
    {
      name: 'example.net',
      portfolio: 'shop',
      endpoints: [
        {
          name: 'Shop',
          type: 'https',
          subdomain: 'shop',
          path: '/health',
          liveness: { interval_seconds: 30, failure_threshold: 2, follow_redirects: true, expected_status_code: 200 },
        },
      ],
    },
  ]);
  t.same(r.file.channels, [{ type: 'slack', delivery_class: 'instant', webhook_url: 'https://hooks.example.com/s' }]);
  const notes = r.notes.map((n) => `${n.at}: ${n.message}`);
  t.ok(notes.includes(`${file}: notification 2 "Signal": not carried over: dommon has no signal channel`));
  t.ok(notes.includes(`${file}: monitor 2 "Docker": not carried over: dommon has no docker monitors`));
  t.ok(
    notes.some((n) =>
      n.endsWith(
        'a JSON backup holds monitors and notifications only: maintenance windows and status pages are in kuma.db',
      ),
    ),
  );
});

t.test("a JSON backup's push tokens: each kept as the ping key when it can be one, else reported", async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'backup.json');
  const TOKEN = 'Abc123Def456Ghi789Jkl012Mno345Pq';
  const push = (id: number, name: string, pushToken: string | null) => ({
    id,
    name,
    type: 'push',
    pushToken,
    interval: 3600,
    retryInterval: 3600,
    maxretries: 0,
    active: true,
  });
  fs.writeFileSync(
    file,
    JSON.stringify({
      version: '1.23.16',
      notificationList: [],
      monitorList: [push(1, 'Backup', TOKEN), push(2, 'Old', 'abc'), push(3, 'Copy', TOKEN), push(4, 'None', null)],
    }),
  );
  const r = importUptimeKuma(file, { pushDomain: 'jobs.example.com' });
  t.same(fileProblems(r.file), []);
  const keys = Object.fromEntries(r.file.domains![0]!.endpoints.map((e) => [e.name, e.ping_key]));
  t.same(keys, { Backup: TOKEN, Old: undefined, Copy: undefined, None: undefined });
  const note = (id: number, name: string) => r.notes.find((n) => n.at === `${file}: monitor ${id} "${name}"`)?.message;
  t.match(note(1, 'Backup'), /its push token is its ping key/);
  t.match(note(2, 'Old'), /its push token is not carried over \(a ping key is 10 to 64 letters, digits, - and _\)/);
  t.match(note(3, 'Copy'), /its push token is another monitor's, kept there/);
  t.match(note(4, 'None'), /it has no push token/);
});

t.test('the built command', async (t) => {
  await ensureBuilt();
  const file = kumaCopy(t);
  const out = await cli(['import', 'uptime-kuma', file]);
  t.equal(out.code, 0, 'exit 0');
  t.same(parse(out.stdout), importUptimeKuma(file).file);
  t.same(applyErrors(out.stdout), [], "the file format's reader takes what the command writes");
  t.match(
    out.stderr,
    /: monitor 11 "Maintenance page must be down \(upside down\)": not carried over: upside-down mode/,
  );
  t.match(out.stderr, /^secrets: the file reads these variables when applied: TELEGRAM_BOT_TOKEN /m);
  const dir = path.dirname(file);
  const written = await cli([
    'import',
    'uptime-kuma',
    file,
    '-o',
    path.join(dir, 'dommon.json'),
    '--push-domain',
    'jobs.example.org',
  ]);
  t.equal(written.code, 0, 'exit 0');
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'dommon.json'), 'utf8'));
  t.equal(
    json.domains
      .find((d: any) => d.name === 'example.org')
      .endpoints.find((e: any) => e.name === 'Nightly backup (push)')?.subdomain,
    'jobs',
    '--push-domain: push monitors under it; .json: the file as JSON',
  );
  const junk = path.join(dir, 'junk.txt');
  fs.writeFileSync(junk, 'hello');
  const refused = await cli(['import', 'uptime-kuma', junk]);
  t.equal(refused.code, 2);
  t.match(refused.stderr, /is neither an Uptime Kuma data file \(kuma.db\) nor a JSON backup/);
});
