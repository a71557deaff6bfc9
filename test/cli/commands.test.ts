// The built CLI's resource commands in text and --json with their exit codes. They run with --remote
// against the real app on a loopback port (a child that skips loading the app starts in ~0.3 s);
// test/cli/local.test.ts runs the same commands on a temp data dir without a daemon.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startApp, tempDir } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { ENDPOINT_TYPES } from '../../src/probes/registry.js';

// Child processes cost ~0.3-1 s each on a loaded machine; commands run in parallel batches below.
t.setTimeout(240_000);
t.before(ensureBuilt);

async function daemon(t: { teardown(fn: () => unknown): void }) {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const token = await s.token('ops');
  return { s, token, run: (...args: string[]) => cli(['--remote', s.url, '--token', token, ...args]) };
}

t.test('resource commands: text and --json, exit codes 0/2/3/4', { timeout: 120_000 }, async (t) => {
  const { run } = await daemon(t);
  // Independent commands run side by side; each batch depends only on the ones before it.
  const pf = await run('--json', 'portfolios', 'add', 'clients', '--description', 'customer domains');
  t.equal(pf.code, 0, pf.stderr);
  t.equal(pf.json.name, 'clients');

  const [add, add2] = await Promise.all([
    run('domains', 'add', 'example.com', '--notes', 'main site', '--portfolio', pf.json.id),
    run('domains', 'add', 'example.org', '--json', '--expiry-date', '2030-01-31'),
  ]);
  t.equal(add.code, 0, add.stderr);
  t.match(add.stdout, /^domain\s+example\.com$/m, 'text detail is key/value lines');
  t.match(add.stdout, /^notes\s+main site$/m);
  t.equal(add2.json.domain, 'example.org');
  t.equal(add2.json.expiry_date, '2030-01-31');

  const usage = [
    ['domains', 'bogus'],
    ['domains', 'list', '--limit', 'ten'],
    ['endpoints', 'add', '--domain', 'example.com', '--name', 'w'],
    ['endpoints', 'add', '--domain', 'example.com', '--name', 'w', '--type', 'ftp'],
    ['domains', 'add', 'not a domain'],
  ];
  const [dup, list, lj, show, missing, ep, ...bad] = await Promise.all([
    run('domains', 'add', 'EXAMPLE.com'),
    run('domains', 'list'),
    run('--json', 'domains', 'list', '--domain', 'org', '--limit', '1'),
    run('domains', 'show', 'example.com', '--json'),
    run('domains', 'show', 'nope.com'),
    run(
      'endpoints',
      'add',
      '--domain',
      'example.com',
      '--name',
      'web',
      '--type',
      'https',
      '--subdomain',
      'www',
      '--json',
    ),
    ...usage.map((a) => run(...a)),
  ]);
  t.equal(dup.code, 4, 'conflict exits 4');
  t.equal(dup.stdout, '');
  t.match(dup.stderr, /^dommon: .*already exists.*\n$/);
  t.equal(dup.stderr.split('\n').length, 2, 'one line on stderr');

  t.equal(list.code, 0);
  const lines = list.stdout.trim().split('\n');
  t.match(lines[0], /^ID\s+DOMAIN\s+VERIFIED\s+GRADE\s+EXPIRES\s+PORTFOLIO$/);
  t.equal(lines.length, 4, 'header, two rows, total');
  t.equal(lines[1]!.indexOf('example.'), lines[0]!.indexOf('DOMAIN'), 'columns are aligned');
  t.equal(lines[2]!.indexOf('example.'), lines[0]!.indexOf('DOMAIN'));
  t.match(lines[3], /^2 total$/);
  t.notMatch(list.stdout, /\u001b\[/, 'no colour when stdout is not a TTY');

  t.same(
    lj.json.data.map((d: any) => d.domain),
    ['example.org'],
  );
  t.match(lj.json.pagination, { total: 1, limit: 1 });
  t.equal(show.code, 0, show.stderr);
  t.equal(show.json.domain, 'example.com');
  t.equal(show.json.endpoints, undefined);
  t.equal(show.json.portfolio_id, pf.json.id);
  t.equal(missing.code, 3, 'not found exits 3');
  t.match(missing.stderr, /^dommon: domain nope\.com not found\n$/);
  bad.forEach((r, i) => {
    t.equal(r.code, 2, `usage: ${usage[i]!.join(' ')} -> ${r.stderr}`);
    t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${usage[i]!.join(' ')}`);
    t.match(r.stderr, /^dommon: /);
  });
  t.equal(ep.code, 0, ep.stderr);
  t.equal(ep.json.full_url, 'https://www.example.com/');

  const [epDup, withEps, epUpd, badBool, lv] = await Promise.all([
    run('endpoints', 'add', '--domain', 'example.com', '--name', 'web', '--type', 'http'),
    run('domains', 'show', 'example.com', '--include-endpoints', '--json'),
    run('endpoints', 'update', ep.json.id, '--enabled', 'false', '--path', '/health', '--json'),
    run('endpoints', 'update', ep.json.id, '--enabled', 'maybe'),
    run(
      'liveness',
      'add',
      '--endpoint',
      ep.json.id,
      '--interval',
      '30',
      '--expected-status',
      '204',
      '--enabled',
      'false',
      '--json',
    ),
  ]);
  t.equal(epDup.code, 4);
  t.same(
    withEps.json.endpoints.map((e: any) => e.name),
    ['web'],
  );
  t.equal(epUpd.json.is_enabled, false);
  t.equal(epUpd.json.full_url, 'https://www.example.com/health');
  t.equal(badBool.code, 2);
  t.equal(lv.code, 0, lv.stderr);
  t.match(lv.json, { endpoint_id: ep.json.id, interval_seconds: 30, expected_status_code: 204 });

  const [epList, lvDup, lvShow, lvList, res, resText, stats, upd, pfBusy, pUpd] = await Promise.all([
    run('endpoints', 'list', '--domain', 'example.com'),
    run('liveness', 'add', '--endpoint', ep.json.id),
    run('liveness', 'show', lv.json.id),
    run('liveness', 'list', '--domain', 'example.com', '--json'),
    run('liveness', 'results', lv.json.id, '--hours', '2', '--json'),
    run('liveness', 'results', lv.json.id),
    run('liveness', 'stats', lv.json.id, '--days', '7'),
    run('liveness', 'update', lv.json.id, '--timeout', '5', '--json'),
    run('portfolios', 'remove', pf.json.id),
    run('portfolios', 'update', pf.json.id, '--name', 'customers', '--json'),
  ]);
  t.match(epList.stdout, /^ID\s+DOMAIN\s+NAME\s+TYPE\s+URL\s+ENABLED$/m);
  t.match(epList.stdout, /example\.com\s+web\s+https\s+https:\/\/www\.example\.com\/health\s+false/);
  t.equal(lvDup.code, 4);
  t.match(lvShow.stdout, /^endpoint_url\s+https:\/\/www\.example\.com\/health$/m);
  t.same(
    lvList.json.data.map((c: any) => c.id),
    [lv.json.id],
  );
  t.equal(res.code, 0, res.stderr);
  t.same(res.json.data, []);
  t.equal(res.json.hours, 2);
  t.match(resText.stdout, /\(none\)\n0 result\(s\) in the last 24 h/);
  t.match(stats.stdout, /7 day\(s\): 0 tests/);
  t.equal(upd.json.timeout_seconds, 5);
  t.equal(pfBusy.code, 4, 'portfolio with domains is a conflict');
  t.equal(pUpd.json.name, 'customers');

  const [rm, pList, dUpd] = await Promise.all([
    run('liveness', 'remove', lv.json.id),
    run('portfolios', 'list'),
    run('domains', 'update', 'example.com', '--notes', 'renewed', '--dkim-selectors', 's1,s2', '--json'),
  ]);
  t.match(rm.stdout, /deleted/);
  t.match(pList.stdout, /customers\s+1\s+customer domains/);
  t.equal(dUpd.json.notes, 'renewed');
  t.same(dUpd.json.dkim_selectors, ['s1', 's2']);

  const dRm = await run('domains', 'remove', 'example.com', '--json');
  t.equal(dRm.json.deleted_domain.domain, 'example.com');
  const [epGone, lvGone] = await Promise.all([
    run('endpoints', 'show', ep.json.id),
    run('liveness', 'show', lv.json.id),
  ]);
  t.equal(epGone.code, 3, 'endpoints went with the domain');
  t.equal(lvGone.code, 3);
});

t.test('notifications and renewals', { timeout: 90_000 }, async (t) => {
  const { run } = await daemon(t);
  const empty = await run('notifications', 'settings', '--json');
  const [set, digest] = await Promise.all([
    run(
      'notifications',
      'set',
      'webhook',
      '--config',
      '{"webhook_url":"http://127.0.0.1:9/old"}',
      '--webhook-url',
      'http://127.0.0.1:9/hook',
      '--secret',
      'abcdefghijkl',
      '--json',
    ),
    run('notifications', 'set', 'email', '--class', 'digest', '--frequency', '7', '--time', '9:30', '--json'),
  ]);
  t.same(empty.json, []);
  t.equal(set.code, 0, set.stderr);
  t.match(set.json, {
    notification_type: 'webhook',
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook', secret_key: '********ijkl' },
  });
  t.equal(digest.code, 0, digest.stderr);
  t.match(digest.json, { delivery_class: 'digest', frequency_days: 7, notification_time: '09:30:00' });

  const [webhookDigest, badChannel, badTime, settings, test, badRecipient, log, ren, badStatus] = await Promise.all([
    run('notifications', 'set', 'webhook', '--class', 'digest'),
    run('notifications', 'set', 'carrier-pigeon'),
    run('notifications', 'set', 'email', '--time', 'noon'),
    run('notifications', 'settings'),
    run('notifications', 'test', '--channel', 'webhook', '--recipient', 'http://127.0.0.1:9/hook', '--json'),
    run('notifications', 'test', '--channel', 'email', '--recipient', 'not-an-address'),
    run('notifications', 'log', '--limit', '5', '--json'),
    run('renewals', '--status', 'expiring_soon', '--json'),
    run('renewals', '--status', 'soon'),
  ]);
  t.equal(webhookDigest.code, 2, 'digest on webhook is a 400 -> 2');
  t.match(webhookDigest.stderr, /instant delivery only/);
  t.equal(badChannel.code, 2);
  t.equal(badTime.code, 2);
  t.match(settings.stdout, /^CHANNEL\s+CLASS\s+ENABLED/m);
  t.match(settings.stdout, /webhook\s+instant\s+true.*webhook_url=http:\/\/127\.0\.0\.1:9\/hook secret_key=\*{8}ijkl/);
  t.match(settings.stdout, /email\s+digest\s+true\s+7\s+09:30:00/);
  t.notMatch(settings.stdout, /abcdefghijkl/, 'secret never printed');
  t.equal(test.code, 0, test.stderr);
  t.equal(test.json.status, 'queued');
  t.equal(badRecipient.code, 2);
  t.equal(log.code, 0);
  t.ok(Array.isArray(log.json), 'the log is the API array');
  // GET /api/v1/renewals comes with the intel branch; before it lands the route is a 404 (exit 3)
  t.ok(ren.code === 0 || ren.code === 3, `renewals exit ${ren.code}: ${ren.stderr}`);
  if (ren.code === 0) t.ok(ren.json !== undefined, 'one JSON document');
  else t.match(ren.stderr, /^dommon: .*\n$/);
  t.equal(badStatus.code, 2, 'bad choice is a usage error');
});

t.test('domains import: lines and CSV with bad lines, stdin, report', { timeout: 90_000 }, async (t) => {
  const { s, token, run } = await daemon(t);
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  await run('domains', 'add', 'exists.com');
  const file = path.join(dir, 'domains.csv');
  fs.writeFileSync(
    file,
    [
      'domain,notes',
      'alpha.com,first',
      'not a domain',
      '# a comment',
      '',
      'exists.com',
      'ALPHA.com',
      '"beta.org","with, comma"',
      'co.uk',
    ].join('\n'),
  );
  const r = await run('domains', 'import', file, '--json');
  t.equal(r.code, 1, 'failed lines make the exit code 1');
  t.match(r.json, { created: 2, skipped: 2, failed: 2, total: 6 });
  t.same(
    r.json.errors.map((e: any) => e.line),
    [3, 9],
  );
  t.same(
    r.json.skipped_domains.map((s: any) => [s.line, s.reason]),
    [
      [6, 'already monitored'],
      [7, 'repeated in the file'],
    ],
  );
  const beta = await run('domains', 'show', 'beta.org', '--json');
  t.equal(beta.json.notes, 'with, comma', 'CSV columns map to fields');

  const again = await cli(['domains', 'import', '-'], {
    input: 'gamma.net\nalpha.com\n',
    env: { DOMMON_URL: s.url, DOMMON_TOKEN: token },
  });
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, /^1 created, 1 skipped, 0 failed$/m);
  t.equal(again.stderr, '', 'no progress bar when stderr is not a TTY');
  const missing = await run('domains', 'import', path.join(dir, 'nope.txt'));
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read .*nope\.txt: ENOENT/);
});

t.test('help, version and completion', { timeout: 90_000 }, async (t) => {
  const [help, sub, ver, bash, fish, bad] = await Promise.all([
    cli(['--help']),
    cli(['domains', 'add', '--help']),
    cli(['--version']),
    cli(['completion', 'bash']),
    cli(['completion', 'fish']),
    cli(['completion', 'tcsh']),
  ]);
  t.equal(help.code, 0);
  for (const c of [
    'domains',
    'endpoints',
    'liveness',
    'portfolios',
    'notifications',
    'token',
    'renewals',
    'serve',
    'check',
    'status',
  ])
    t.match(help.stdout, new RegExp(`^  ${c}\\b`, 'm'), c);
  t.match(sub.stdout, /Examples:\n\s+\$ dommon domains add example\.com/);
  t.match(ver.stdout, /^\d+\.\d+\.\d+\n$/);
  t.match(bash.stdout, /complete -o default -F _dommon dommon/);
  t.match(bash.stdout, /"domains"\) words_="list add show update remove import/);
  t.match(fish.stdout, /complete -c dommon -n '__fish_seen_subcommand_from liveness' -a results/);
  t.match(
    bash.stdout,
    `"endpoints add --type") words_="${ENDPOINT_TYPES.join(' ')}" ;;`,
    'option values: the endpoint types',
  );
  t.match(
    fish.stdout,
    `complete -c dommon -n '__fish_seen_subcommand_from add' -l type -xa '${ENDPOINT_TYPES.join(' ')}'`,
  );
  t.equal(bad.code, 2);
});
