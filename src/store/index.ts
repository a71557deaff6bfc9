// The store: one repository per resource over one Kysely executor; transaction() gives the same
// repositories bound to a transaction so a use case commits all its writes (and events) together.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB } from './schema.js';
import { openConnection, type Connection, type OpenOptions } from './db.js';
import { startCheckpointer, type Checkpointer, type CheckpointOptions } from './checkpointer.js';
import { groupCommit } from './group-commit.js';
import { metaRepo, teamsRepo, tokensRepo, usersRepo } from './repos/teams.js';
import { portfoliosRepo } from './repos/portfolios.js';
import { domainsRepo } from './repos/domains.js';
import { endpointsRepo } from './repos/endpoints.js';
import { livenessRepo } from './repos/liveness.js';
import {
  livenessDataRepo,
  livenessStatements,
  livenessStatementsVia,
  type LivenessHotPath,
} from './repos/liveness-data.js';
import { openPgConnection, type PgConnection, type PgOptions } from './pg.js';
import { eventsRepo } from './repos/events.js';
import { notificationsRepo } from './repos/notifications.js';
import { exposureRepo } from './repos/exposure.js';
import { registrationsRepo } from './repos/registrations.js';
import { securityRepo } from './repos/security.js';
import { delegationsRepo } from './repos/delegations.js';
import { scheduleRepo } from './repos/schedule.js';
import { renewalsRepo } from './repos/renewals.js';
import { metricsRepo } from './repos/metrics.js';
import { retentionRepo } from './repos/retention.js';
import { certificatesRepo } from './repos/certificates.js';
import { statusPagesRepo } from './repos/status-pages.js';
import { nodesRepo } from './repos/nodes.js';
import { livenessDueRepo } from './repos/liveness-due.js';
import { rateLimitsRepo } from './repos/rate-limits.js';
import { webSessionsRepo } from './repos/web-sessions.js';
import { accountsRepo } from './repos/accounts.js';
import { oneTimeLinksRepo } from './repos/one-time-links.js';
import { passkeysRepo } from './repos/passkeys.js';
import { pushRepo } from './repos/push.js';
import { authFailuresRepo } from './repos/auth-failures.js';
import { dashboardRepo } from './repos/dashboard.js';
import { maintenanceWindowsRepo } from './repos/maintenance-windows.js';
import { auditRepo } from './repos/audit.js';
import { configManagedRepo } from './repos/config-managed.js';
import { reusingCompiled, type ReusingCompiled } from './repos/util.js';
import { localLocks, pgAdvisoryLocks, type SingletonLocks } from './singletons.js';
import { READ_MODELS, type ReadModel } from './read-models.js';
import { pgChangeFeed } from './change-feed.js';
import type { Sealer } from './sealing.js';

