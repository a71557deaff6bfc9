// The durable outbox: events are inserted in the same transaction as the state change that causes them.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { EventFilter, EventRow, NewEvent, Page, PageOf } from '../../domain/types.js';
import { newId, parseJson } from './util.js';

export function eventsRepo(db: Kysely<DB>) {
  return {
    /** Returns the new id, or null when an event with the same dedupe key exists. */
    async add(e: NewEvent, now: string): Promise<string | null> {
      const id = newId();
      const r = await db
        .insertInto('events')
        .values({
          id,
          team_id: e.team_id,
          event_type: e.event_type,
          severity: e.severity,
          category: e.category ?? null,
          domain_id: e.domain_id ?? null,
          endpoint_id: e.endpoint_id ?? null,
          message: e.message,
          details: JSON.stringify(e.details ?? {}),
          dedupe_key: e.dedupe_key ?? null,
          created_at: now,
          // Raised inside a maintenance window: recorded, never fanned out to a channel.
          fanned_out_at: e.maintenance_window_id ? now : null,
          maintenance_window_id: e.maintenance_window_id ?? null,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0 ? id : null;
    },
    /** The team's events matching `f`, newest first (ties by id, so pages never overlap). */
    async page(teamId: string, f: EventFilter, p: Page): Promise<PageOf<EventRow>> {
      let q = db.selectFrom('events').where('team_id', '=', teamId);
      if (f.category !== undefined) q = q.where('category', '=', f.category);
      if (f.event_type !== undefined) q = q.where('event_type', '=', f.event_type);
      if (f.severity !== undefined) q = q.where('severity', '=', f.severity);
      if (f.domain_id !== undefined) q = q.where('domain_id', '=', f.domain_id);
      if (f.endpoint_id !== undefined) q = q.where('endpoint_id', '=', f.endpoint_id);
      if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
      const { n } = await q.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await q
        .select([
          'id',
          'event_type',
          'category',
          'severity',
          'message',
          'domain_id',
          'endpoint_id',
          'created_at',
          'details',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(p.limit)
        .offset(p.offset)
        .execute();
      return {
        items: rows.map((r) => ({ ...r, details: parseJson<Record<string, unknown>>(r.details, {}) })),
        total: Number(n),
        ...p,
      };
    },
    async list(teamId: string, limit = 100) {
      return db
        .selectFrom('events')
        .selectAll()
        .where('team_id', '=', teamId)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute();
    },
  };
}
