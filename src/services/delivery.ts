// The notification worker's use cases: fan events out to every matching enabled instant row (the
// outbox), build digests when due, and deliver with leases, retries (1 s, 2 s, 4 s) and an attempt log.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { isoNow, type Clock } from '../domain/clock.js';
import { nextDigestAt } from '../domain/digest.js';
import {
  instantAlert,
  type Delivery,
  type NotificationSetting,
  type Outgoing,
  type OutgoingEvent,
  type SendOutcome,
} from '../domain/notification.js';
import { pluginOf } from '../channels/index.js';
import type { Store } from '../store/index.js';

/** The spec's waits between attempts: up to 3 retries. */
export const RETRY_WAITS_MS = [1000, 2000, 4000] as const;
/** The spec's upper bound of one attempt. */
const ATTEMPT_TIMEOUT_MS = 30_000;
/** A wait up to this long is slept in process; a longer Retry-After hands the delivery back, due then. */
const MAX_SLEEP_MS = 60_000;
/**
 * Deliveries one node works on at once at most: sending or being recorded. One waiting for its retry
 * does not count (a receiver that is down must not hold up every other delivery of the node).
 */
const DELIVERY_CONCURRENCY = 50;
/** Attempts recorded in one transaction at most. */
const MAX_RECORD_BATCH = 500;
/** A receiver asking for a longer wait than this gets no retry (the delivery fails). */
export const MAX_RETRY_AFTER_S = 86_400;

/** One attempt on a channel (src/channels, wired by app.ts); failures are outcomes, not exceptions. */
type Deliver = (
  channel: string,
  message: Outgoing,
  config: Record<string, unknown>,
  /** deliveryId: the delivery's id, the same on every attempt and node (webhooks send it as X-Dommon-Delivery). */
  opts: { timeoutMs: number; deliveryId: string },
) => Promise<SendOutcome & { preview: string }>;

interface DeliveryDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  deliver: Deliver;
  /** Waits between attempts; the spec's 1 s, 2 s, 4 s (tests inject shorter ones). */
  retryWaitsMs?: readonly number[];
  /** Upper bound of one attempt; the spec's 30 s (tests inject a shorter one). */
  attemptTimeoutMs?: number;
  /** Counts every attempt by channel and outcome (dommon_notification_deliveries_total). */
  metrics?: { delivery(channel: string, status: string): void };
  /** The lease owner written on claimed deliveries (the node name; default a random id). */
  owner?: string;
  /** Deliveries sending or being recorded at once at most (not those waiting for a retry); default 50. */
  concurrency?: number;
  /** On start release only this owner's leases (several nodes on PostgreSQL), not every one. */
  ownLeasesOnly?: boolean;
}

class Stopped extends Error {}

/** One attempt's outcome and the delivery's state after it, as the store records it. */
type AttemptRecord = Parameters<Store['notifications']['recordAttempts']>[0][number];

/** How a delivery's message finds its settings row and events (read for a whole claimed batch at once). */
interface Lookups {
  setting(id: string): Promise<NotificationSetting | undefined>;
  event(id: string): ReturnType<Store['notifications']['eventContext']>;
}

