// Opening the configured database as every mode does (the data directory made private, channel
// secrets sealed at rest), and the command line's smallest door onto it: the commands that call one
// service over the store (`dommon token ...`, `users ...`, `nodes`) get that service, and nothing of
// the API, the probes or the workers loads (a CLI call that cron or a script makes starts and ends fast).
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { systemClock } from '../domain/clock.js';
import { openPgStore, openStore, type Store } from '../store/index.js';
import { secureDataDir } from '../store/permissions.js';
import { createSealer, dropKeyFile, guardSealing, keyFileMissing, liveKeyRing, SealError } from '../store/sealing.js';
import { createAccessService } from './access.js';
import { createNodeService } from './nodes.js';
import { createAuditService } from './audit.js';
import { createLinkService } from './links.js';
import { userInfo } from 'node:os';

/** The OS account running the command (null where it has none, as in some containers). */
function localAccount(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

type Log = Pick<Logger, 'warn' | 'error'>;
const silent: Log = { warn: () => undefined, error: () => undefined };

/**
 * The store over DOMMON_DATABASE_URL or DIR/dommon.db. `serving` (the daemon) refuses to start when
 * channel secrets are sealed under a key this node lacks; a CLI command goes on and seals nothing.
 */
export async function openDatabase(
  config: Readonly<Config>,
  opts: { log?: Log; serving?: boolean } = {},
): Promise<Store> {
  const log = opts.log ?? silent;
  // Secrets live here: directory 0700, files 0600; an older install's looser modes are fixed, and said.
  const tightened = secureDataDir(config.dataDir);
  if (tightened.length) {
    log.warn(
      { dataDir: config.dataDir, files: tightened },
      `data directory was readable by other users: made ${tightened.length} path(s) private (directory 0700, files 0600)`,
    );
  }
  // Channel secrets are sealed at rest under a key kept outside the database (DIR/secret.key or DOMMON_SECRET_KEY).
  const keyIsNew = keyFileMissing(config.secretKey);
  let sealingRefused: string | null = null;
  const sealer = guardSealing(createSealer(liveKeyRing(config.secretKey)), () => sealingRefused);
  const db = config.database;
  const store = db
    ? await openPgStore(db.url, {
        poolSize: db.poolSize,
        statementTimeoutMs: db.statementTimeoutMs,
        feedName: `dommon changes ${config.node.name}`,
        sealer,
      })
    : await openStore(config.dbPath, { sealer });
  // Configs sealed under a key this process lacks (a node given another key file, or none: on PostgreSQL
  // every node needs the same key) stop the daemon at start, where a person reads it, instead of failing
  // each delivery; a CLI command goes on but seals nothing under its own key. Otherwise configs written
  // before sealing existed are sealed now (they are read either way).
  let foreign: [string, number][] = [];
  try {
    foreign = Object.entries(await store.notifications.sealedKeyIds()).filter(
      ([id]) => id !== 'plain' && !sealer.keyIds.includes(id),
    );
    if (!foreign.length) await store.notifications.sealPlain();
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'sealing the stored channel secrets failed');
  }
  if (foreign.length) {
    const where = config.secretKey.keys ? 'DOMMON_SECRET_KEY' : config.secretKey.file;
    sealingRefused = `${foreign.reduce((n, [, c]) => n + c, 0)} notification setting(s) are sealed under secret key ${foreign.map(([id]) => id).join(', ')}, which this node does not hold (${where}${keyIsNew ? ' was just created' : ` has ${sealer.keyIds.join(', ')}`}): give every node of this database the same key (copy secret.key from a node that has it, or set DOMMON_SECRET_KEY; docs/security.md)`;
    // A key made just now opens nothing here and sealed nothing: it goes, so the next start does not take it for the real one.
    if (keyIsNew) dropKeyFile(config.secretKey);
    if (opts.serving) {
      await store.close();
      throw new SealError(sealingRefused);
    }
    log.error({ keys: Object.fromEntries(foreign), has: sealer.keyIds }, sealingRefused);
  }
  return store;
}

/** The services a CLI command calls directly on the local database (tokens, users, the node list). */
export interface LocalServices {
  access: ReturnType<typeof createAccessService>;
  nodes: ReturnType<typeof createNodeService>;
  /** One-time sign-in links (`users add`). */
  links: ReturnType<typeof createLinkService>;
}

/** The command line's local door: those services over the configured database, and how to close it (the CLI never holds the store). */
export async function openLocalServices(
  config: Readonly<Config>,
): Promise<{ services: LocalServices; close(): Promise<void> }> {
  const store = await openDatabase(config);
  // Changes made here are the operator's at the server's shell: no person of the team, the OS account named.
  const audit = createAuditService({
    store,
    clock: systemClock,
    fallback: {
      user_id: null,
      user_email: null,
      via: 'cli-local',
      via_id: null,
      via_name: localAccount(),
      request_id: null,
    },
  });
  const deps = { store, clock: systemClock, audit, passwordCost: config.passwordCost };
  return {
    services: { access: createAccessService(deps), nodes: createNodeService(deps), links: createLinkService(deps) },
    close: () => store.close(),
  };
}
