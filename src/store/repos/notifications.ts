// Notification settings rows, deliveries (the outbox fan-out), their attempts and the delivery log.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, DeliveriesTable, NotificationSettingsTable } from '../schema.js';
import { fromBool, newId, parseJson, toBool } from './util.js';
import { engineOf } from '../migrations/engine.js';
import type { Delivery, DeliveryRequest, NotificationSetting } from '../../domain/notification.js';
import { isSealed, SealError, sealedKeyId, type Sealer } from '../sealing.js';

/** Deliveries added at once from which addDeliveries() refreshes the table's statistics (PostgreSQL). */
const BURST_ROWS = 1000;
/** Deliveries this process added since it last refreshed the statistics (repositories are made per transaction). */
let addedSinceAnalyze = 0;

/** A row's config: sealed (opened with `sealer`) or plain JSON from before sealing; never throws. */
function openConfig(
  stored: string,
  sealer: Sealer | undefined,
): { config: Record<string, unknown>; unreadable?: string } {
  if (!isSealed(stored)) return { config: parseJson<Record<string, unknown>>(stored, {}) };
  if (!sealer) return { config: {}, unreadable: 'the channel secrets are sealed and no secret key was given' };
  try {
    return { config: parseJson<Record<string, unknown>>(sealer.unseal(stored), {}) };
  } catch (err) {
    if (err instanceof SealError)
      return { config: {}, unreadable: `the channel secrets cannot be unsealed: ${err.message}` };
    throw err;
  }
}

const toSetting =
  (sealer: Sealer | undefined) =>
  (r: Selectable<NotificationSettingsTable> & { user_email: string; team_timezone: string }): NotificationSetting => {
    const { config, unreadable } = openConfig(r.config, sealer);
    return {
      ...r,
      delivery_class: r.delivery_class as NotificationSetting['delivery_class'],
      is_enabled: toBool(r.is_enabled),
      config,
      ...(unreadable ? { unreadable } : {}),
    };
  };

const toDelivery = (r: Selectable<DeliveriesTable>): Delivery => ({
  ...r,
  is_test: toBool(r.is_test),
  request: parseJson<DeliveryRequest>(r.request, {}),
  metadata: parseJson<Record<string, unknown> | null>(r.metadata, null),
});

/** One attempt's outcome and the delivery's state after it (recordAttempts). */
interface AttemptRecord {
  /** The delivery. */
  id: string;
  /** The fencing token of the lease the attempt ran under. */
  token: number;
  attempt: number;
  at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  status: string;
  next_attempt_at: string;
  error_message: string | null;
  sent_at: string | null;
  message_preview: string | null;
  /** The lease ends with this attempt (no retry, or a retry later than a node sleeps). */
  release: boolean;
  /** Kept for a retry after a short wait: the lease now runs until then (with the attempt, not after it). */
  lease_until?: string;
}

type NewDelivery = Pick<
  Delivery,
  | 'team_id'
  | 'event_id'
  | 'setting_id'
  | 'channel'
  | 'recipient'
  | 'is_test'
  | 'request'
  | 'status'
  | 'next_attempt_at'
  | 'metadata'
  | 'created_at'
>;

/** A new delivery's row: a new id, no attempt and no lease yet. */
const deliveryRow = (d: NewDelivery & { message_preview?: string | null }) => ({
  ...d,
  id: newId(),
  is_test: fromBool(d.is_test),
  request: JSON.stringify(d.request),
  metadata: d.metadata === null ? null : JSON.stringify(d.metadata),
  message_preview: d.message_preview ?? null,
  attempts: 0,
  lease_owner: null,
  lease_until: null,
  lease_token: 0,
  error_message: null,
  sent_at: null,
});

