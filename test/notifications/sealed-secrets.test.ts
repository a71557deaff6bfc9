// Channel secrets at rest: the raw notification_settings row (read with better-sqlite3 and with pg)
// never holds the secret; rows from before sealing are sealed at start and still delivered; a wrong
// key gives a clear error (delivery log, doctor, 422 on a masked value), never a 500; rotate-key
// reseals under a new key that a running daemon follows.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import crypto, { createHmac } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startNotifyApp, until, type Member } from './harness.js';
import { startWebhookReceiver, type Received } from '../support/webhook-receiver.js';
import { OFFLINE_ENV, tempDir } from '../support/app.js';
import { createPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';
import { cliIn, ensureBuilt } from '../support/cli.js';
import { loadConfig } from '../../src/config/index.js';
import { runDoctor } from '../../src/services/doctor.js';

t.setTimeout(180_000);

const SECRET = 'whsec_sealed_0123456789_5b4a';
const signedWith = (r: Received, secret: string) =>
  r.headers['x-signature'] === `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
const rawConfigs = (dataDir: string): string[] => {
  const db = new Database(path.join(dataDir, 'dommon.db'), { readonly: true });
  try {
    return (db.prepare('select config from notification_settings').all() as { config: string }[]).map((r) => r.config);
  } finally {
    db.close();
  }
};
const keyIdOfRow = (config: string) => config.split(':')[2];

async function testSend(m: Member, url: string) {
  const r = await m.api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: url });
  if (r.status !== 201) throw new Error(`test send: ${r.status} ${r.text}`);
  return r.body.id as string;
}

t.test('SQLite: sealed at rest, plain rows sealed at start, wrong key, rotation', async (t) => {
  const dataDir = tempDir('dommon-sealed-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const recv = await startWebhookReceiver();
  t.teardown(() => recv.close());
  const hook = `${recv.url}/owner`;

  let s = await startNotifyApp({ dataDir });
  let m = await s.team('sealed');
  const put = await m.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: hook, secret_key: SECRET },
  });
  t.equal(put.status, 200, put.text);

  await t.test('the raw row holds neither the secret nor the URL; the key file is 0600', async (t) => {
    const [raw] = rawConfigs(dataDir);
    t.match(raw, /^sealed:v1:[0-9a-f]{12}:[A-Za-z0-9_-]+$/);
    t.notOk(raw!.includes(SECRET));
    t.notOk(raw!.includes('whsec'));
    t.notOk(raw!.includes('127.0.0.1'));
    const key = path.join(dataDir, 'secret.key');
    t.equal(fs.statSync(key).mode & 0o777, 0o600);
    t.notOk(fs.readFileSync(path.join(dataDir, 'dommon.db')).includes(SECRET), 'nowhere in the file either');
  });

  await t.test('a test send still signs with the secret', async (t) => {
    await testSend(m, hook);
    const [got] = await recv.waitFor(1, 10_000);
    t.ok(signedWith(got!, SECRET));
  });
  await s.close();

  await t.test('a plain row from before sealing is sealed at start and still delivered', async (t) => {
    const db = new Database(path.join(dataDir, 'dommon.db'));
    db.prepare('update notification_settings set config = ?').run(
      JSON.stringify({ webhook_url: hook, secret_key: SECRET }),
    );
    db.close();
    t.match(rawConfigs(dataDir)[0], /^\{/, 'plain before the start');
    s = await startNotifyApp({ dataDir });
    m = await s.team('sealed');
    const [raw] = rawConfigs(dataDir);
    t.match(raw, /^sealed:v1:/, 'sealed by the start');
    t.notOk(raw!.includes(SECRET));
    await testSend(m, hook);
    const got = await recv.waitFor(2, 10_000);
    t.ok(signedWith(got[1]!, SECRET));
  });

  await t.test('rotate-key reseals under a new key; the running daemon follows', async (t) => {
    const before = keyIdOfRow(rawConfigs(dataDir)[0]!);
    const config = loadConfig({ dataDir }, { ...OFFLINE_ENV });
    // From another process, as an operator runs it beside the daemon (in this process its SQLite busy
    // wait would block the event loop of the daemon that holds the write lock).
    await ensureBuilt();
    const out = await cliIn(dataDir)('secrets', 'rotate-key', '--json');
    t.equal(out.code, 0, out.stderr);
    const r = out.json as { resealed: number; key_id: string; previous_key_ids: string[] };
    t.equal(r.resealed, 1);
    t.not(r.key_id, before);
    t.same(r.previous_key_ids, [before]);
    t.equal(keyIdOfRow(rawConfigs(dataDir)[0]!), r.key_id, 'the row is sealed under the new key');
    const lines = fs
      .readFileSync(path.join(dataDir, 'secret.key'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    t.equal(lines.length, 1, 'the old key left the file');
    t.equal(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777, 0o600);
    // The daemon started under the old key reads the new one without a restart.
    await testSend(m, hook);
    const got = await recv.waitFor(3, 10_000);
    t.ok(signedWith(got[2]!, SECRET));
    const doctor = await runDoctor(config, { timeoutMs: 500 });
    t.match(
      doctor.checks.find((c) => c.name === 'channel secrets'),
      {
        status: 'ok',
        detail: new RegExp(`key ${r.key_id}: 1 channel config\\(s\\) sealed`),
      },
    );
  });
  await s.close();

  await t.test(
    'a wrong key: the daemon refuses to start; a key changed under a running one gives clear errors, never a 500, the secret sent nowhere',
    async (t) => {
      const other = crypto.randomBytes(32).toString('base64');
      const keyFile = path.join(dataDir, 'secret.key');
      const good = fs.readFileSync(keyFile);
      await t.rejects(
        startNotifyApp({ dataDir, env: { DOMMON_SECRET_KEY: other } }),
        /1 notification setting\(s\) are sealed under secret key [0-9a-f]{12}, which this node does not hold \(DOMMON_SECRET_KEY has [0-9a-f]{12}\): give every node of this database the same key/,
      );
      // A node that has no key file (another data directory on one PostgreSQL database, say) makes none it would then seal under.
      fs.rmSync(keyFile);
      await t.rejects(startNotifyApp({ dataDir }), /which this node does not hold \(\S+secret\.key was just created\)/);
      t.notOk(fs.existsSync(keyFile), 'the key made at that start is removed again');
      fs.writeFileSync(keyFile, good, { mode: 0o600 });
      s = await startNotifyApp({ dataDir });
      t.teardown(() => s.close());
      t.teardown(() => fs.writeFileSync(keyFile, good, { mode: 0o600 }));
      // The key file changes under the running daemon (rotated elsewhere, restored from the wrong backup).
      fs.writeFileSync(keyFile, `${other}\n`, { mode: 0o600 });
      await new Promise((r) => setTimeout(r, 1_100));
      m = await s.team('sealed');
      const list = await m.api.get('/api/v1/notifications/settings');
      t.equal(list.status, 200, list.text);
      t.same(list.body.find((r: { notification_type: string }) => r.notification_type === 'webhook').config, {});
      const masked = await m.api.put('/api/v1/notifications/settings/webhook', {
        delivery_class: 'instant',
        config: { webhook_url: hook, secret_key: '********5b4a' },
      });
      t.equal(masked.status, 422, masked.text);
      t.match(masked.body, { code: 'SECRET_REQUIRED', error: /cannot be read.*does not hold/ });
      const id = await testSend(m, hook);
      const entry = await until(async () => {
        const r = await m.api.get(`/api/v1/notifications/log/${id}`);
        return r.status === 200 && r.body.status === 'failed' ? r.body : null;
      }, 10_000);
      t.match(entry.error_message, /cannot be unsealed: sealed under key [0-9a-f]{12}, which this node does not hold/);
      t.equal(recv.requests.length, 3, 'nothing was sent');
      const doctor = await runDoctor(loadConfig({ dataDir }, { ...OFFLINE_ENV, DOMMON_SECRET_KEY: other }), {
        timeoutMs: 500,
      });
      t.match(
        doctor.checks.find((c) => c.name === 'channel secrets'),
        {
          status: 'fail',
          detail: /1 of 1 sealed channel config\(s\) cannot be unsealed: sealed under key/,
        },
      );
      t.equal(doctor.ok, false);
    },
  );

  await t.test('dommon secrets rotate-key (the command)', async (t) => {
    await s.close();
    await ensureBuilt();
    const run = cliIn(dataDir);
    const before = keyIdOfRow(rawConfigs(dataDir)[0]!);
    const r = await run('secrets', 'rotate-key', '--json');
    t.equal(r.code, 0, r.stderr);
    t.match(r.json, { resealed: 1, previous_key_ids: [before], source: path.join(dataDir, 'secret.key') });
    t.equal(keyIdOfRow(rawConfigs(dataDir)[0]!), r.json.key_id);
  });
});

t.test('PostgreSQL: the raw row holds no secret', { skip: pgServerUrl() ? false : PG_SKIP }, async (t) => {
  const db = (await createPgDatabase('sealed', { migrated: true }))!;
  t.teardown(() => db.drop());
  const s = await startNotifyApp({ env: { DOMMON_DATABASE_URL: db.url } });
  t.teardown(() => s.close());
  const m = await s.team('sealed-pg');
  const put = await m.api.put('/api/v1/notifications/settings/matrix', {
    delivery_class: 'instant',
    config: { homeserver_url: 'http://127.0.0.1:9', room_id: '!r:example.org', access_token: 'syt_pg_secret_5b4a' },
  });
  t.equal(put.status, 200, put.text);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const rows = (await c.query<{ config: string }>('select config from notification_settings')).rows;
    t.equal(rows.length, 1);
    t.match(rows[0]!.config, /^sealed:v1:/);
    t.notOk(rows[0]!.config.includes('syt_pg_secret'));
  } finally {
    await c.end();
  }
  const row = await s.app.store.notifications.setting(m.user_id, 'matrix', 'instant');
  t.equal(row!.config.access_token, 'syt_pg_secret_5b4a', 'the store opens it');
  // A second node with a data directory of its own and no key given: it would make a key of its own and
  // fail every delivery of this config; it refuses to start instead, and keeps no key file.
  const dir = tempDir('dommon-sealed-node2-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  await t.rejects(
    startNotifyApp({ dataDir: dir, env: { DOMMON_DATABASE_URL: db.url, DOMMON_SECRET_KEY: undefined } }),
    /1 notification setting\(s\) are sealed under secret key [0-9a-f]{12}, which this node does not hold \(\S+secret\.key was just created\): give every node of this database the same key/,
  );
  t.notOk(fs.existsSync(path.join(dir, 'secret.key')));
  // With the same key it starts and reads the config.
  const s2 = await startNotifyApp({ dataDir: dir, env: { DOMMON_DATABASE_URL: db.url, DOMMON_NODE_NAME: 'sealed-2' } });
  t.teardown(() => s2.close());
  const row2 = await s2.app.store.notifications.setting(m.user_id, 'matrix', 'instant');
  t.equal(row2!.config.access_token, 'syt_pg_secret_5b4a', 'the second node opens it');
});
