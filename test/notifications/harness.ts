// The real app with a shortened notification worker (AppOptions.notify, tests only), plus helpers to
// create teams and write events through the store as the probing/intel services do.
import fs from 'node:fs';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import type { Clock } from '../../src/domain/clock.js';
import type { NewEvent } from '../../src/domain/types.js';
import { OFFLINE_ENV, client, tempDir } from '../support/app.js';
import { createPgDatabase, onPostgres } from '../support/pg.js';
import { withPgKey } from '../support/cli.js';

// The timeout stays well above loopback latency on a busy 2-core machine: an attempt that times out
// is retried, which (correctly, at-least-once) sends again and would blur the counts tests assert.
export const FAST = { intervalMs: 40, retryWaitsMs: [100, 200, 400], attemptTimeoutMs: 1500 } as const;

interface NotifyApp {
  app: App;
  url: string;
  dataDir: string;
  /** A team with one user and its API client. */
  team(name: string, user?: string): Promise<Member>;
  event(e: NewEvent): Promise<string>;
  close(): Promise<void>;
}

export interface Member {
  team_id: string;
  user_id: string;
  user: string;
  api: ReturnType<typeof client>;
}

/** With `dataDir` given, close() leaves the directory (a restart test opens it again). */
export async function startNotifyApp(
  opts: {
    env?: Record<string, string | undefined>;
    clock?: Clock;
    notify?: AppOptions['notify'];
    smtp?: AppOptions['smtp'];
    dataDir?: string;
    log?: Logger;
  } = {},
): Promise<NotifyApp> {
  const dataDir = opts.dataDir ?? tempDir('dommon-notify-');
  // Under test/pg/ the same tests run on a fresh PostgreSQL database per app (not the restart tests,
  // which reopen their data directory).
  const pgDb =
    onPostgres() && !opts.dataDir && !opts.env?.DOMMON_DATABASE_URL
      ? await createPgDatabase('notify', { migrated: true })
      : null;
  const config = loadConfig(
    { dataDir, port: 0, host: '127.0.0.1' },
    withPgKey({
      DOMMON_LOG_LEVEL: 'error',
      ...OFFLINE_ENV,
      ...(pgDb ? { DOMMON_DATABASE_URL: pgDb.url } : {}),
      ...opts.env,
    }),
  );
  const app = await createApp(config, {
    clock: opts.clock,
    log: opts.log ?? pino({ level: 'silent' }),
    notify: { ...FAST, ...opts.notify },
    smtp: opts.smtp,
  });
  const { url } = await app.start();
  const clock = opts.clock ?? { now: () => new Date() };
  return {
    app,
    url,
    dataDir,
    async team(name, user = `ops@${name}.test`) {
      const tok = await app.services.access.createToken({ team: name, user });
      return { team_id: tok.team_id, user_id: tok.user_id, user: tok.user, api: client(url, tok.token) };
    },
    async event(e) {
      const id = await app.store.events.add(e, clock.now().toISOString());
      if (!id) throw new Error('event not recorded (dedupe key)');
      return id;
    },
    async close() {
      await app.stop();
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      await pgDb?.drop();
    },
  };
}

/** Polls `fn` until it returns a truthy value (or throws after `ms`). */
export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  ms = 5000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
