// `dommon serve --config FILE` (docs/configuration-file.md#gitops) on a real daemon: the file applied
// at start, again on SIGHUP and when it changes on disk (written in place or renamed over, as editors
// save); an invalid edit is refused with its errors in the log and the running setup stays; objects
// the file made are refused to the API and the local commands (409 / exit 4, MANAGED_BY_CONFIG naming
// the file), pausing one is allowed, and the file's prune deletes only what the file manages.
// test/pg/serve-config.test.ts runs it again on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cli, ensureBuilt, serveDaemon } from '../support/cli.js';
import { tempDir } from '../support/app.js';
import { freshPgDatabase, onPostgres } from '../support/pg.js';

t.setTimeout(240_000);

const FILE = (extra = '', notes = 'main site') => `version: 1
portfolios:
  - name: Web
domains:
  - name: example.com
    portfolio: Web
    notes: ${notes}
    endpoints:
      - name: www
        type: https
        subdomain: www
        liveness: { interval_seconds: 3600 }
${extra}`;

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

t.test('serve --config: applied at start, on SIGHUP and on change; managed objects are read-only', async (t) => {
  await ensureBuilt();
  const dir = tempDir('dommon-gitops-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env: Record<string, string> = onPostgres()
    ? { DOMMON_DATABASE_URL: (await freshPgDatabase(t, 'gitops'))! }
    : {};
  const run = (...args: string[]) => cli(['--data-dir', dir, ...args], { env });
  const made = await run('token', 'create', '--team', 'ops');
  t.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();

  const conf = tempDir('dommon-gitops-conf-');
  t.teardown(() => fs.rmSync(conf, { recursive: true, force: true }));
  const file = path.join(conf, 'dommon.yaml');
  fs.writeFileSync(file, FILE());
  const d = await serveDaemon(['--data-dir', dir], {
    ...env,
    DOMMON_CONFIG: file,
    DOMMON_LOG_LEVEL: 'info',
  });
  t.teardown(() => d.child.kill('SIGKILL'));
  const api = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${d.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json().catch(() => null)) as any };
  };
  const domains = async () =>
    new Map<string, any>((await api('GET', '/api/v1/domains')).body.data.map((x: any) => [x.domain, x]));

  // Applied at start, before the daemon said it listens; the plan summary is logged on one line.
  const ex = (await domains()).get('example.com');
  t.equal(ex?.notes, 'main site');
  t.match(d.stderr(), /configuration file applied: 4 to create, 0 to update, 0 to delete/);

  // The API refuses to change what the file manages: 409 with the spec's error body naming the file.
  const put = await api('PUT', `/api/v1/domains/${ex.id}`, { notes: 'by hand' });
  t.equal(put.status, 409);
  t.equal(put.body.code, 'MANAGED_BY_CONFIG');
  t.match(put.body.error, `managed by the configuration file ${file}`);
  t.ok(put.body.timestamp && put.body.path, 'the error body has timestamp and path');
  const eps = (await api('GET', '/api/v1/endpoints')).body.data;
  const www = eps.find((e: any) => e.name === 'www');
  t.equal((await api('DELETE', `/api/v1/endpoints/${www.id}`)).status, 409);
  const bulkDelete = await api('POST', '/api/v1/endpoints/bulk-actions', { action: 'delete', endpoint_ids: [www.id] });
  t.equal(bulkDelete.status, 200);
  t.match(JSON.stringify(bulkDelete.body), /MANAGED_BY_CONFIG/, 'bulk delete: the managed endpoint fails');
  // Pausing is operation, not configuration: allowed.
  const pause = await api('POST', '/api/v1/endpoints/bulk-actions', { action: 'pause', endpoint_ids: [www.id] });
  t.equal(pause.status, 200);
  t.notMatch(JSON.stringify(pause.body), /MANAGED_BY_CONFIG/);
  // The local commands go through the same services: exit 4, the same message.
  const local = await run('domains', 'update', ex.id, '--notes', 'by hand');
  t.equal(local.code, 4, local.stderr);
  t.match(local.stderr, /managed by the configuration file/);
  // A domain made by hand stays editable, and the file's prune leaves it alone.
  const hand = await api('POST', '/api/v1/domains', { domain: 'hand.example.org' });
  t.equal(hand.status, 201);
  t.equal((await api('PUT', `/api/v1/domains/${hand.body.id}`, { notes: 'mine' })).status, 200);

  // SIGHUP applies the edited file.
  fs.writeFileSync(file, FILE('', 'edited'));
  d.child.kill('SIGHUP');
  await until('the SIGHUP apply', async () => (await domains()).get('example.com')?.notes === 'edited');
  t.match(d.stderr(), /configuration file applied: 0 to create, 1 to update, 0 to delete/);

  // A change on disk, saved as editors do (a new file renamed over the old), is applied without a signal.
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, FILE('  - name: two.example.net\n', 'edited'));
  fs.renameSync(tmp, file);
  await until('the change to be seen', async () => (await domains()).has('two.example.net'));
  t.ok((await domains()).has('hand.example.org'));

  // Dropped from the file: deleted (the file manages it); the hand-made domain stays.
  fs.writeFileSync(file, FILE('', 'edited'));
  await until('the prune', async () => !(await domains()).has('two.example.net'));
  t.ok((await domains()).has('hand.example.org'), 'prune leaves what the file does not manage');

  // An invalid edit: every error in the log with file:line:col, and the running setup stays.
  fs.writeFileSync(file, FILE('', 'broken').replace('subdomain: www', 'subdomain: www\n        port: 70000'));
  await until('the refusal', async () => /configuration file refused/.test(d.stderr()));
  t.match(
    d.stderr(),
    new RegExp(
      `${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:12:15: domains\\.0\\.endpoints\\.0\\.port: must be <= 65535`,
    ),
  );
  t.equal((await domains()).get('example.com')?.notes, 'edited', 'the running setup stays');

  t.equal(await d.stop(), 0);

  // An invalid file at start: the daemon does not start (exit 2), the errors on stderr.
  const bad = await cli(['--data-dir', dir, 'serve', '--port', '0', '--config', file], { env });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /:12:15: domains\.0\.endpoints\.0\.port: must be <= 65535/);
  t.match(bad.stderr, /dommon: .*1 error\(s\); not started/);
});