export function createDeliveryService(deps: DeliveryDeps) {
  const { store, clock, log, deliver } = deps;
  const waits = deps.retryWaitsMs ?? RETRY_WAITS_MS;
  const attemptMs = deps.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const concurrency = deps.concurrency ?? DELIVERY_CONCURRENCY;
  const owner = deps.owner ?? randomUUID();
  const stopper = new AbortController();
  setMaxListeners(0, stopper.signal); // one listener per delivery waiting for its retry
  const inFlight = new Set<Promise<void>>();
  /** Deliveries of `inFlight` waiting for their retry: they take no slot. */
  let waiting = 0;
  const active = () => inFlight.size - waiting;
  const now = () => clock.now();

  const sleep = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (stopper.signal.aborted) return reject(new Stopped());
      const t = setTimeout(() => {
        stopper.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(new Stopped());
      };
      stopper.signal.addEventListener('abort', onAbort, { once: true });
    });

  // Attempts that ended wait here for the next write: one transaction records all of them (a batch),
  // so a node's throughput is not one transaction per attempt. While a batch commits the next one
  // gathers. Each attempt resolves with whether its row was written (false: its lease was taken over).
  let pending: { row: AttemptRecord; resolve(written: boolean): void; reject(err: unknown): void }[] = [];
  let flushing = false;

  async function write(batch: typeof pending): Promise<void> {
    const written = await store.transaction((tx) =>
      tx.notifications.recordAttempts(
        batch.map((p) => p.row),
        owner,
      ),
    );
    for (const p of batch) p.resolve(written.has(p.row.id));
  }

  async function flush(): Promise<void> {
    // Cleared in the same step that sees nothing pending: an attempt recorded later starts a new flush.
    try {
      await flushAll();
    } finally {
      flushing = false;
    }
  }

  async function flushAll(): Promise<void> {
    while (pending.length) {
      // Attempts ending in this turn of the event loop join the batch.
      await new Promise((r) => setImmediate(r));
      const batch = pending.slice(0, MAX_RECORD_BATCH);
      pending = pending.slice(batch.length);
      try {
        await write(batch);
      } catch (err) {
        if (batch.length === 1) {
          batch[0]!.reject(err);
          continue;
        }
        // One row the database refuses must not take the batch with it: each on its own.
        for (const p of batch) await write([p]).catch((e: unknown) => p.reject(e));
      }
    }
  }

  /** Records one attempt with the next batch; resolves once committed (false: fenced out, nothing written). */
  function record(row: AttemptRecord): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      pending.push({ row, resolve, reject });
      if (!flushing) {
        flushing = true;
        void flush();
      }
    });
  }

  async function eventMessage(
    eventId: string,
    user: string,
    look: Lookups,
  ): Promise<(OutgoingEvent & { portfolio: string | null }) | null> {
    const e = await look.event(eventId);
    if (!e) return null;
    const details = e.details;
    return {
      event_id: e.id,
      event_type: e.event_type,
      severity: e.severity,
      category: e.category,
      team: e.team_name,
      user,
      domain_id: e.domain_id,
      domain: e.domain_name ?? (details.domain as string | undefined) ?? null,
      endpoint_id: e.endpoint_id,
      endpoint_name: e.endpoint_name ?? (details.endpoint_name as string | undefined) ?? null,
      details,
      message: e.message,
      timestamp: e.created_at,
      portfolio: e.portfolio_name,
    };
  }

  /**
   * The settings rows and events of a claimed batch, read with one query each (not two per delivery);
   * anything else (a digest's events) is read on its own.
   */
  async function lookupsFor(claimed: readonly Delivery[]): Promise<Lookups> {
    const settingIds = [...new Set(claimed.flatMap((d) => (d.setting_id && !d.is_test ? [d.setting_id] : [])))];
    const eventIds = [...new Set(claimed.flatMap((d) => (d.event_id && !d.is_test ? [d.event_id] : [])))];
    const [settings, events] = await Promise.all([
      store.notifications.settingsByIds(settingIds),
      store.notifications.eventContexts(eventIds),
    ]).catch(() => [[], []] as const); // each delivery reads its own (and reports what fails)
    const settingOf = new Map(settings.map((s) => [s.id, s]));
    const eventOf = new Map(events.map((e) => [e.id, e]));
    return {
      setting: async (id) => settingOf.get(id) ?? (await store.notifications.settingById(id)),
      event: async (id) => eventOf.get(id) ?? (await store.notifications.eventContext(id)),
    };
  }

  /** Message + channel config of one delivery (test sends derive their config from the recipient). */
  async function prepare(
    d: Delivery,
    look: Lookups,
  ): Promise<{ message: Outgoing; config: Record<string, unknown> } | { error: string }> {
    const req = d.request;
    if (d.is_test) {
      const team = await store.teams.byId(d.team_id);
      const user = req.user_id ? await store.users.byId(req.user_id) : undefined;
      const own = user ? await store.notifications.setting(user.id, d.channel, 'instant') : undefined;
      const plugin = pluginOf(d.channel);
      if (!plugin) return { error: `unknown channel ${d.channel}` };
      if (own?.unreadable) return { error: `${d.channel} test: ${own.unreadable}` };
      // Each channel decides which stored values a test to this recipient may use.
      const config = plugin.test.config(d.recipient ?? '', own?.config);
      if ('error' in config && typeof config.error === 'string') return { error: config.error };
      const message: Outgoing = {
        kind: 'event',
        event_id: d.id,
        event_type: 'test',
        severity: 'info',
        category: 'test',
        team: team?.name ?? '',
        user: user?.email ?? '',
        domain_id: null,
        domain: null,
        endpoint_id: null,
        endpoint_name: null,
        details: { metadata: d.metadata },
        message: 'Test notification from dommon',
        timestamp: d.created_at,
        ...(req.subject ? { subject: req.subject } : {}),
      };
      return { message, config };
    }
    const setting = d.setting_id ? await look.setting(d.setting_id) : undefined;
    if (!setting) return { error: 'the notification setting of this delivery was removed' };
    // A wrong or missing secret key: a clear, permanent failure in the delivery log, never a send without secrets.
    if (setting.unreadable) return { error: setting.unreadable };
    const config = { ...setting.config };
    if (req.digest) {
      const team = await store.teams.byId(d.team_id);
      const items = (
        await Promise.all(req.digest.event_ids.map((id) => eventMessage(id, setting.user_email, look)))
      ).filter((x) => x !== null);
      if (!items.length) return { error: 'every event of this digest was removed' };
      const byPortfolio = new Map<string | null, OutgoingEvent[]>();
      for (const { portfolio, ...it } of items) byPortfolio.set(portfolio, [...(byPortfolio.get(portfolio) ?? []), it]);
      // Named portfolios first (by name), then the domains outside any portfolio.
      const groups = [...byPortfolio]
        .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
        .map(([portfolio, list]) => ({ portfolio, items: list }));
      return {
        message: {
          kind: 'digest',
          digest_id: d.id,
          team: team?.name ?? '',
          user: setting.user_email,
          from: req.digest.from,
          to: req.digest.to,
          groups,
        },
        config,
      };
    }
    const ev = d.event_id ? await eventMessage(d.event_id, setting.user_email, look) : null;
    if (!ev) return { error: 'the event of this delivery no longer exists' };
    const { portfolio: _portfolio, ...event } = ev;
    return { message: { kind: 'event', ...event }, config };
  }

  /** Runs every attempt of one claimed delivery, recording each; crash-safe through the lease. */
  function fenced(d: Delivery): void {
    log.warn(
      { delivery: d.id, lease_token: d.lease_token },
      'delivery lease taken over by another node: this attempt is not recorded here',
    );
  }

  async function run(d: Delivery, look: Lookups): Promise<void> {
    const prepared = await prepare(d, look);
    let attempt = d.attempts;
    for (;;) {
      if (stopper.signal.aborted) throw new Stopped();
      // A retry after a wait: only while the lease is still ours (another node may have taken it).
      if (attempt > d.attempts) {
        const until = new Date(now().getTime() + attemptMs + 5000).toISOString();
        if (!(await store.notifications.extendLease(d.id, owner, d.lease_token, until))) return fenced(d);
      }
      attempt++;
      const started = now();
      const t0 = performance.now();
      let out: SendOutcome & { preview: string };
      if ('error' in prepared) out = { ok: false, status: null, transient: false, error: prepared.error, preview: '' };
      else {
        try {
          out = await deliver(d.channel, prepared.message, prepared.config, {
            timeoutMs: attemptMs,
            deliveryId: d.id,
          });
        } catch (err) {
          out = { ok: false, status: null, transient: true, error: (err as Error).message, preview: '' };
        }
      }
      const at = new Date(Math.max(now().getTime(), started.getTime()));
      // Retry-After is honoured in full: the next attempt is never sooner than the receiver asked.
      const retryAfterS = out.retryAfterSeconds ?? 0;
      const tooLong = retryAfterS > MAX_RETRY_AFTER_S;
      if (tooLong)
        out = {
          ...out,
          error: `${out.error ?? 'failed'}; the receiver asks to wait ${retryAfterS} s (more than ${MAX_RETRY_AFTER_S} s): not retried`,
        };
      const retry = !out.ok && out.transient && attempt <= waits.length && !tooLong;
      const wait = retry ? Math.max(waits[attempt - 1]!, retryAfterS * 1000) : 0;
      // A long wait is not slept holding the lease: the delivery goes back to the queue, due then.
      const later = retry && wait > MAX_SLEEP_MS;
      deps.metrics?.delivery(d.channel, out.ok ? 'success' : retry ? 'retry' : 'failed');
      // The delivery's new state and its attempt row commit together (a reader never sees one without
      // the other), in one transaction with the other attempts that ended meanwhile.
      const current = await record({
        id: d.id,
        token: d.lease_token,
        attempt,
        at: at.toISOString(),
        outcome: out.ok ? 'success' : out.transient ? 'transient' : 'permanent',
        status_code: out.status,
        error: out.error,
        duration_ms: Math.round(performance.now() - t0),
        status: out.ok ? 'success' : retry ? 'partial' : 'failed',
        next_attempt_at: new Date(at.getTime() + wait).toISOString(),
        error_message: out.ok ? null : out.error,
        sent_at: at.toISOString(),
        message_preview: out.preview || null,
        release: !retry || later,
        // The wait and 5 s, in the same write as the attempt (a node killed right after it leaves no
        // longer lease behind): the next attempt extends the lease again before it sends, so a node
        // that dies while waiting hands the delivery on 5 s after the attempt was due.
        lease_until: new Date(at.getTime() + wait + 5000).toISOString(),
      });
      // Another node took the delivery over (this node's lease ran out): it goes on from there.
      if (!current) return fenced(d);
      if (!retry || later) return;
      waiting++;
      refill(); // a slot is free while this one waits
      try {
        await sleep(wait);
      } finally {
        waiting--;
      }
    }
  }

  /** A claim in progress (its deliveries join `inFlight` when it ends); stop() waits for it. */
  let claiming: Promise<number> | null = null;
  /** The last claim filled every free slot: more may be due. */
  let backlog = false;

  const claimDue = (limit: number) => {
    const t = now();
    return store.notifications.claim(
      owner,
      t.toISOString(),
      new Date(t.getTime() + attemptMs + 5000).toISOString(),
      limit,
    );
  };

  function claimAndStart(limit: number): Promise<number> {
    if (stopper.signal.aborted || claiming) return Promise.resolve(0);
    const free = Math.min(limit, concurrency - active());
    if (free <= 0) {
      backlog = true;
      return Promise.resolve(0);
    }
    const run = (async () => {
      const claimed = await claimDue(free);
      backlog = claimed.length === free;
      const look = await lookupsFor(claimed);
      for (const d of claimed) void track(d, look);
      return claimed.length;
    })().finally(() => (claiming = null));
    claiming = run;
    return run;
  }

  function refill(): void {
    if (!backlog || claiming || stopper.signal.aborted || active() > concurrency / 2) return;
    claimAndStart(concurrency).catch((err: unknown) =>
      log.error({ err: { message: (err as Error).message } }, 'claiming deliveries failed'),
    );
  }

  function track(d: Delivery, look: Lookups): Promise<void> {
    const p = run(d, look)
      .catch(async (err) => {
        // Stopping: give the delivery back so the next start resumes it (at-least-once).
        if (err instanceof Stopped)
          await store.notifications.releaseLease(d.id, owner, d.lease_token).catch(() => undefined);
        else log.error({ delivery: d.id, err: { message: (err as Error).message } }, 'delivery failed');
      })
      .finally(() => {
        inFlight.delete(p);
        refill();
      });
    inFlight.add(p);
    return p;
  }

  return {
    owner,
    /**
     * Daemon start: leases of a previous (dead) process are void. Several nodes (`ownLeasesOnly`): only
     * those this node's owner name took; other nodes' leases are theirs, and a dead node's run out.
     */
    releaseLeases: () => store.notifications.releaseLeases(deps.ownLeasesOnly ? owner : undefined),

    /**
     * Turns up to `batch` pending events into deliveries for each matching enabled instant row, in one
     * transaction: the events taken (nodes fanning out at once take different ones on PostgreSQL) and
     * their deliveries in one multi-row insert.
     */
    async fanOut(batch = 500): Promise<number> {
      if (!(await store.notifications.pendingEvents(1)).length) return 0;
      return store.transaction(async (tx) => {
        // Writing first takes SQLite's write lock at once (a read-then-write transaction could fail
        // with SQLITE_BUSY next to another worker), and leaves out events another worker took.
        const events = await tx.notifications.takeForFanOut(batch, isoNow(clock));
        const rowsByTeam = new Map<string, NotificationSetting[]>();
        const deliveries: Parameters<typeof tx.notifications.addDeliveries>[0][number][] = [];
        for (const e of events) {
          let rows = rowsByTeam.get(e.team_id);
          if (!rows) rowsByTeam.set(e.team_id, (rows = await tx.notifications.enabledForTeam(e.team_id, 'instant')));
          for (const s of rows) {
            // min_severity applies to exposure alerts on instant rows; resolutions wait for digests.
            if (!instantAlert(e, s.min_severity)) continue;
            deliveries.push({
              team_id: e.team_id,
              event_id: e.id,
              setting_id: s.id,
              channel: s.notification_type,
              recipient: recipientOf(s),
              is_test: false,
              request: {},
              status: 'queued',
              next_attempt_at: e.created_at,
              metadata: null,
              created_at: isoNow(clock),
              message_preview: e.message.slice(0, 200),
            });
          }
        }
        return tx.notifications.addDeliveries(deliveries);
      });
    },

    /** Events not yet fanned out (the worker loops while some remain). */
    pendingEvents: async () => (await store.notifications.pendingEvents(1)).length,

    /** Creates digest deliveries for rows that are due; nothing is sent when there is nothing to say. */
    async digests(): Promise<number> {
      const t = now().getTime();
      let n = 0;
      for (const s of await store.notifications.enabledDigests()) {
        const due = nextDigestAt(
          s.last_digest_at,
          s.created_at,
          s.frequency_days ?? 7,
          s.notification_time ?? '09:00:00',
          s.team_timezone,
        );
        if (due > t) continue;
        const from = s.last_digest_at ?? s.created_at;
        const to = new Date(t).toISOString();
        await store.transaction(async (tx) => {
          // Compare-and-set first: one digest per period even with two workers (and the write lock at once).
          if (!(await tx.notifications.markDigestSent(s.id, s.last_digest_at, to))) return;
          const events = await tx.notifications.eventsSince(s.team_id, from, to);
          if (events.length) {
            await tx.notifications.addDelivery({
              team_id: s.team_id,
              event_id: null,
              setting_id: s.id,
              channel: s.notification_type,
              recipient: recipientOf(s),
              is_test: false,
              request: { digest: { from, to, event_ids: events.map((e) => e.id) } },
              status: 'queued',
              next_attempt_at: to,
              metadata: { digest: true, items: events.length, from, to },
              created_at: to,
              message_preview: `Digest: ${events.length} item(s)`,
            });
            n++;
          }
        });
      }
      return n;
    },

    /**
     * Claims due deliveries for the free slots (at most `concurrency` sending at once) and starts them;
     * resolves with the count (attempts run in the background). While claims fill every free slot
     * (a backlog), each delivery that settles claims more once half the slots are free, without
     * waiting for the next cycle of the worker.
     */
    startDue: (limit = concurrency) => claimAndStart(limit),
    /** Claims due deliveries and resolves when every claimed one is settled (retries included). */
    async deliverDue(limit = 50): Promise<number> {
      const claimed = await claimDue(limit);
      const look = await lookupsFor(claimed);
      await Promise.all(claimed.map((d) => track(d, look)));
      return claimed.length;
    },

    inFlight: () => inFlight.size,

    /** Lets attempts in progress finish (each is bounded by the attempt timeout) and cuts retry waits
     * short; those deliveries keep their due time and resume on the next start. */
    async stop(): Promise<void> {
      stopper.abort();
      await claiming?.catch(() => undefined);
      await Promise.all([...inFlight]);
    },
  };
}

function recipientOf(s: NotificationSetting): string | null {
  return pluginOf(s.notification_type)?.recipient(s.config, s.user_email) ?? null;
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
