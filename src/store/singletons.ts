// Jobs that must run on one node at a time when several `dommon serve` processes share a PostgreSQL
// database (retention, digests, the health sweep, the RDAP bootstrap refresh): each is a
// session-level advisory lock (pg_try_advisory_lock) held on one dedicated connection of this
// process, outside the pool. A node that takes a lock keeps it while its session lives; when the node
// dies its connection closes, the server releases the lock and another node's next attempt (every
// few seconds) takes it. Transaction-level locks would need each run inside one transaction, and a
// retention pass runs for minutes in small batches. On SQLite (one process per file) every lock is
// held.
import type pg from 'pg';
import { pgDriver } from './pg-driver.js';

export const SINGLETONS = ['retention', 'digests', 'sweep', 'rdap-bootstrap'] as const;
export type Singleton = (typeof SINGLETONS)[number];

/** pg_try_advisory_lock(LOCK_CLASS, index + 1): the first key is "dmn" in ASCII, the second the job. */
export const LOCK_CLASS = 0x646d6e00;

export interface SingletonLocks {
  /** Whether this node runs `name` now. */
  holds(name: Singleton): boolean;
  held(): Singleton[];
  /**
   * Runs fn when this node holds the lock; resolves null (without running it) when another node does.
   * fn's signal aborts when the lock is lost mid-run (the lock connection failed).
   */
  run: <T>(name: Singleton, fn: (signal: AbortSignal) => Promise<T>) => Promise<T | null>;
  /** Starts taking the locks (PostgreSQL: now, then every `retryMs`). */
  start(): Promise<void>;
  /** Releases every lock (closes the lock connection). */
  stop(): Promise<void>;
}

/** SQLite: one process per file (the pid lock), so this node holds every lock. */
export function localLocks(): SingletonLocks {
  const never = new AbortController().signal;
  return {
    holds: () => true,
    held: () => [...SINGLETONS],
    run: (_name, fn) => fn(never),
    start: async () => undefined,
    stop: async () => undefined,
  };
}

interface PgLockOptions {
  url: string;
  /** application_name of the lock connection (pg_stat_activity shows which node holds what). */
  applicationName: string;
  /** How often a node without a lock tries again, and a holder checks its connection (ms). */
  retryMs?: number;
  onChange?: (held: Singleton[], lost: boolean) => void;
  onError?: (err: Error) => void;
}

export function pgAdvisoryLocks(opts: PgLockOptions): SingletonLocks {
  const retryMs = opts.retryMs ?? 5000;
  const held = new Set<Singleton>();
  let client: pg.Client | null = null;
  let aborter = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let pass: Promise<void> = Promise.resolve();
  // After losing its locks a node waits two attempts before trying again, so that the other nodes
  // (trying every retryMs) take them over instead of the node whose connection just failed.
  let quietUntil = 0;

  const report = (lost: boolean) => opts.onChange?.([...held], lost);

  /** The lock connection failed or closed: every lock is gone (the server released them with the session). */
  function lost(c: pg.Client): void {
    if (client !== c) return;
    client = null;
    quietUntil = performance.now() + 2 * retryMs;
    const had = held.size > 0;
    held.clear();
    aborter.abort();
    aborter = new AbortController();
    void c.end().catch(() => undefined);
    if (had) report(true);
  }

  async function connect(): Promise<pg.Client> {
    const driver = await pgDriver();
    const c = new driver.Client({
      connectionString: opts.url,
      application_name: opts.applicationName.slice(0, 63),
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: retryMs,
      statement_timeout: retryMs,
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    await c.connect();
    // The server notices a node that vanished (no FIN: power loss, a partition) within about 25 s and
    // releases its locks; a process that dies on a live machine closes its socket at once.
    await c.query('set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3');
    return c;
  }

  async function attempt(): Promise<void> {
    let c = client;
    if (!c && performance.now() < quietUntil) return;
    try {
      if (!c) {
        c = await connect();
        if (stopped) {
          await c.end();
          return;
        }
        client = c;
      }
      const before = held.size;
      if (held.size) await c.query('select 1'); // still our session: the locks are still ours
      // Every lock not held, tried in one statement (a node that holds none asks every few seconds).
      const free = SINGLETONS.flatMap((name, i) => (held.has(name) ? [] : [i + 1]));
      if (free.length) {
        const r = await c.query<{ key: number; ok: boolean }>(
          'select k as key, pg_try_advisory_lock($1, k) as ok from unnest($2::int[]) as k',
          [LOCK_CLASS, free],
        );
        for (const { key, ok } of r.rows) if (ok) held.add(SINGLETONS[key - 1]!);
      }
      if (held.size !== before) report(false);
    } catch (err) {
      opts.onError?.(err as Error);
      if (c) lost(c);
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      pass = attempt().then(schedule);
    }, retryMs);
    timer.unref();
  }

  return {
    holds: (name) => held.has(name),
    held: () => SINGLETONS.filter((n) => held.has(n)),
    async run(name, fn) {
      if (!held.has(name)) return null;
      return fn(aborter.signal);
    },
    async start() {
      stopped = false;
      pass = attempt();
      await pass;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
      const c = client;
      client = null;
      held.clear();
      aborter.abort();
      // Closing the session releases its locks at once: the next node takes them at its next attempt.
      if (c) await c.end().catch(() => undefined);
    },
  };
}
