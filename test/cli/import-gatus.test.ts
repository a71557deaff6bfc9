// `dommon import gatus FILE`: Gatus's own example configurations (test/fixtures/gatus, from the TwiN/gatus
// repository) and one written for these tests become dommon files whose every object the API's schemas
// accept; what is not carried over is on stderr with the Gatus file's line; the built command writes
// stdout or -o, and refuses a file that is no YAML with its line.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { importGatus } from '../../src/services/import/gatus.js';
import { tempDir } from '../support/app.js';
import { cli, ensureBuilt, ROOT } from '../support/cli.js';
import { applyErrors, fileProblems } from '../support/import-file.js';
import { fileText } from '../../src/services/import/index.js';

t.setTimeout(180_000);

const DIR = path.join(ROOT, 'test/fixtures/gatus');
const FIXTURES = [
  'config.yaml',
  'readme-snippets.yaml',
  'features.yaml',
  ...fs.readdirSync(path.join(DIR, 'examples')).map((f) => `examples/${f}`),
];
const run = (name: string, o = {}) => importGatus(name, fs.readFileSync(path.join(DIR, name), 'utf8'), o);
const endpoint = (file: any, ref: string) => {
  const [domain, name] = ref.split('/');
  return file.domains.find((d: any) => d.name === domain)?.endpoints.find((e: any) => e.name === name);
};

t.test('every fixture gives a file the API schemas accept, each note with its line', async (t) => {
  for (const name of FIXTURES) {
    const r = run(name);
    t.same(fileProblems(r.file), [], `${name}: valid`);
    t.same(
      applyErrors(
        fileText(r, {
          tool: 'gatus',
          source: name,
          json: false,
          schemaUrl: 'http://127.0.0.1:8080/api/v1/config/schema.json',
        }),
      ),
      [],
      `${name}: the file format's reader takes it`,
    );
    const lines = fs.readFileSync(path.join(DIR, name), 'utf8').split('\n').length;
    for (const n of r.notes) {
      const m = /^(.+):(\d+)$/.exec(n.at);
      t.ok(
        m && m[1] === name && Number(m[2]) >= 1 && Number(m[2]) <= lines,
        `${name}: "${n.at}" is a line of the file`,
      );
    }
  }
});

t.test("Gatus's config.yaml: groups as portfolios, URLs split, dns and icmp, what dommon does itself", async (t) => {
  const r = run('config.yaml');
  t.same(r.file.portfolios, [{ name: 'core' }]);
  t.same(
    r.file.domains!.map((d) => [d.name, d.portfolio, d.endpoints.map((e) => `${e.name}:${e.type}`)]),
    [
      ['twin.sh', 'core', ['front-end:https']],
      [
        'example.org',
        'core',
        ['back-end:https', 'monitoring:https', 'nas:https', 'icmp-ping:icmp', 'check-domain-expiration:https'],
      ],
      ['example.com', undefined, ['example-dns-query:dns']],
    ],
  );
  t.same(endpoint(r.file, 'twin.sh/front-end'), {
    name: 'front-end',
    type: 'https',
    path: '/health',
    liveness: {
      interval_seconds: 300,
      conditions: ['[STATUS] == 200', '[BODY].status == UP', '[RESPONSE_TIME] < 150'],
      follow_redirects: true,
    },
  });
  t.same(endpoint(r.file, 'example.com/example-dns-query'), {
    name: 'example-dns-query',
    type: 'dns',
    record_type: 'A',
    resolver: '8.8.8.8',
    liveness: { interval_seconds: 300, conditions: ['[BODY] == 93.184.215.14', '[DNS_RCODE] == NOERROR'] },
  });
  t.same(
    endpoint(r.file, 'example.org/icmp-ping'),
    { name: 'icmp-ping', type: 'icmp', liveness: { interval_seconds: 60, conditions: ['[CONNECTED] == true'] } },
    'icmp checks take conditions, carried over as written',
  );
  t.same(
    r.notes.map((n) => `${n.at}: ${n.message}`),
    [
      'config.yaml:19: group "internal" not carried over for monitoring: its domain example.org is in portfolio "core" already (a domain is in one portfolio)',
      'config.yaml:26: group "internal" not carried over for nas: its domain example.org is in portfolio "core" already (a domain is in one portfolio)',
    ],
  );
  t.same(
    endpoint(r.file, 'example.org/check-domain-expiration').liveness.conditions,
    ['[DOMAIN_EXPIRATION] > 720h'],
    "dommon's http checks read the domain's registration expiry",
  );
  t.same(r.secrets, []);
});

