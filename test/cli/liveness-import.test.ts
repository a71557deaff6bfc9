// `dommon liveness import FILE`: CSV or JSON, against a daemon (--remote) and on the local database,
// --json as one document, skipped and failed rows by line, exit codes (1 when a row failed, 2 for a
// file that cannot be read as CSV or JSON), and the progress bar only on a terminal.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, startApp, tempDir } from '../support/app.js';
import { BIN, cleanEnv, cli, cliIn, ensureBuilt } from '../support/cli.js';
import { parseLivenessImport } from '../../src/cli/commands/liveness.js';
import { UsageError } from '../../src/cli/output.js';

t.setTimeout(240_000);
t.before(ensureBuilt);

const MISSING = '00000000-0000-4000-8000-000000000000';

function files(t: { teardown(fn: () => unknown): void }) {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return (name: string, text: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };
}

t.test('parsing: CSV cells become API values, JSON is taken as the bulk route takes it', async (t) => {
  const csv = parseLivenessImport(
    '\uFEFFEndpoint_ID;interval_seconds;is_enabled;expected_status_code\n# probes\n\n"a", 30 ,no,\nb,soon,maybe,204\n',
  );
  t.same(
    csv,
    [
      { line: 4, name: 'a', body: { endpoint_id: 'a', interval_seconds: 30, is_enabled: false } },
      {
        line: 5,
        name: 'b',
        body: { endpoint_id: 'b', interval_seconds: 'soon', is_enabled: 'maybe', expected_status_code: 204 },
      },
    ],
    'header any case, ; delimiter, comments and blank lines skipped, empty cells left out, bad cells sent as they are',
  );
  t.same(parseLivenessImport('endpoint_id\n'), [], 'a header alone: nothing to import');
  const json = [{ endpoint_id: 'a', interval_seconds: 5 }, { endpoint_id: 7 }];
  t.same(parseLivenessImport(` ${JSON.stringify(json)}`), [
    { line: 1, name: 'a', body: json[0] },
    { line: 2, name: '', body: json[1] },
  ]);
  t.same(
    parseLivenessImport(JSON.stringify({ liveness: json })),
    parseLivenessImport(JSON.stringify(json)),
    '{ "liveness": [...] } as the bulk body',
  );
  const bad: [string, RegExp][] = [
    ['', /empty file/],
    ['\n\n', /empty file/],
    ['interval_seconds\n30\n', /needs an endpoint_id column/],
    ['endpoint_id,colour\na,red\n', /line 1: unknown column "colour"/],
    ['endpoint_id\na,b\n', /line 2: 2 fields, the header has 1/],
    ['endpoint_id\n"a\n', /not valid CSV/],
    ['[{"endpoint_id": "a"}', /not valid JSON/],
    ['{"configs": []}', /array of liveness configurations/],
    ['[{"endpoint_id": "a"}, "b"]', /item 2: must be an object/],
  ];
  for (const [text, msg] of bad) {
    let err: unknown;
    try {
      parseLivenessImport(text);
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof UsageError, JSON.stringify(text));
    t.match((err as Error).message, msg);
  }
});

