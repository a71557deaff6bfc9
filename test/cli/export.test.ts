// `dommon export [-o FILE]` on a data directory: the file on standard output (or in FILE; JSON with
// --json or a .json name), the variables of its secrets' references on stderr; applied with
// `dommon apply -f` to an empty data directory, it exports the same file again.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { tempDir } from '../support/app.js';

const FILE = `version: 1
portfolios:
  - name: Web
channels:
  - type: slack
    webhook_url: https://hooks.slack.com/services/T0/B0/XXXX
domains:
  - name: example.com
    portfolio: Web
    endpoints:
      - name: www
        type: https
        subdomain: www
        liveness:
          interval_seconds: 120
`;

t.test('dommon export', async (t) => {
  await ensureBuilt();
  const a = tempDir();
  const b = tempDir();
  t.teardown(() => {
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });
  });
  const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
    cli(['--data-dir', dir, ...args], { env });
  t.equal((await run(a, ['token', 'create', '--team', 'ops'])).code, 0);
  t.equal((await run(b, ['token', 'create', '--team', 'ops'])).code, 0);
  const file = path.join(a, 'in.yaml');
  fs.writeFileSync(file, FILE);
  t.equal((await run(a, ['apply', '-f', file])).code, 0);

  const out = await run(a, ['export']);
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /^# yaml-language-server: \$schema=http:\/\/127\.0\.0\.1:8080\/api\/v1\/config\/schema\.json\n/);
  t.match(
    (await run(a, ['export'], { DOMMON_PORT: '8181' })).stdout,
    /^# yaml-language-server: \$schema=http:\/\/127\.0\.0\.1:8181\/api\/v1\/config\/schema\.json\n/,
    "the schema line names the daemon's own port",
  );
  t.match(out.stdout, /\n {4}webhook_url: \$\{DOMMON_CHANNEL_SLACK_WEBHOOK_URL\}\n/);
  t.notOk(out.stdout.includes('hooks.slack.com'), 'the webhook URL is not written');
  t.equal(
    out.stderr,
    'secrets: the file reads this variable when applied: DOMMON_CHANNEL_SLACK_WEBHOOK_URL (slack channel (instant): webhook_url)\n',
  );

  const exported = path.join(a, 'out.yaml');
  const written = await run(a, ['export', '-o', exported]);
  t.equal(written.code, 0, written.stderr);
  t.equal(fs.readFileSync(exported, 'utf8'), out.stdout, '-o writes what standard output shows');

  const asJson = await run(a, ['export', '--json']);
  t.same(JSON.parse(asJson.stdout).domains[0].endpoints[0].liveness.interval_seconds, 120);
  const jsonFile = path.join(a, 'out.json');
  t.equal((await run(a, ['export', '-o', jsonFile])).code, 0);
  t.equal(fs.readFileSync(jsonFile, 'utf8'), asJson.stdout, 'a .json name writes JSON');

  const env = { DOMMON_CHANNEL_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/XXXX' };
  const applied = await run(b, ['apply', '-f', exported], env);
  t.equal(applied.code, 0, applied.stderr);
  t.equal((await run(b, ['export'])).stdout, out.stdout, 'export -> apply elsewhere -> export: the same file');
});