t.test('alerting providers become channels; secrets become ${NAME} references, never the values', async (t) => {
  const r = run('features.yaml');
  const text = JSON.stringify(r.file);
  // (An external endpoint's token is kept as its ping key, as an export writes ping keys: the next test.)
  for (const secret of [
    '123456789:EXAMPLE-TOKEN',
    'EXAMPLE-PASSWORD',
    '00000000000000000000000000000000',
    'a3VtYTpzM2NyZXQ=',
    's3cret',
  ])
    t.notOk(text.includes(secret), `${secret} is not in the file`);
  t.same(r.file.channels, [
    { type: 'telegram', delivery_class: 'instant', bot_token: '${TELEGRAM_BOT_TOKEN}', chat_id: '-100123456' },
    {
      type: 'ntfy',
      delivery_class: 'instant',
      topic: 'gatus-alerts',
      server_url: 'https://ntfy.example.com',
      token: '${NTFY_TOKEN}',
    },
    { type: 'pagerduty', delivery_class: 'instant', routing_key: '${PAGERDUTY_ROUTING_KEY}' },
    { type: 'email', delivery_class: 'instant', recipients: ['ops@example.com', 'oncall@example.com'] },
    { type: 'webhook', delivery_class: 'instant', webhook_url: 'https://hooks.example.com/gatus' },
  ]);
  t.same(
    r.secrets.map((s) => s.name),
    ['TELEGRAM_BOT_TOKEN', 'NTFY_TOKEN', 'PAGERDUTY_ROUTING_KEY', 'API_TOKEN', 'ADMIN_PASSWORD'],
    "ntfy's own ${NTFY_TOKEN} is kept as it was written",
  );
  t.same(endpoint(r.file, 'example.com/api'), {
    name: 'api',
    type: 'https',
    subdomain: 'api',
    path: '/v1/health?deep=1',
    port: 8443,
    liveness: {
      interval_seconds: 45,
      failure_threshold: 2,
      method: 'POST',
      auth: { type: 'bearer', token: '${API_TOKEN}' },
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': '${API_KEY}' },
      body: '{"probe": "api"}',
      conditions: ['[STATUS] == 200', '[BODY].status == UP', '[CONNECTED] == true'],
      timeout_seconds: 5,
      follow_redirects: true,
    },
  });
  t.same(
    endpoint(r.file, 'example.com/graphql').liveness,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"query":"{ user(id: 1) { name } }"}',
      conditions: ['[STATUS] == 200', '[BODY].data.user.name == john'],
    },
    'graphql: the body wrapped as Gatus sends it; ignore-redirect: true is dommon default',
  );
  t.same(endpoint(r.file, 'example.net/admin').liveness.auth, {
    type: 'basic',
    username: 'kuma',
    password: '${ADMIN_PASSWORD}',
  });
  t.same(endpoint(r.file, 'example.com/mail'), {
    name: 'mail',
    type: 'smtp',
    subdomain: 'smtp',
    port: 587,
    liveness: { interval_seconds: 600 },
  });
  t.same(endpoint(r.file, 'example.net/ping').liveness, { is_enabled: false, conditions: ['[CONNECTED] == true'] });
  t.same(
    endpoint(r.file, 'example.com/nightly-backup'),
    {
      name: 'nightly-backup',
      type: 'push',
      period_seconds: 86400,
      grace_seconds: 60,
      ping_key: 'EXAMPLE-TOKEN-2',
      liveness: { failure_threshold: 3 },
    },
    'external endpoint: a push monitor with the heartbeat as its period and its token as the ping key',
  );
  t.same(r.file.maintenance_windows, [
    {
      name: 'Gatus maintenance',
      cron: '0 2 * * 0,6',
      duration_minutes: 120,
      timezone: 'UTC',
      domains: ['example.com', 'example.net'],
    },
  ]);
  const notes = r.notes.map((n) => `${n.at}: ${n.message}`);
  for (const want of [
    /^features.yaml:13: alerting.ntfy.priority: not carried over/,
    /^features.yaml:19: alerting.email.password: not carried over: dommon sends mail through the relay DOMMON_SMTP_URL/,
    /^features.yaml:28: alerting.twilio: not carried over: dommon has no twilio channel$/,
    /^features.yaml:52: endpoint "api": alerts with failure thresholds 5, 2: dommon uses the lowest, 2$/,
    /^features.yaml:53: endpoint "api": alert pagerduty success-threshold not carried over/,
    /^features.yaml:56: endpoint "api": alert "twilio" not carried over: dommon has no twilio channel$/,
    /^features.yaml:50: endpoint "api": client.insecure not carried over/,
    /^features.yaml:75: endpoint "mail": condition "\[CERTIFICATE_EXPIRATION\] > 48h" not carried over: smtp checks take no conditions$/,
    /^features.yaml:78: endpoint "ssh": not carried over: dommon has no ssh:\/\/ checks$/,
    /^features.yaml:91: endpoint "db": condition "\[RESPONSE_TIME\] < 100" not carried over: port checks take no conditions$/,
    /^features.yaml:100: endpoint "ping": ui not carried over/,
    /^features.yaml:109: endpoint "mx": condition "\[STATUS\] == 200" not carried over: dns checks have no \[STATUS\]$/,
    /^features.yaml:112: endpoint "udp": not carried over: dommon has no udp:\/\/ checks$/,
    /^features.yaml:124: external endpoint "nightly-backup": carried over as a push monitor under example.com: .*its token is its ping key: the job's POST to \/api\/v1\/endpoints\/backend_nightly-backup\/external with that Bearer token keeps working/,
    /^features.yaml:131: external endpoint "adhoc": no heartbeat interval/,
  ])
    t.ok(
      notes.some((n) => want.test(n)),
      `reported: ${want.source}`,
    );
  t.same(
    notes.filter((n) => / api: | api"/.test(n) && /Authorization/.test(n)),
    [],
    'a Bearer Authorization header is carried over (as auth), not reported',
  );
});

