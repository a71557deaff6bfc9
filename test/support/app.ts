// Starts the real dommon app (koa + SQLite file in a temp dir) on a loopback port, and speaks HTTP to it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config/index.js';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { openConnection } from '../../src/store/db.js';
import type { Clock } from '../../src/domain/clock.js';
import { checkResponse } from './openapi.js';
import { createPgDatabase, onPostgres } from './pg.js';
import { withPgKey } from './cli.js';
import { TEST_PASSWORD_ENV } from './passwords.js';
import './http-client.js';

export interface TestApp {
  app: App;
  url: string;
  dataDir: string;
  config: Readonly<Config>;
  /** Creates a team (if needed), a user and a token; returns the raw token. */
  /** A new token of `team` (operator: node details, as `token create --operator` makes it). */
  token(team?: string, user?: string, opts?: { operator?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** Base URLs of the apps startApp() started: their answers are checked against the OpenAPI document. */
const appUrls = new Set<string>();

export function tempDir(prefix = 'dommon-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** DNS, RDAP and WHOIS default to a closed loopback port so no test ever reaches the internet. */
export const OFFLINE_ENV: Readonly<Record<string, string>> = {
  DOMMON_DNS_SERVERS: '127.0.0.1:9',
  DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
  DOMMON_WHOIS_SERVER: '127.0.0.1:9',
  DOMMON_IANA_WHOIS: '127.0.0.1:9',
};

/**
 * A SQLite file with every migration applied, made once per process; an app on SQLite starts on a
 * copy of it (its data directory's dommon.db, when the test has not put one there) instead of
 * migrating a new file: ~40 ms of CPU and ~0.15 s of wall less per app. The copy is the same file
 * the app would have made (test/store/migrations.test.ts and test/ops/migrations.test.ts still
 * migrate new and older files themselves).
 */
let sqliteTemplate: Promise<string> | undefined;
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = tempDir('dommon-template-');
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'dommon.db');
    await (await openConnection(file)).close();
    // The last connection's close checkpoints the write-ahead log into the file and removes it.
    if (fs.existsSync(`${file}-wal`)) throw new Error(`${file}-wal is left after close`);
    return file;
  })();
  return sqliteTemplate;
}

/**
 * env holds DOMMON_* overrides (e.g. { DOMMON_RATE_LIMIT: '5' }); opts the test-only app options.
 * Passwords hash at the tests' cost (test/support/passwords.ts) unless env sets DOMMON_PASSWORD_COST.
 */
export async function startApp(
  env: Record<string, string> = {},
  opts: { clock?: Clock; dataDir?: string; port?: number } & Pick<
    AppOptions,
    'probes' | 'notify' | 'exposure' | 'smtp'
  > = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? tempDir();
  // Under test/pg/ the same tests run on a fresh PostgreSQL database per app.
  const pgDb = onPostgres() && !env.DOMMON_DATABASE_URL ? await createPgDatabase('app', { migrated: true }) : null;
  const dbFile = path.join(dataDir, 'dommon.db');
  if (!pgDb && !env.DOMMON_DATABASE_URL && fs.existsSync(dataDir) && !fs.existsSync(dbFile))
    fs.copyFileSync(await migratedSqliteFile(), dbFile, fs.constants.COPYFILE_EXCL);
  const config = loadConfig(
    { dataDir, port: opts.port ?? 0, host: '127.0.0.1' },
    withPgKey({
      DOMMON_LOG_LEVEL: 'error',
      ...OFFLINE_ENV,
      ...TEST_PASSWORD_ENV,
      ...(pgDb ? { DOMMON_DATABASE_URL: pgDb.url } : {}),
      ...env,
    }),
  );
  const app = await createApp(config, {
    clock: opts.clock,
    log: pino({ level: process.env.DOMMON_TEST_LOG ?? 'silent' }),
    probes: opts.probes,
    notify: opts.notify,
    exposure: opts.exposure,
    smtp: opts.smtp,
  });
  const { url } = await app.start();
  appUrls.add(url);
  return {
    app,
    url,
    dataDir,
    config,
    async token(team = 'test-team', user?: string, opts: { operator?: boolean } = {}) {
      return (await app.services.access.createToken({ team, user, operator: opts.operator })).token;
    },
    async close() {
      appUrls.delete(url);
      await app.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await pgDb?.drop();
    },
  };
}

interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/**
 * One HTTP request; body objects are sent as JSON, strings raw. Answers of an app started by
 * startApp() are checked against the OpenAPI document (test/support/openapi.ts): an undocumented
 * operation or status, or a body that does not match its schema, throws. `unchecked` skips that.
 */
export async function request<T = any>(
  base: string,
  method: string,
  p: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; unchecked?: boolean } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(base + p, { method, headers, body });
  } catch (err) {
    // A GET or HEAD reuses a kept-alive connection (./http-client.ts), which the server may be closing at
    // that moment: a reset before any answer. Browsers send an idempotent request again then; so does
    // this (once). Other methods go on a connection of their own and are never sent twice.
    const code = ((err as Error).cause as { code?: string } | undefined)?.code;
    if (!['GET', 'HEAD'].includes(method) || (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET')) throw err;
    res = await fetch(base + p, { method, headers, body });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!opts.unchecked && appUrls.has(base)) {
    checkResponse({
      method,
      path: new URL(base + p).pathname,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: parsed,
      text,
      headers: res.headers,
    });
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/** A client bound to one app and token: api.get('/api/v1/domains'). */
export function client(base: string, token?: string) {
  const call =
    <T = any>(method: string) =>
    (p: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>(base, method, p, { token, body, headers });
  return { get: call('GET'), post: call('POST'), put: call('PUT'), delete: call('DELETE'), patch: call('PATCH') };
}

/**
 * Waits until a new domain's first background look-ups (registration, DNS security, the nameserver
 * watch) have each run once: until then each one that ends changes the domain's answers, which a test
 * comparing two reads (or their ETags) would see as a difference.
 */
export async function firstLookupsDone(s: TestApp, domainId: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const kind of ['registration', 'security', 'nameservers'])
    while (!(await s.app.store.schedule.get(kind, domainId))?.last_run_at) {
      if (Date.now() > until) throw new Error(`the ${kind} look-up of ${domainId} did not run within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
}
