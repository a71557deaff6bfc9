// GET /api/v1/config/export (what `dommon export` prints, locally and with --remote): the team's setup
// as the configuration file. Export after apply gives back what the file set (secrets and credentials as
// `${NAME}` references, listed); the text is stable; export -> apply into an empty data directory ->
// export gives the same file; another team's objects never appear. test/pg/config-export.test.ts runs
// it on PostgreSQL.
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { request, startApp } from '../support/app.js';

// Five apps, each (test/pg/config-export) with a PostgreSQL database of its own: 24-31 s on a loaded
// 2-core machine, past tap's default 30 s.
t.setTimeout(120_000);

const FILE = `version: 1
portfolios:
  - name: Production
    description: customer-facing
channels:
  - type: webhook
    webhook_url: https://hooks.example.test/dommon
    secret_key: \${WEBHOOK_SECRET}
  - type: slack
    delivery_class: digest
    frequency_days: 1
    notification_time: "09:00:00"
    webhook_url: https://hooks.slack.com/services/T0/B0/XXXX
domains:
  - name: example.com
    portfolio: Production
    notes: main site
    dkim_selectors: [s1]
    manual_expiry: 2027-01-01
    endpoints:
      - name: api
        type: https
        subdomain: api
        path: /health
        liveness:
          interval_seconds: 60
          failure_threshold: 3
          conditions: ["[STATUS] == 200"]
          auth:
            type: basic
            username: ops
            password: \${API_PASSWORD}
      - name: backup
        type: push
        period_seconds: 3600
      - name: mx
        type: dns
        record_type: MX
status_pages:
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
const ENV = { WEBHOOK_SECRET: 'hook-secret', API_PASSWORD: 'pw' };

const REFS = {
  DOMMON_CHANNEL_SLACK_DIGEST_WEBHOOK_URL: 'slack channel (digest): webhook_url',
  DOMMON_CHANNEL_WEBHOOK_WEBHOOK_URL: 'webhook channel (instant): webhook_url',
  DOMMON_CHANNEL_WEBHOOK_SECRET_KEY: 'webhook channel (instant): secret_key',
  DOMMON_ENDPOINT_EXAMPLE_COM_API_PASSWORD: 'liveness credentials of example.com/api: password',
};

/** Every field `want` sets is in `got` with the same value (lists item by item). */
function contains(t: Test, got: unknown, want: unknown, at = ''): void {
  if (want && typeof want === 'object') {
    t.ok(got && typeof got === 'object', `${at} is there`);
    if (!got || typeof got !== 'object') return;
    if (Array.isArray(want)) t.equal((got as unknown[]).length, want.length, `${at}: as many items`);
    for (const [k, v] of Object.entries(want)) contains(t, (got as Record<string, unknown>)[k], v, `${at}.${k}`);
  } else t.same(got, want, at);
}

t.test('export after apply gives the file back; export -> apply elsewhere -> export is the same file', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const applied = await request(s.url, 'POST', '/api/v1/config/apply', {
    token,
    body: { file: FILE, filename: 'dommon.yaml', env: ENV },
  });
  t.equal(applied.status, 200, JSON.stringify(applied.body));

  const e = await request(s.url, 'GET', '/api/v1/config/export', { token });
  t.equal(e.status, 200);
  t.equal(e.body.format, 'yaml');
  t.same(
    e.body.secrets,
    Object.entries(REFS).map(([name, what]) => ({ name, what })),
    'every secret and credential is a reference, listed in the order of the file',
  );
  const text: string = e.body.file;
  t.match(text, /^# yaml-language-server: \$schema=http:\/\/127\.0\.0\.1:8080\/api\/v1\/config\/schema\.json\n/);
  for (const [name, what] of Object.entries(REFS)) t.match(text, `\n#   ${name}: ${what}\n`);
  for (const secret of ['hook-secret', 'hooks.example.test', 'hooks.slack.com', ENV.API_PASSWORD + '\n'])
    t.notOk(text.includes(secret), `${secret.trim()} is not in the file`);

  // The file's content comes back, secrets as references.
  const want = parse(FILE) as Record<string, any>;
  want.channels[0].webhook_url = '${DOMMON_CHANNEL_WEBHOOK_WEBHOOK_URL}';
  want.channels[0].secret_key = '${DOMMON_CHANNEL_WEBHOOK_SECRET_KEY}';
  want.channels[1].webhook_url = '${DOMMON_CHANNEL_SLACK_DIGEST_WEBHOOK_URL}';
  want.channels.reverse(); // sorted by type: slack, webhook
  want.domains[0].endpoints[0].liveness.auth.password = '${DOMMON_ENDPOINT_EXAMPLE_COM_API_PASSWORD}';
  const got = parse(text) as Record<string, unknown>;
  contains(t, got, want);

  // Stable: the same setup, the same text; JSON is the same document.
  t.equal((await request(s.url, 'GET', '/api/v1/config/export', { token })).body.file, text);
  const j = await request(s.url, 'GET', '/api/v1/config/export?format=json', { token });
  t.equal(j.body.format, 'json');
  t.same(JSON.parse(j.body.file), got);
  t.equal((await request(s.url, 'GET', '/api/v1/config/export?format=xml', { token })).status, 400);

  // Applied as it is to the same team: nothing to change (the references' values are the stored ones).
  const values = {
    DOMMON_CHANNEL_SLACK_DIGEST_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/XXXX',
    DOMMON_CHANNEL_WEBHOOK_WEBHOOK_URL: 'https://hooks.example.test/dommon',
    DOMMON_CHANNEL_WEBHOOK_SECRET_KEY: ENV.WEBHOOK_SECRET,
    DOMMON_ENDPOINT_EXAMPLE_COM_API_PASSWORD: ENV.API_PASSWORD,
  };
  const again = await request(s.url, 'POST', '/api/v1/config/apply', {
    token,
    body: { file: text, filename: 'export.yaml', env: values },
  });
  t.equal(again.status, 200, JSON.stringify(again.body));
  t.same(again.body.steps, [], 'the export applied to its own team changes nothing');

  // Another team sees none of it.
  const other = await s.token('other');
  const o = await request(s.url, 'GET', '/api/v1/config/export', { token: other });
  t.same(parse(o.body.file), { version: 1 });
  t.same(o.body.secrets, []);

  // Into an empty data directory, then out again: the same file.
  const fresh = await startApp();
  t.teardown(() => fresh.close());
  const ftoken = await fresh.token('ops');
  const into = await request(fresh.url, 'POST', '/api/v1/config/apply', {
    token: ftoken,
    body: { file: text, filename: 'export.yaml', env: values },
  });
  t.equal(into.status, 200, JSON.stringify(into.body));
  t.equal(into.body.applied, true);
  t.equal((await request(fresh.url, 'GET', '/api/v1/config/export', { token: ftoken })).body.file, text);
});

