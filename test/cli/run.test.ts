// `dommon run --ping KEY -- CMD` against a real daemon: start and finish pings with the exit status and
// the tail of the output, the job's stdio passed through, dommon exiting with the job's status, and a
// ping that cannot be delivered changing nothing but a warning on stderr.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { closedPort } from '../support/targets.js';

t.setTimeout(180_000);

t.test('dommon run reports a cron job to its push endpoint', async (t) => {
  await ensureBuilt();
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('run'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'job',
      endpoint_type: 'push',
      period_seconds: 3600,
    })
  ).body;
  const pings = async () => (await api.get(`/api/v1/endpoints/${ep.id}/pings`)).body.pings;
  const status = async () => (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body;

  // A failing job: its status is dommon's, its output passes through and its tail is the ping's body.
  const failed = await cli([
    'run',
    '--ping',
    ep.ping_key,
    '--ping-url',
    s.url,
    '--',
    process.execPath,
    '-e',
    "console.log('x'.repeat(20000) + 'last line'); console.error('oops'); setTimeout(() => process.exit(3), 200)",
  ]);
  t.equal(failed.code, 3, 'the job exit status');
  t.match(failed.stdout, /x{20000}last line\n$/, 'stdout passed through in full');
  t.match(failed.stderr, /^oops\n$/, 'stderr passed through, no warning');
  const [fail, start] = await pings();
  t.same([fail.kind, fail.exit_status, start.kind], ['fail', 3, 'start']);
  t.ok(fail.duration_ms >= 200, `the run took ${fail.duration_ms} ms, from the start ping`);
  t.ok(fail.body.length <= 10_000 && fail.body.length >= 9_000, `the output's tail only: ${fail.body.length} chars`);
  t.match(fail.body, /last line\n/);
  t.match(fail.body, /oops\n/);
  t.equal((await status()).status, 'down');

  // A job that succeeds, with the base URL from DOMMON_URL: up again.
  const ok = await cli(['run', '--ping', ep.ping_key, '--', process.execPath, '-e', "console.log('fine')"], {
    env: { DOMMON_URL: s.url },
  });
  t.same([ok.code, ok.stdout, ok.stderr], [0, 'fine\n', '']);
  t.same(
    (await pings()).slice(0, 2).map((p: { kind: string; exit_status: number | null }) => [p.kind, p.exit_status]),
    [
      ['success', null],
      ['start', null],
    ],
  );
  t.equal((await status()).status, 'up');

  // A command that does not exist: 127 as a shell says, reported as such.
  const missing = await cli(['run', '--ping', ep.ping_key, '--ping-url', s.url, '--', '/nonexistent/job']);
  t.equal(missing.code, 127);
  t.match(missing.stderr, /command not found/);
  t.same([(await pings())[0].kind, (await pings())[0].exit_status], ['fail', 127]);

  // Pings that cannot be delivered: retried, warned about, and the job's status stays dommon's.
  const port = await closedPort();
  const lost = await cli([
    'run',
    '--ping',
    ep.ping_key,
    '--ping-url',
    `http://127.0.0.1:${port}`,
    '--ping-timeout',
    '2',
    '--',
    process.execPath,
    '-e',
    'process.exit(5)',
  ]);
  t.equal(lost.code, 5);
  const warnings = lost.stderr.split('\n').filter((l) => l.startsWith('dommon run: warning: ping'));
  t.equal(warnings.length, 2, 'the start and the finish ping each warned once');
  t.notMatch(lost.stderr, ep.ping_key, 'the key is not printed in full');
  // An unknown key: 404, not retried, warned; the job still ran.
  const unknown = await cli([
    'run',
    '--ping',
    '00000000-0000-4000-8000-000000000000',
    '--ping-url',
    s.url,
    '--',
    process.execPath,
    '-e',
    "console.log('ran')",
  ]);
  t.same([unknown.code, unknown.stdout], [0, 'ran\n']);
  t.match(unknown.stderr, /HTTP 404/);
  // No base URL at all: a usage error, and the job does not run.
  const nowhere = await cli(['run', '--ping', ep.ping_key, '--', process.execPath, '-e', "console.log('ran')"]);
  t.same([nowhere.code, nowhere.stdout], [2, '']);
});