t.test('README examples: endpoint maintenance windows, names made unique, --push-domain', async (t) => {
  const r = run('readme-snippets.yaml', { pushDomain: 'status.example.com' });
  t.same(
    r.file.maintenance_windows!.map((w) => [w.name, w.cron, w.duration_minutes, w.timezone, w.endpoints ?? w.domains]),
    [
      ['endpoint-1 maintenance', '30 7 * * *', 40, 'Europe/Berlin', ['example.org/endpoint-1']],
      ['endpoint-1 maintenance 2', '30 14 * * *', 60, 'Europe/Berlin', ['example.org/endpoint-1']],
      [
        'Gatus maintenance',
        '0 23 * * 1,4',
        60,
        'Europe/Amsterdam',
        ['twin.sh', 'example.org', 'health.api', 'protected.app', 'example.com'],
      ],
    ],
  );
  t.same(endpoint(r.file, 'twin.sh/website-2')?.liveness, {
    conditions: ['[STATUS] == 200'],
    timeout_seconds: 10,
    follow_redirects: true,
  });
  t.same(endpoint(r.file, 'example.com/ext-ep-test'), {
    name: 'ext-ep-test',
    type: 'push',
    subdomain: 'status',
    period_seconds: 1800,
    grace_seconds: 60,
  });
  const notes = r.notes.map((n) => `${n.at}: ${n.message}`);
  t.ok(
    notes.includes(
      'readme-snippets.yaml:20: endpoint "website" named "website-2": twin.sh has an endpoint of that name already',
    ),
  );
  t.ok(notes.includes('readme-snippets.yaml:95: tunneling: not carried over: dommon has no SSH tunnels'));
  t.ok(
    notes.includes(
      'readme-snippets.yaml:69: endpoint "example": alert "slack" not carried over: alerting.slack is not configured',
    ),
  );
  t.same(run('examples/tcp.yaml').file, { version: 1 }, 'endpoints on IP addresses have no domain');
  t.equal(run('examples/tcp.yaml').notes.length, 2);
});