t.test('--remote: CSV and JSON, skipped and failed rows, --json and text', { timeout: 120_000 }, async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const token = await s.token('ops');
  const api = client(s.url, token);
  const run = (...args: string[]) => cli(['--remote', s.url, '--token', token, ...args]);
  const file = files(t);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const [e1, e2, e3, e4, e5] = await Promise.all(
    ['a', 'b', 'c', 'd', 'e'].map(
      async (name) =>
        (await api.post('/api/v1/endpoints', { domain_id: d.id, name, endpoint_type: 'https' })).body.id as string,
    ),
  );
  await api.post('/api/v1/liveness', { endpoint_id: e3 });

  const csv = file(
    'probes.csv',
    [
      'endpoint_id,interval_seconds,timeout_seconds,expected_status_code,failure_threshold,is_enabled',
      `${e1},30,5,204,2,true`,
      `${e2},,,,,`,
      `${e1.toUpperCase()},60,,,,`,
      `${e3},10,,,,`,
      `${MISSING},10,,,,`,
      `${e4},soon,,,,`,
    ].join('\n'),
  );
  const r = await run('liveness', 'import', csv, '--json');
  t.equal(r.code, 1, 'a failed row makes the exit code 1');
  t.equal(r.stderr, '', 'no progress bar when stderr is not a TTY, no error line');
  t.match(r.json, { created: 2, skipped: 2, failed: 2, total: 6 });
  t.same(r.json.skipped_endpoints, [
    { line: 4, endpoint_id: e1.toUpperCase(), reason: 'repeated in the file' },
    { line: 5, endpoint_id: e3, reason: 'already configured' },
  ]);
  t.same(
    r.json.errors.map((e: any) => [e.line, e.endpoint_id]),
    [
      [6, MISSING],
      [7, e4],
    ],
  );
  t.match(r.json.errors[0].error, /Endpoint not found/);
  t.match(r.json.errors[1].error, /interval_seconds/);
  const configs = (await api.get('/api/v1/liveness')).body.data;
  t.match(
    configs.find((c: any) => c.endpoint_id === e1),
    { interval_seconds: 30, timeout_seconds: 5, expected_status_code: 204, failure_threshold: 2, is_enabled: true },
  );
  t.match(
    configs.find((c: any) => c.endpoint_id === e2),
    { interval_seconds: 60, timeout_seconds: 10, expected_status_code: 200 },
    'empty cells take the defaults',
  );

  // JSON ({ "liveness": [...] }) with a default for every row from the options; text output.
  const json = file(
    'probes.json',
    JSON.stringify({ liveness: [{ endpoint_id: e4 }, { endpoint_id: e5, interval_seconds: 300 }] }),
  );
  const j = await run('liveness', 'import', json, '--interval', '45');
  t.equal(j.code, 0, j.stderr);
  t.equal(j.stdout, '2 created, 0 skipped, 0 failed\n');
  const after = (await api.get('/api/v1/liveness?limit=100')).body.data;
  t.equal(after.find((c: any) => c.endpoint_id === e4).interval_seconds, 45, '--interval fills rows that leave it out');
  t.equal(after.find((c: any) => c.endpoint_id === e5).interval_seconds, 300, 'a row that sets it keeps its own');

  // A JSON array on stdin: everything is there already.
  const again = await cli(['liveness', 'import', '-'], {
    input: JSON.stringify([{ endpoint_id: e1 }, { endpoint_id: e2 }]),
    env: { DOMMON_URL: s.url, DOMMON_TOKEN: token },
  });
  t.equal(again.code, 0, again.stderr);
  t.equal(again.stdout, '0 created, 2 skipped, 0 failed\n');
  const failedText = await run('liveness', 'import', file('one.csv', `endpoint_id\n${MISSING}\n`));
  t.equal(failedText.code, 1);
  t.equal(failedText.stdout, `0 created, 0 skipped, 1 failed\n  line 2: ${MISSING}: Endpoint not found\n`);

  // A file that is not CSV or JSON: exit 2, one line on stderr, nothing on stdout; nothing was sent.
  // (Each way a file can be unreadable is parseLivenessImport's, tested above; the command parses
  // the whole file, whatever its name, before it sends anything.)
  const bad = await run('liveness', 'import', file('bad.csv', 'endpoint_id,colour\nx,red\n'), '--json');
  t.equal(bad.code, 2, bad.stderr);
  t.equal(bad.stdout, '');
  t.match(bad.stderr, /^dommon: line 1: unknown column "colour"[^\n]*\n$/);
  t.equal((await api.get('/api/v1/liveness')).body.total, 5, 'nothing was sent');
  const missing = await run('liveness', 'import', path.join(path.dirname(csv), 'nope.csv'));
  t.equal(missing.code, 1, 'an unreadable file exits 1, as domains import does');
  t.match(missing.stderr, /^dommon: cannot read .*nope\.csv: ENOENT\n$/);
});

/** `dommon ...args` under `script`, so stdout and stderr are a terminal (stdout goes to `out`). */
function inTerminal(args: string[], out: string): Promise<{ code: number | null; screen: string }> {
  const cmd = `${[process.execPath, BIN, ...args].map((a) => JSON.stringify(a)).join(' ')} > ${JSON.stringify(out)}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.on('data', (c) => (screen += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, screen }));
  });
}

t.test(
  'local database: the same import without a daemon; the progress bar on a terminal',
  { timeout: 120_000 },
  async (t) => {
    const dir = tempDir();
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const run = cliIn(dir);
    const file = files(t);
    t.equal((await run('token', 'create', '--team', 'ops')).code, 0);
    t.equal((await run('domains', 'add', 'example.com')).code, 0);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c'])
      ids.push(
        (await run('endpoints', 'add', '--domain', 'example.com', '--name', name, '--type', 'http', '--json')).json.id,
      );

    const r = await run('liveness', 'import', file('p.csv', `endpoint_id,interval_seconds\n${ids[0]},15\n`), '--json');
    t.equal(r.code, 0, r.stderr);
    t.same(r.json, { created: 1, skipped: 0, failed: 0, total: 1, errors: [], skipped_endpoints: [] });
    const list = await run('liveness', 'list', '--json');
    t.same(
      list.json.data.map((c: any) => [c.endpoint_id, c.interval_seconds]),
      [[ids[0], 15]],
    );

    const hasScript = await new Promise((r) =>
      spawn('script', ['--version'])
        .once('error', () => r(false))
        .once('close', (c) => r(c === 0)),
    );
    if (!hasScript) {
      t.pass('the progress bar on a terminal', { skip: 'script (util-linux) is not installed' });
      return;
    }
    const out = path.join(dir, 'out.json');
    const tty = await inTerminal(
      [
        '--data-dir',
        dir,
        'liveness',
        'import',
        file('p.json', JSON.stringify(ids.slice(1).map((endpoint_id) => ({ endpoint_id })))),
        '--json',
      ],
      out,
    );
    t.equal(tty.code, 0, tty.screen);
    t.match(tty.screen, /\rimporting \[#{30}\] 2\/2/, 'the bar reaches the end on stderr');
    t.match(tty.screen, /\r\u001b\[2K/, 'and is cleared');
    t.same(
      JSON.parse(fs.readFileSync(out, 'utf8')),
      { created: 2, skipped: 0, failed: 0, total: 2, errors: [], skipped_endpoints: [] },
      'stdout holds the one JSON document',
    );
    const bad = await run('liveness', 'import', file('bad.json', '{"liveness": {}}'));
    t.equal(bad.code, 2);
    t.equal(bad.stderr, 'dommon: JSON must be an array of liveness configurations or { "liveness": [...] }\n');
  },
);