/** Whether the database answers a trivial query (/health). */
async function ping(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

function repos(db: Kysely<DB>, hot: LivenessHotPath, reuse: ReusingCompiled, engine: Engine, sealer?: Sealer) {
  return {
    teams: teamsRepo(db),
    users: usersRepo(db, engine),
    tokens: tokensRepo(db),
    meta: metaRepo(db),
    portfolios: portfoliosRepo(db),
    domains: domainsRepo(db, reuse, engine),
    endpoints: endpointsRepo(db),
    // On PostgreSQL a new config gets its due-queue row in the transaction that creates it.
    liveness: livenessRepo(db, { dueQueue: engine === 'postgres', sealer }),
    livenessData: livenessDataRepo(db, hot),
    events: eventsRepo(db),
    notifications: notificationsRepo(db, sealer),
    exposure: exposureRepo(db),
    registrations: registrationsRepo(db),
    security: securityRepo(db),
    delegations: delegationsRepo(db),
    schedule: scheduleRepo(db, reuse),
    renewals: renewalsRepo(db),
    metrics: metricsRepo(db),
    retention: retentionRepo(db),
    certificates: certificatesRepo(db),
    statusPages: statusPagesRepo(db),
    nodes: nodesRepo(db),
    /** The liveness due-queue: PostgreSQL only (several nodes); one SQLite node schedules in memory. */
    livenessDue: livenessDueRepo(db),
    rateLimits: rateLimitsRepo(db),
    webSessions: webSessionsRepo(db),
    accounts: accountsRepo(db),
    /** Set-up, sign-in, invitation and reset links (services/links.ts). */
    oneTimeLinks: oneTimeLinksRepo(db),
    /** Passkeys of accounts and the WebAuthn challenges handed out (services/passkeys.ts). */
    passkeys: passkeysRepo(db),
    authFailures: authFailuresRepo(db),
    /** The dashboard's home and outage reads (read only). */
    dashboard: dashboardRepo(db),
    push: pushRepo(db),
    maintenanceWindows: maintenanceWindowsRepo(db),
    /** The audit trail (services/audit.ts). */
    audit: auditRepo(db),
    /** Objects a configuration file manages (`serve --config`). */
    configManaged: configManagedRepo(db, engine),
  };
}

export type Repos = ReturnType<typeof repos>;

export type Engine = 'sqlite' | 'postgres';

export interface Store extends Repos {
  /** The raw query builder, for repositories added by later modules. */
  db: Kysely<DB>;
  engine: Engine;
  file: string;
  transaction<T>(fn: (tx: Repos & { db: Kysely<DB> }) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  /** A value that changes whenever one of `tables` may have changed (see change-tracker.ts). */
  stamp(tables: readonly string[]): string;
  /** stamp() of a named read model's tables (read-models.ts): what caches above the store key by. */
  readStamp(model: ReadModel): string;
  /** PostgreSQL's connection pool (connections in use, idle, and requests waiting for one); null on SQLite. */
  pool(): { inUse: number; idle: number; waiting: number } | null;
  /** WAL checkpoints on a worker thread instead of inside commits (the daemon); null for an in-memory database. */
  backgroundCheckpoints(opts?: CheckpointOptions): Checkpointer | null;
  /**
   * The locks of the jobs one node runs at a time (retention, digests, sweep, RDAP bootstrap): advisory
   * locks on a dedicated connection on PostgreSQL, always held on SQLite (singletons.ts).
   */
  singletonLocks(opts: Omit<Parameters<typeof pgAdvisoryLocks>[0], 'url'>): SingletonLocks;
  close(): Promise<void>;
}

function storeFrom(conn: Connection, sealer?: Sealer): Store {
  // The probe results' write path runs prepared statements on the same connection (and transaction).
  const hot = livenessStatements(conn.sqlite, conn.changes);
  // Hot inserts run the SQL Kysely compiled for them once (repos/util.ts reusingCompiled).
  const reuse = reusingCompiled((text) => conn.changes.wrote(text));
  const transaction = groupCommit(conn.db, (trx) => ({ ...repos(trx, hot, reuse, 'sqlite', sealer), db: trx }), {
    inTransaction: () => conn.sqlite.inTransaction,
  });
  return {
    ...repos(conn.db, hot, reuse, 'sqlite', sealer),
    db: conn.db,
    engine: 'sqlite',
    file: conn.file,
    transaction,
    ping: () => ping(conn.db),
    close: () => conn.close(),
    stamp: (tables) => conn.changes.stamp(tables),
    readStamp: (model) => conn.changes.stamp(READ_MODELS[model]),
    pool: () => null,
    singletonLocks: () => localLocks(),
    backgroundCheckpoints: (opts) =>
      conn.file === ':memory:' ? null : startCheckpointer(conn.sqlite, conn.file, opts),
  };
}

/** `sealer` seals channel secrets at rest (store/sealing.ts); without one they are written plain. */
export async function openStore(file: string, opts?: OpenOptions & { sealer?: Sealer }): Promise<Store> {
  return storeFrom(await openConnection(file, opts), opts?.sealer);
}

/**
 * The same store on PostgreSQL. Transactions run one at a time in this process, as on SQLite, so a
 * use case sees exactly the semantics it has there (read-then-write steps such as the next `seq`);
 * reads outside a transaction use the pool's other connections. The liveness write path is the
 * multi-row variant; stamp() counts this process's writes at once, and every process's (other nodes,
 * the CLI) through the change feed: LISTEN/NOTIFY of the tables each commit wrote (change-feed.ts).
 */
function storeFromPg(
  conn: PgConnection,
  applicationName: string,
  sealer?: Sealer,
): Store & { feedReady: Promise<void> } {
  const reuse = reusingCompiled((text) => conn.changes.wrote(text));
  let inTransaction = 0;
  const feed = pgChangeFeed({
    url: conn.url,
    applicationName,
    tracker: conn.changes,
    db: conn.db,
    inTransaction: () => inTransaction > 0,
  });
  const bind = (db: Kysely<DB>) => repos(db, livenessStatementsVia(db), reuse, 'postgres', sealer);
  let chain: Promise<unknown> = Promise.resolve();
  return {
    ...bind(conn.db),
    feedReady: feed.ready,
    db: conn.db,
    engine: 'postgres',
    file: conn.label,
    transaction<T>(fn: (tx: Repos & { db: Kysely<DB> }) => Promise<T>): Promise<T> {
      const run = chain.then(async () => {
        inTransaction++;
        try {
          return await conn.db.transaction().execute(async (trx) => {
            const result = await fn({ ...bind(trx), db: trx });
            // The tables written (here and since the last announcement) reach the other processes with the commit.
            await feed.flushIn(trx);
            return result;
          });
        } finally {
          inTransaction--;
        }
      });
      chain = run.catch(() => undefined);
      return run;
    },
    ping: () => ping(conn.db),
    close: async () => {
      await feed.close();
      await conn.close();
    },
    stamp: (tables) => `${feed.state(tables.length > 0)}|${conn.changes.stamp(tables)}`,
    readStamp: (model) => `${feed.state(true)}|${conn.changes.stamp(READ_MODELS[model])}`,
    pool: () => ({
      inUse: conn.pool.totalCount - conn.pool.idleCount,
      idle: conn.pool.idleCount,
      waiting: conn.pool.waitingCount,
    }),
    backgroundCheckpoints: () => null,
    singletonLocks: (opts) => pgAdvisoryLocks({ ...opts, url: conn.url }),
  };
}

export async function openPgStore(
  url: string,
  opts?: PgOptions & {
    /** application_name of the change feed's listening connection (`dommon changes NODE`). */
    feedName?: string;
    sealer?: Sealer;
  },
): Promise<Store> {
  const { feedReady, ...store } = storeFromPg(
    await openPgConnection(url, opts),
    opts?.feedName ?? 'dommon changes',
    opts?.sealer,
  );
  // Listening before the first read: until then no cache could answer.
  await feedReady;
  // Today's result partition and the next few exist before the first check is written (retention
  // keeps making them ahead, daily).
  const today = Math.floor(Date.now() / 86_400_000);
  await store.retention.ensureResultPartitions(today, today + 3);
  return store;
}

export type { DB } from './schema.js';
export type { ReadModel } from './read-models.js';
