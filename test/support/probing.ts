// A store + services on a temp file with an injectable clock, plus helpers that create monitored
// endpoints directly through the services (no HTTP server needed).
import fs from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { openLocal } from '../../src/app.js';
import type { Clock } from '../../src/domain/clock.js';
import { systemClock } from '../../src/domain/clock.js';
import { memoryDueQueue, sharedDueQueue } from '../../src/services/due-queue.js';
import { OFFLINE_ENV, tempDir } from './app.js';
import { createPgDatabase, pgServerUrl } from './pg.js';

export function mutableClock(start = Date.now()) {
  let t = start;
  return {
    now: () => new Date(t),
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    ms: () => t,
  };
}

export async function openTestStore(env: Record<string, string> = {}, clock?: Clock) {
  const dataDir = tempDir('dommon-probing-');
  const config = loadConfig({ dataDir }, { DOMMON_LOG_LEVEL: 'error', ...OFFLINE_ENV, ...env });
  const local = await openLocal(config, clock);
  const { team_id } = await local.services.access.createToken({ team: 'probing' });
  return {
    ...local,
    config,
    teamId: team_id,
    log: pino({ level: 'silent' }),
    async close() {
      await local.store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type TestStore = Awaited<ReturnType<typeof openTestStore>>;

/** n http endpoints on `port` (names web-0..), each with a liveness config. */
export async function monitored(
  s: TestStore,
  n: number,
  port: number,
  cfg: { interval_seconds: number; timeout_seconds?: number; failure_threshold?: number },
  domain = 'example.com',
) {
  const d = await s.services.domains.create(s.teamId, { domain } as never);
  const out = [];
  for (let i = 0; i < n; i++) {
    const e = await s.services.endpoints.create(s.teamId, {
      domain_id: d.id,
      name: `web-${i}`,
      endpoint_type: 'http',
      port,
    });
    out.push(await s.services.liveness.create(s.teamId, { endpoint_id: e.id, ...cfg }));
  }
  return out;
}

/** The stores the scheduler runs on: SQLite always, PostgreSQL where DOMMON_TEST_DATABASE_URL is set. */
export const ENGINES: readonly ('sqlite' | 'postgres')[] = pgServerUrl() ? ['sqlite', 'postgres'] : ['sqlite'];

/** openTestStore on a SQLite file or on a fresh migrated PostgreSQL database (dropped by close()). */
export async function openEngineStore(engine: 'sqlite' | 'postgres', env: Record<string, string> = {}, clock?: Clock) {
  if (engine === 'sqlite') return openTestStore(env, clock);
  const db = (await createPgDatabase('sched', { migrated: true }))!;
  const s = await openTestStore({ ...env, DOMMON_DATABASE_URL: db.url }, clock);
  return {
    ...s,
    async close() {
      await s.close();
      await db.drop();
    },
  };
}

/**
 * The due-queue a daemon on this store uses: in memory on SQLite (following the services' changes),
 * the shared tables on PostgreSQL (one node, `owner`).
 */
export function dueQueueOf(
  s: TestStore,
  opts: { clock?: Clock; random?: () => number; owner?: string; stamp?: () => string } = {},
) {
  return s.store.engine === 'postgres'
    ? sharedDueQueue({ store: s.store, owner: opts.owner ?? 'n1' })
    : memoryDueQueue({
        monitor: s.services.monitor,
        onChange: s.services.liveness.onChange,
        clock: opts.clock ?? systemClock,
        random: opts.random,
        stamp: opts.stamp,
        owner: opts.owner,
      });
}