/** `sealer` seals every config written and opens every one read (none: written plain, sealed ones unreadable). */
export function notificationsRepo(db: Kysely<DB>, sealer?: Sealer) {
  const toRow = toSetting(sealer);
  const stored = (config: Record<string, unknown>) =>
    sealer ? sealer.seal(JSON.stringify(config)) : JSON.stringify(config);
  const settings = () =>
    db
      .selectFrom('notification_settings as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .innerJoin('teams as t', 't.id', 's.team_id')
      .selectAll('s')
      .select(['u.email as user_email', 't.timezone as team_timezone']);
  const eventContexts = async (ids: readonly string[]) => {
    if (!ids.length) return [];
    const rows = await db
      .selectFrom('events as e')
      .innerJoin('teams as t', 't.id', 'e.team_id')
      .leftJoin('domains as d', 'd.id', 'e.domain_id')
      .leftJoin('endpoints as ep', 'ep.id', 'e.endpoint_id')
      .leftJoin('portfolios as p', 'p.id', 'd.portfolio_id')
      .selectAll('e')
      .select([
        't.name as team_name',
        'd.domain as domain_name',
        'ep.name as endpoint_name',
        'p.name as portfolio_name',
      ])
      .where('e.id', 'in', ids)
      .execute();
    return rows.map((r) => ({ ...r, details: parseJson<Record<string, unknown>>(r.details, {}) }));
  };
  return {
    async settingsForUser(userId: string): Promise<NotificationSetting[]> {
      return (
        await settings()
          .where('s.user_id', '=', userId)
          .orderBy('s.notification_type')
          .orderBy('s.delivery_class')
          .execute()
      ).map(toRow);
    },
    async setting(userId: string, type: string, cls: string): Promise<NotificationSetting | undefined> {
      const r = await settings()
        .where('s.user_id', '=', userId)
        .where('s.notification_type', '=', type)
        .where('s.delivery_class', '=', cls)
        .executeTakeFirst();
      return r && toRow(r);
    },
    async settingById(id: string): Promise<NotificationSetting | undefined> {
      const r = await settings().where('s.id', '=', id).executeTakeFirst();
      return r && toRow(r);
    },
    /** Several rows by id in one query (a claimed batch of deliveries); ids not found are left out. */
    async settingsByIds(ids: readonly string[]): Promise<NotificationSetting[]> {
      if (!ids.length) return [];
      return (await settings().where('s.id', 'in', ids).execute()).map(toRow);
    },
    /** Enabled rows of a team of one delivery class (the fan-out and digest targets). */
    async enabledForTeam(teamId: string, cls: 'instant' | 'digest'): Promise<NotificationSetting[]> {
      return (
        await settings()
          .where('s.team_id', '=', teamId)
          .where('s.delivery_class', '=', cls)
          .where('s.is_enabled', '=', 1)
          .execute()
      ).map(toRow);
    },
    async enabledDigests(): Promise<NotificationSetting[]> {
      return (await settings().where('s.delivery_class', '=', 'digest').where('s.is_enabled', '=', 1).execute()).map(
        toRow,
      );
    },
    async upsertSetting(
      row: Omit<
        NotificationSetting,
        'id' | 'user_email' | 'team_timezone' | 'created_at' | 'updated_at' | 'last_digest_at'
      >,
      now: string,
    ): Promise<void> {
      const values = {
        is_enabled: row.is_enabled ? 1 : 0,
        frequency_days: row.frequency_days,
        notification_time: row.notification_time,
        config: stored(row.config),
        min_severity: row.min_severity,
        updated_at: now,
      };
      await db
        .insertInto('notification_settings')
        .values({
          id: newId(),
          team_id: row.team_id,
          user_id: row.user_id,
          notification_type: row.notification_type,
          delivery_class: row.delivery_class,
          last_digest_at: null,
          created_at: now,
          ...values,
        })
        .onConflict((oc) => oc.columns(['user_id', 'notification_type', 'delivery_class']).doUpdateSet(values))
        .execute();
    },
    /** Seals the configs still stored plain (a database from before sealing); returns how many. */
    async sealPlain(): Promise<number> {
      if (!sealer) return 0;
      const rows = await db
        .selectFrom('notification_settings')
        .select(['id', 'config'])
        .where('config', 'not like', 'sealed:%')
        .execute();
      let n = 0;
      for (const r of rows) {
        // Compared with the value read: a row rewritten meanwhile (by a node, sealed) is left alone.
        const u = await db
          .updateTable('notification_settings')
          .set({ config: stored(parseJson<Record<string, unknown>>(r.config, {})) })
          .where('id', '=', r.id)
          .where('config', '=', r.config)
          .executeTakeFirst();
        n += Number(u.numUpdatedRows);
      }
      return n;
    },
    /**
     * Every config sealed again under the sealer's first key (run in one transaction: `dommon secrets
     * rotate-key`). A row no key opens stops it (SealError): rotation never drops a secret it cannot read.
     */
    async resealAll(): Promise<number> {
      if (!sealer) throw new SealError('no secret key to seal with');
      const rows = await db.selectFrom('notification_settings').select(['id', 'config']).execute();
      const opened = rows.map((r) => {
        const c = openConfig(r.config, sealer);
        if (c.unreadable) throw new SealError(`notification setting ${r.id}: ${c.unreadable}`);
        return { id: r.id, config: c.config };
      });
      for (const r of opened)
        await db
          .updateTable('notification_settings')
          .set({ config: stored(r.config) })
          .where('id', '=', r.id)
          .execute();
      return opened.length;
    },
    /** How many configs are stored under each key id (`plain`: not sealed yet). */
    async sealedKeyIds(): Promise<Record<string, number>> {
      const rows = await db.selectFrom('notification_settings').select('config').execute();
      const out: Record<string, number> = {};
      for (const r of rows) {
        const id = sealedKeyId(r.config) ?? 'plain';
        out[id] = (out[id] ?? 0) + 1;
      }
      return out;
    },
    /** Compare-and-set of the last send: false when another worker got there first. */
    async markDigestSent(id: string, prev: string | null, at: string): Promise<boolean> {
      const r = await db
        .updateTable('notification_settings')
        .set({ last_digest_at: at })
        .where('id', '=', id)
        .where((w) => (prev === null ? w('last_digest_at', 'is', null) : w('last_digest_at', '=', prev)))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async pendingEvents(limit: number) {
      return db
        .selectFrom('events')
        .selectAll()
        .where('fanned_out_at', 'is', null)
        .orderBy('created_at')
        .limit(limit)
        .execute();
    },
    /**
     * Takes up to `limit` events not yet fanned out (the oldest first) and marks them fanned out at
     * `at`, in one statement; returns them. Run it first in the fan-out's transaction: on PostgreSQL the
     * rows are picked `FOR UPDATE SKIP LOCKED`, so nodes fanning out at once take different events
     * instead of waiting for each other's; on SQLite the write takes the write lock at once.
     */
    async takeForFanOut(limit: number, at: string) {
      const pg = engineOf(db) === 'postgres';
      return db
        .updateTable('events')
        .set({ fanned_out_at: at })
        .where('id', 'in', (eb) => {
          const q = eb
            .selectFrom('events')
            .select('id')
            .where('fanned_out_at', 'is', null)
            .orderBy('created_at')
            .limit(limit);
          return pg ? q.forUpdate().skipLocked() : q;
        })
        .where('fanned_out_at', 'is', null)
        .returningAll()
        .execute();
    },
    async event(id: string) {
      return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** One event with the names its message shows: team, domain, endpoint and the domain's portfolio (its details decoded). */
    async eventContext(id: string) {
      return (await eventContexts([id]))[0];
    },
    /** eventContext() of several events in one query (a claimed batch of deliveries); ids not found are left out. */
    eventContexts,
    async eventsSince(teamId: string, since: string, until: string) {
      return db
        .selectFrom('events')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('created_at', '>', since)
        .where('created_at', '<=', until)
        .where('event_type', '!=', 'test')
        .where('maintenance_window_id', 'is', null)
        .orderBy('created_at')
        .execute();
    },

    /**
     * Inserts a delivery unless one exists for the same (event, setting): same event, same channel, once.
     * Returns the new delivery's id (the store's), or null when there was one already.
     */
    async addDelivery(d: NewDelivery & { message_preview?: string | null }): Promise<string | null> {
      const row = deliveryRow(d);
      const r = await db
        .insertInto('deliveries')
        .values(row)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0 ? row.id : null;
    },
    /**
     * addDelivery() of many rows in one statement per 500 (the fan-out of a batch of events): a row whose
     * (event, setting) has a delivery already is left out. Returns how many were inserted.
     */
    async addDeliveries(rows: readonly (NewDelivery & { message_preview: string | null })[]): Promise<number> {
      let n = 0;
      for (let i = 0; i < rows.length; i += 500) {
        const r = await db
          .insertInto('deliveries')
          .values(rows.slice(i, i + 500).map(deliveryRow))
          .onConflict((oc) => oc.doNothing())
          .returning('id')
          .execute();
        n += r.length;
      }
      // A burst (an outage of many endpoints, a big fan-out) on PostgreSQL: the table's statistics are
      // brought up to date once this process has added BURST_ROWS since it last did, rather than at
      // autovacuum's next pass, up to a minute away. Planned on stale ones (a near-empty table), the
      // workers' claim sorted every due row instead of reading `deliveries_claimable` from its start:
      // 12.7 against 1.5 ms a claim with 20,000 queued.
      addedSinceAnalyze += n;
      if (addedSinceAnalyze >= BURST_ROWS && engineOf(db) === 'postgres') {
        addedSinceAnalyze = 0;
        await sql`analyze deliveries`.execute(db);
      }
      return n;
    },
    /**
     * Claims up to `limit` due deliveries for `owner` until `leaseUntil` (atomic in one statement), each
     * with a new fencing token (lease_token + 1). On PostgreSQL the rows are picked `FOR UPDATE SKIP
     * LOCKED`: a row another node is claiming is skipped, and one it has just claimed is re-read (its
     * lease is then current) and left out, so two nodes never claim the same row. SQLite has one writer.
     */
    async claim(owner: string, now: string, leaseUntil: string, limit: number): Promise<Delivery[]> {
      const pg = engineOf(db) === 'postgres';
      const rows = await db
        .updateTable('deliveries')
        .set({ lease_owner: owner, lease_until: leaseUntil, lease_token: sql`lease_token + 1` })
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('deliveries')
            .select('id')
            // The statuses as literals, as the partial index `deliveries_claimable` names them: a prepared
            // statement's generic plan can use that index only where its predicate is in the text.
            .where(sql<boolean>`status in ('queued', 'partial')`)
            .where('next_attempt_at', '<=', now)
            .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]))
            .orderBy('next_attempt_at')
            .limit(limit);
          return pg ? due.forUpdate().skipLocked() : due;
        })
        .returningAll()
        .execute();
      return rows.map(toDelivery);
    },
    /** Extends a lease while it is still the one claimed with `token`; false when another node took it. */
    async extendLease(id: string, owner: string, token: number, until: string): Promise<boolean> {
      const r = await db
        .updateTable('deliveries')
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('lease_token', '=', token)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Gives one delivery back (the worker is stopping mid-attempt); it is claimed again later. */
    async releaseLease(id: string, owner: string, token: number): Promise<void> {
      await db
        .updateTable('deliveries')
        .set({ lease_owner: null, lease_until: null })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('lease_token', '=', token)
        .execute();
    },
    /**
     * On start: leases of a previous process are void. With `owner`, only that owner's (several nodes
     * on PostgreSQL: another node's leases are its own); without, every lease (SQLite: one process).
     */
    async releaseLeases(owner?: string): Promise<number> {
      let q = db
        .updateTable('deliveries')
        .set({ lease_owner: null, lease_until: null })
        .where('lease_until', 'is not', null);
      if (owner !== undefined) q = q.where('lease_owner', '=', owner);
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /**
     * Records the outcomes of many attempts at once (call it inside a transaction: each delivery's new
     * state and its attempt row commit together). Each row is fenced by the lease it ran under: a row
     * whose lease is no longer `owner`'s with that token (another node took it over) is left as it is
     * and gets no attempt row. Returns the ids written. PostgreSQL: one `UPDATE ... FROM unnest(...)`
     * and one multi-row insert, whatever the batch size; SQLite: one update per row (no round trips).
     */
    async recordAttempts(rows: readonly AttemptRecord[], owner: string): Promise<Set<string>> {
      if (!rows.length) return new Set();
      let written: Set<string>;
      if (engineOf(db) === 'postgres') {
        const col = <T>(f: (r: AttemptRecord) => T) => rows.map(f);
        const r = await sql<{ id: string }>`update deliveries as d set
            status = v.status,
            attempts = v.attempt,
            next_attempt_at = v.next_attempt_at,
            error_message = v.error_message,
            sent_at = v.sent_at,
            message_preview = coalesce(v.message_preview, d.message_preview),
            lease_owner = case when v.release then null else d.lease_owner end,
            lease_until = case when v.release then null else coalesce(v.lease_until, d.lease_until) end
          from unnest(
            ${col((r) => r.id)}::text[], ${col((r) => r.token)}::int[], ${col((r) => r.status)}::text[],
            ${col((r) => r.attempt)}::int[], ${col((r) => r.next_attempt_at)}::text[],
            ${col((r) => r.error_message)}::text[], ${col((r) => r.sent_at)}::text[],
            ${col((r) => r.message_preview)}::text[], ${col((r) => r.release)}::bool[],
            ${col((r) => r.lease_until ?? null)}::text[]
          ) as v(id, token, status, attempt, next_attempt_at, error_message, sent_at, message_preview, release, lease_until)
          where d.id = v.id and d.lease_owner = ${owner} and d.lease_token = v.token
          returning d.id`.execute(db);
        written = new Set(r.rows.map((x) => x.id));
      } else {
        written = new Set();
        for (const r of rows) {
          const u = await db
            .updateTable('deliveries')
            .set({
              status: r.status,
              attempts: r.attempt,
              next_attempt_at: r.next_attempt_at,
              error_message: r.error_message,
              sent_at: r.sent_at,
              message_preview: sql`coalesce(${r.message_preview}, message_preview)`,
              ...(r.release
                ? { lease_owner: null, lease_until: null }
                : r.lease_until
                  ? { lease_until: r.lease_until }
                  : {}),
            })
            .where('id', '=', r.id)
            .where('lease_owner', '=', owner)
            .where('lease_token', '=', r.token)
            .executeTakeFirst();
          if (Number(u.numUpdatedRows) > 0) written.add(r.id);
        }
      }
      const attempts = rows
        .filter((r) => written.has(r.id))
        .map((r) => ({
          id: newId(),
          delivery_id: r.id,
          attempt: r.attempt,
          at: r.at,
          outcome: r.outcome,
          status_code: r.status_code,
          error: r.error,
          duration_ms: r.duration_ms,
        }));
      for (let i = 0; i < attempts.length; i += 500)
        await db
          .insertInto('delivery_attempts')
          .values(attempts.slice(i, i + 500))
          .execute();
      return written;
    },
    async attempts(deliveryId: string) {
      return db
        .selectFrom('delivery_attempts')
        .selectAll()
        .where('delivery_id', '=', deliveryId)
        .orderBy('attempt')
        .execute();
    },
    async delivery(id: string): Promise<Delivery | undefined> {
      const r = await db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toDelivery(r);
    },
    /** Test sends a team queued since `since`, and the oldest of them (when its hour frees a slot). */
    async testSendsSince(teamId: string, since: string): Promise<{ n: number; oldest: string | null }> {
      const r = await db
        .selectFrom('deliveries')
        .where('team_id', '=', teamId)
        .where('is_test', '=', 1)
        .where('created_at', '>', since)
        .select((e) => [e.fn.countAll<number>().as('n'), e.fn.min<string>('created_at').as('oldest')])
        .executeTakeFirstOrThrow();
      return { n: Number(r.n), oldest: r.oldest ?? null };
    },
    /** The delivery log: deliveries with at least one attempt, by the time shown (`sent_at`, the latest attempt), newest first. */
    async log(teamId: string, f: { channel?: string; status?: string }, limit: number, offset: number) {
      let q = db.selectFrom('deliveries').where('team_id', '=', teamId).where('attempts', '>', 0);
      if (f.channel) q = q.where('channel', '=', f.channel);
      if (f.status) q = q.where('status', '=', f.status);
      const { n } = await q.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await q
        .selectAll()
        .orderBy('sent_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return { items: rows.map(toDelivery), total: Number(n) };
    },
  };
}