t.test('the built command: stdout, -o, --json, a file that is no YAML', async (t) => {
  await ensureBuilt();
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fixture = path.join(DIR, 'features.yaml');
  const out = await cli(['import', 'gatus', fixture]);
  t.equal(out.code, 0, 'exit 0');
  t.same(parse(out.stdout), run('features.yaml').file, 'stdout is the file');
  t.match(
    out.stdout,
    /^# yaml-language-server: \$schema=http:\/\/127\.0\.0\.1:8080\/api\/v1\/config\/schema\.json\n# Made by `dommon import gatus .*features.yaml`/,
  );
  // The schema line names where this installation's daemon serves it: its public URL, else its address.
  const schemaLine = async (env: Record<string, string>) =>
    (await cli(['import', 'gatus', fixture], { env })).stdout.split('\n')[0];
  t.equal(
    await schemaLine({ DOMMON_PUBLIC_URL: 'https://mon.example.com/dommon/' }),
    '# yaml-language-server: $schema=https://mon.example.com/dommon/api/v1/config/schema.json',
  );
  t.equal(
    await schemaLine({ DOMMON_HOST: '0.0.0.0', DOMMON_PORT: '9123' }),
    '# yaml-language-server: $schema=http://127.0.0.1:9123/api/v1/config/schema.json',
  );
  t.same(applyErrors(out.stdout), [], 'what the command writes, the file reader takes');
  t.match(out.stdout, /# {3}TELEGRAM_BOT_TOKEN: alerting.telegram.token\n/);
  t.match(
    out.stderr,
    new RegExp(`^${fixture.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:13: alerting.ntfy.priority: not carried over`, 'm'),
  );
  t.match(
    out.stderr,
    /^secrets: the file reads these variables when applied: TELEGRAM_BOT_TOKEN \(alerting.telegram.token\); /m,
  );

  const file = path.join(dir, 'dommon.yaml');
  const written = await cli(['import', 'gatus', fixture, '-o', file]);
  t.equal(written.code, 0, 'exit 0');
  t.equal(written.stdout, '');
  t.equal(fs.readFileSync(file, 'utf8'), out.stdout);
  t.match(
    written.stderr,
    /wrote .*dommon.yaml: 2 domain\(s\), 9 endpoint\(s\), 2 portfolio\(s\), 5 channel\(s\), 1 maintenance window\(s\), 0 status page\(s\)/,
  );

  const json = await cli(['--json', 'import', 'gatus', fixture]);
  t.equal(json.code, 0, 'exit 0');
  t.same(json.json, run('features.yaml').file, '--json: the file as JSON');

  const pushed = await cli(['import', 'gatus', path.join(DIR, 'readme-snippets.yaml'), '--push-domain', 'example.org']);
  t.equal(endpoint(parse(pushed.stdout), 'example.org/ext-ep-test')?.type, 'push');

  const bad = path.join(dir, 'bad.yaml');
  fs.writeFileSync(bad, 'endpoints:\n  - name: a\n    url: [unclosed\n');
  const refused = await cli(['import', 'gatus', bad]);
  t.equal(refused.code, 2, 'not YAML: exit 2');
  t.match(refused.stderr, /^dommon: .*bad.yaml:\d+: not valid YAML: /);
  t.equal(refused.stdout, '');
  const missing = await cli(['import', 'gatus', path.join(dir, 'nope.yaml')]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read .*nope.yaml: ENOENT/);
});
