// `dommon apply -f FILE` on a data directory, as the contract fixes it: the plan printed, exit 0
// applied; the same file again "no changes", exit 0; --dry-run writes nothing; an invalid file lists
// every error as file:line:col on stderr, exit 2, nothing applied; --json is the plan as one document.
// With --remote, the same through a daemon's API (the file's variables sent with it), and `export` too.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cli, ensureBuilt } from '../support/cli.js';
import { request, startApp, tempDir } from '../support/app.js';

t.test('dommon apply', async (t) => {
  await ensureBuilt();
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) => cli(['--data-dir', dir, ...args], { env });
  t.equal((await run(['token', 'create', '--team', 'ops'])).code, 0);
  const file = path.join(dir, 'dommon.yaml');
  fs.writeFileSync(
    file,
    'version: 1\nportfolios:\n  - name: Web\ndomains:\n  - name: example.com\n    portfolio: Web\n    endpoints:\n      - { name: www, type: https, subdomain: www, liveness: { interval_seconds: 60 } }\n',
  );

  const dry = await run(['apply', '-f', file, '--dry-run']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(
    dry.stdout,
    /^\+ portfolio Web\n\+ domain example\.com\n\+ endpoint example\.com\/www\n\+ liveness example\.com\/www\n/,
  );
  t.match(dry.stdout, /dry run: nothing applied/);
  t.equal((await run(['domains', 'list', '--json'])).json.data.length, 0, 'the dry run wrote nothing');

  const applied = await run(['apply', '-f', file, '--json']);
  t.equal(applied.code, 0, applied.stderr);
  t.equal(applied.json.applied, true);
  t.same(applied.json.summary.domain, { create: 1, update: 0, delete: 0 });
  t.equal((await run(['domains', 'list', '--json'])).json.data.length, 1);

  const again = await run(['apply', '-f', file]);
  t.equal(again.code, 0);
  t.equal(again.stdout.trim(), 'no changes');

  fs.writeFileSync(file, 'version: 1\nportfolios:\n  - name: Web\n    colour: blue\n  - nom: x\n');
  const bad = await run(['apply', '-f', file]);
  t.equal(bad.code, 2);
  t.equal(
    bad.stderr,
    `${file}:4:5: portfolios.0.colour: unknown field\n${file}:5:5: portfolios.1: name is required\n${file}:5:5: portfolios.1.nom: unknown field\ndommon: ${file}: 3 error(s), nothing applied\n`,
  );
});

t.test('dommon apply and export --remote: the same plan and file through a daemon', async (t) => {
  await ensureBuilt();
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('remote-ops');
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const remote = (args: string[], env: Record<string, string> = {}) =>
    cli(['--remote', s.url, '--token', token, ...args], { env });
  const file = path.join(dir, 'dommon.yaml');
  fs.writeFileSync(
    file,
    'version: 1\nchannels:\n  - type: webhook\n    webhook_url: https://hooks.example.test/d\n    secret_key: ${HOOK_SECRET}\ndomains:\n  - name: example.net\n    endpoints:\n      - { name: www, type: https, subdomain: www }\n',
  );
  const env = { HOOK_SECRET: 'remote-secret-1' };

  const dry = await remote(['apply', '-f', file, '--dry-run'], env);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /^\+ channel webhook instant\n\+ domain example\.net\n\+ endpoint example\.net\/www\n/);
  t.match(dry.stdout, /dry run: nothing applied/);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).body.data.length, 0, 'the dry run wrote nothing');

  const applied = await remote(['apply', '-f', file], env);
  t.equal(applied.code, 0, applied.stderr);
  t.match(applied.stdout, /\napplied$/m);
  const hook = (await request(s.url, 'GET', '/api/v1/notifications/settings', { token })).body.find(
    (r: { notification_type: string }) => r.notification_type === 'webhook',
  );
  t.match(hook.config.secret_key, /^\*{8}et-1$/, "the variable's value went with the file");
  t.equal((await remote(['apply', '-f', file], env)).stdout.trim(), 'no changes');

  // Without the variable: every error at its place, exit 2, nothing applied.
  const unset = await remote(['apply', '-f', file]);
  t.equal(unset.code, 2);
  t.match(
    unset.stderr,
    new RegExp(
      `^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5:17: channels\\.0\\.secret_key: the variable HOOK_SECRET is not set\n`,
    ),
  );

  const out = await remote(['export']);
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /\n {2}- name: example\.net\n {4}endpoints:\n {6}- name: www\n/);
  t.match(out.stderr, /^secrets: the file reads these variables when applied: /);
});
