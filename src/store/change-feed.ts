// Cross-process cache invalidation on PostgreSQL (several nodes on one database, and the CLI beside
// them). Each process tells the others which tables it wrote: LISTEN/NOTIFY on the channel
// `dommon_changes`, a payload `SENDER|table,table,...`. The read caches (and every other cache keyed
// by the store's stamp()) then drop exactly what a write on another node made stale, within the
// notification's trip (milliseconds), where a poll of the server's snapshot dropped every cache on
// every write anywhere.
//
// - Sent after the write commits, never before: a store transaction sends its tables inside itself
//   (the server delivers a NOTIFY with the commit, and drops it with a rollback); writes outside one
//   are announced by a separate pg_notify within FLUSH_MS.
// - Received on one dedicated connection per process (outside the pool). While it is down (a server
//   restart, a network failure) nothing can be known: stamp() then changes on every call (no cache
//   answers), and once it listens again every cache starts over.
// - A process also hears its own notifications: a read that ran between its write and its commit
//   cached the old rows under the new stamp, and the echo (after the commit) drops them.
// - Writes nobody announces (a node older than this feed during a rolling upgrade, SQL typed by
//   hand, a node killed between its commit and its notification) are picked up within MAX_AGE_MS:
//   every cache starts over at least that often.
import crypto from 'node:crypto';
import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { ChangeTracker } from './change-tracker.js';
import type { DB } from './schema.js';
import { READ_MODELS } from './read-models.js';
import { pgDriver } from './pg-driver.js';

const CHANGES_CHANNEL = 'dommon_changes';
const FLUSH_MS = 20;
const RECONNECT_MS = 1000;
/** Every cache starts over at least this often on PostgreSQL (writes that notified nobody). */
const MAX_AGE_MS = 30_000;
/**
 * Only tables a read model reads are announced ('*' too): the caches key by read models, so a write
 * to any other table (the due-queues' claims, results, aggregates and states written with every
 * check, heartbeats, rate-limit counters) would cost a notification and every listener's work for
 * nothing. A cache of a new table is a line in READ_MODELS, which announces it here as well.
 */
const ANNOUNCED: ReadonlySet<string> = new Set(Object.values(READ_MODELS).flat());
/** pg_notify payloads are limited to 8,000 bytes; a longer list is sent as '*' (anything). */
const MAX_PAYLOAD = 7000;

interface PgChangeFeed {
  /**
   * Part of stamp(): moves when notifications may have been missed, and (`aged`: a cache's stamp)
   * every MAX_AGE_MS. stamp([]), "did another process commit", is not aged: the liveness scheduler
   * reloads its working set when it moves.
   */
  state(aged: boolean): string;
  /** The pending tables' notification, run inside a store transaction (delivered with its commit). */
  flushIn(db: Kysely<DB>): Promise<void>;
  /** Sends what is pending now (before closing; tests). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Whether the listening connection is up (tests, doctor). */
  listening(): boolean;
  /** Settles once the first attempt to listen has succeeded or failed. */
  ready: Promise<void>;
}

interface FeedOptions {
  url: string;
  applicationName: string;
  tracker: ChangeTracker;
  /** The pool's executor: announcements outside a transaction. */
  db: Kysely<DB>;
  /** True while a store transaction runs: it sends what is pending with its commit. */
  inTransaction(): boolean;
  onError?(err: Error): void;
}

export function pgChangeFeed(opts: FeedOptions): PgChangeFeed {
  const sender = crypto.randomBytes(6).toString('hex');
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let client: pg.Client | null = null;
  let up = false;
  /** Moves whenever the connection is lost or comes back. */
  let generation = 0;
  let closed = false;
  let downCalls = 0;
  let retry: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const payload = (tables: Set<string>) => {
    const list = tables.has('*') ? '*' : [...tables].sort().join(',');
    return `${sender}|${list.length > MAX_PAYLOAD ? '*' : list}`;
  };

  opts.tracker.onWrite = (table) => {
    if (table !== '*' && !ANNOUNCED.has(table)) return;
    pending.add(table);
    timer ??= setTimeout(() => void flushLoose(), FLUSH_MS);
  };

  /** Writes outside a store transaction (autocommit: committed by now). */
  async function flushLoose(): Promise<void> {
    timer = undefined;
    if (!pending.size || closed) return;
    // A transaction running now sends these with its commit (they are committed already, or are its
    // own); look again shortly in case it fails.
    if (opts.inTransaction()) {
      timer = setTimeout(() => void flushLoose(), FLUSH_MS);
      return;
    }
    const tables = new Set(pending);
    pending.clear();
    try {
      await sql`select pg_notify(${CHANGES_CHANNEL}, ${payload(tables)})`.execute(opts.db);
    } catch (err) {
      // The database is away: the listeners lost their connection too and start over when back.
      opts.onError?.(err as Error);
    }
  }

  function lost(c: pg.Client): void {
    if (client !== c) return;
    client = null;
    if (up) generation++;
    up = false;
    void c.end().catch(() => undefined);
    schedule();
  }

  function schedule(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  }

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const driver = await pgDriver();
      const c = new driver.Client({
        connectionString: opts.url,
        application_name: opts.applicationName.slice(0, 63),
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        connectionTimeoutMillis: 5000,
      });
      c.on('error', () => lost(c));
      c.on('end', () => lost(c));
      c.on('notification', (n) => {
        if (n.channel !== CHANGES_CHANNEL || !n.payload) return;
        const bar = n.payload.indexOf('|');
        const from = n.payload.slice(0, bar);
        const tables = n.payload
          .slice(bar + 1)
          .split(',')
          .filter(Boolean);
        opts.tracker.committed(tables, from === sender);
      });
      client = c;
      try {
        await c.connect();
        await c.query(`listen ${CHANGES_CHANNEL}`);
        if (closed) {
          await c.end();
          return;
        }
        // Whatever was written while nobody listened: every cache starts over.
        generation++;
        up = true;
      } catch (err) {
        opts.onError?.(err as Error);
        lost(c);
      }
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  const ready = connect();

  return {
    ready,
    state(aged) {
      if (!up) return `down:${++downCalls}`;
      return aged ? `${generation}:${Math.floor(Date.now() / MAX_AGE_MS)}` : String(generation);
    },
    async flushIn(db) {
      if (!pending.size) return;
      const tables = new Set(pending);
      pending.clear();
      try {
        await sql`select pg_notify(${CHANGES_CHANNEL}, ${payload(tables)})`.execute(db);
      } catch (err) {
        // Not sent (the transaction failed): announced on their own instead.
        for (const t of tables) pending.add(t);
        timer ??= setTimeout(() => void flushLoose(), FLUSH_MS);
        throw err;
      }
    },
    async flush() {
      if (timer) clearTimeout(timer);
      await flushLoose();
    },
    async close() {
      await this.flush();
      closed = true;
      if (retry) clearTimeout(retry);
      await connecting;
      const c = client;
      client = null;
      up = false;
      opts.tracker.onWrite = undefined;
      await c?.end().catch(() => undefined);
    },
    listening: () => up,
  };
}