t.test("a push endpoint's ping key: exported, and kept by export -> apply into an empty data directory", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const applied = await request(s.url, 'POST', '/api/v1/config/apply', {
    token,
    body: { file: FILE, filename: 'dommon.yaml', env: ENV },
  });
  t.equal(applied.status, 200, JSON.stringify(applied.body));
  const eps = (await request(s.url, 'GET', '/api/v1/endpoints', { token })).body.data;
  const backup = eps.find((e: any) => e.name === 'backup');
  const key: string = (await request(s.url, 'GET', `/api/v1/endpoints/${backup.id}/pings`, { token })).body.ping_key;
  t.match(key, /^[0-9a-f-]{36}$/);
  const text: string = (await request(s.url, 'GET', '/api/v1/config/export', { token })).body.file;
  const got = parse(text) as Record<string, any>;
  const exported = got.domains[0].endpoints.find((e: any) => e.name === 'backup');
  t.equal(exported.ping_key, key, 'written in clear, as the ping URL in a crontab');
  t.notOk(
    got.domains[0].endpoints.some((e: any) => e.name !== 'backup' && 'ping_key' in e),
    'only push endpoints have one',
  );

  // Into an empty data directory: the same ping URL answers there.
  const values = {
    DOMMON_CHANNEL_SLACK_DIGEST_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/XXXX',
    DOMMON_CHANNEL_WEBHOOK_WEBHOOK_URL: 'https://hooks.example.test/dommon',
    DOMMON_CHANNEL_WEBHOOK_SECRET_KEY: ENV.WEBHOOK_SECRET,
    DOMMON_ENDPOINT_EXAMPLE_COM_API_PASSWORD: ENV.API_PASSWORD,
  };
  const fresh = await startApp();
  t.teardown(() => fresh.close());
  const ftoken = await fresh.token('ops');
  const apply = (file: string) =>
    request(fresh.url, 'POST', '/api/v1/config/apply', {
      token: ftoken,
      body: { file, filename: 'export.yaml', env: values },
    });
  t.equal((await apply(text)).status, 200);
  const moved = (await request(fresh.url, 'GET', '/api/v1/endpoints', { token: ftoken })).body.data.find(
    (e: any) => e.name === 'backup',
  );
  const pings = async () =>
    (await request(fresh.url, 'GET', `/api/v1/endpoints/${moved.id}/pings`, { token: ftoken })).body;
  t.equal((await pings()).ping_key, key, 'the same key');
  t.match((await pings()).ping_url, new RegExp(`/ping/${key}$`));
  const ping = await fetch(`${fresh.url}/ping/${key}`);
  t.equal(ping.status, 200, 'the cron line of the old installation pings the new one');
  t.same(
    (await pings()).pings.map((p: any) => p.kind),
    ['success'],
  );
  t.same((await apply(text)).body.steps, [], 'applied again: nothing to change');

  // A changed key in the file: an update of the endpoint; the old URL stops answering.
  const other = '0f0e0d0c-0b0a-4908-8706-050403020100';
  const changed = await apply(text.replace(`ping_key: ${key}`, `ping_key: ${other}`));
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.same(changed.body.steps, [
    {
      kind: 'endpoint',
      action: 'update',
      name: 'example.com/backup',
      changes: [{ field: 'ping_key', from: key, to: other }],
    },
  ]);
  t.equal((await pings()).ping_key, other);
  t.equal((await fetch(`${fresh.url}/ping/${key}`)).status, 404);
  t.equal((await fetch(`${fresh.url}/ping/${other}`)).status, 200);

  // Refused, with their place in the file: a key on another type, a key another push endpoint holds.
  const bad = `version: 1
domains:
  - name: example.com
    endpoints:
      - name: mx
        type: dns
        record_type: MX
        ping_key: ${key}
      - name: second
        type: push
        ping_key: ${other}
`;
  const refused = await apply(bad);
  t.equal(refused.status, 400);
  t.equal(refused.body.code, 'INVALID_CONFIG');
  t.match(JSON.stringify(refused.body.errors), /export\.yaml:8:\d+: .*ping_key is for push endpoints only/);
  t.match(
    JSON.stringify(refused.body.errors),
    /export\.yaml:11:\d+: .*ping_key \S+ is the key of another push endpoint/,
  );
  t.equal((await pings()).ping_key, other, 'nothing applied');
});

t.test('export needs a token', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  t.equal((await request(s.url, 'GET', '/api/v1/config/export')).status, 401);
});
