// kill -9 between claim and delivery: the built daemon claims a delivery, its receiver hangs, the
// daemon is killed with SIGKILL; after a restart the delivery is made (at-least-once across crashes).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/index.js';
import { openLocal } from '../../src/app.js';
import { openStore } from '../../src/store/index.js';
import { client, tempDir } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { cleanEnv, nodeCommand } from '../support/cli.js';
import { until } from './harness.js';

// Building (when src/ changed) and two daemon start-ups take a while on a busy machine.
t.setTimeout(240_000);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Compiles src/ to dist/ (scripts/compile.mjs, the build's first step) when dist/ is missing or older than any source file. */
function ensureBuilt(): void {
  const built = path.join(ROOT, 'dist/app.js');
  const stamp = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...fs
        .readdirSync(dir, { withFileTypes: true })
        .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs)),
    );
  if (newest(path.join(ROOT, 'src')) <= stamp) return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/compile.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** Starts `node bin/dommon.js serve` and resolves with its URL once it prints `listening on`. */
function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    ...nodeCommand([path.join(ROOT, 'bin/dommon.js'), 'serve', '--data-dir', dataDir, '--port', '0']),
    {
      env: cleanEnv({ DOMMON_NOTIFY_INTERVAL: '1', DOMMON_LOG_LEVEL: 'error' }),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`daemon did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.on('exit', (code) => reject(new Error(`daemon exited (${code}) before listening: ${out}`)));
  });
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) =>
    c.exitCode !== null || c.signalCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code)),
  );

t.test('SIGKILL between claim and delivery: delivered after restart', async (t) => {
  ensureBuilt();
  const dataDir = tempDir('dommon-crash-');
  const rx = await startWebhookReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
  const children: ChildProcess[] = [];
  t.teardown(async () => {
    children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
    await rx.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // Set up the team, its webhook row and one event on the database the daemon will open.
  const config = loadConfig({ dataDir }, {});
  const local = await openLocal(config);
  const tok = await local.services.access.createToken({ team: 'crashers', user: 'ops@crash.test' });
  const principal = {
    token_id: tok.id,
    token_name: tok.token_name,
    team_id: tok.team_id,
    team_name: tok.team,
    user_id: tok.user_id,
    user_email: tok.user,
    read_only: false,
    role: 'owner' as const,
  };
  await local.services.notifications.upsertSetting(principal, 'webhook', {
    delivery_class: 'instant',
    config: { webhook_url: rx.url },
  });
  const eventId = await local.store.events.add(
    { team_id: tok.team_id, event_type: 'liveness', severity: 'high', message: 'api is down' },
    new Date().toISOString(),
  );
  await local.store.close();

  const first = await serve(dataDir);
  children.push(first.child);
  const [req] = await rx.waitFor(1, 15_000); // claimed and in flight: the receiver holds the request
  t.equal(req!.json.event_id, eventId);
  first.child.kill('SIGKILL');
  await exited(first.child);

  const store = await openStore(config.dbPath);
  const d = await store.db
    .selectFrom('deliveries')
    .selectAll()
    .where('event_id', '=', eventId!)
    .executeTakeFirstOrThrow();
  await store.close();
  t.equal(d.attempts, 0, 'no attempt was recorded before the kill');
  t.ok(d.lease_owner, 'the killed daemon held the lease');
  t.equal(d.status, 'queued');

  const second = await serve(dataDir);
  children.push(second.child);
  const reqs = await rx.waitFor(2, 15_000);
  t.equal(reqs[1]!.json.event_id, eventId, 'the same event is delivered after the restart');
  const api = client(second.url, tok.token);
  const entry = await until(
    async () => {
      const r = await api.get(`/api/v1/notifications/log/${d.id}`);
      return r.body?.status === 'success' ? r.body : null;
    },
    10_000,
    'success in the log',
  );
  t.equal(entry.attempts, 1);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.requests.length, 2, 'delivered once after the restart');

  second.child.kill('SIGTERM');
  t.equal(await exited(second.child), 0, 'SIGTERM: clean exit');
});
