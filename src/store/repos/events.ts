// The durable outbox: events are inserted in the same transaction as the state change that causes them.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import { newId } from './util.js';

export interface NewEvent {
  team_id: string;
  event_type: string;
  severity: string;
  category?: string | null;
  domain_id?: string | null;
  endpoint_id?: string | null;
  message: string;
  details?: Record<string, unknown>;
  /** Same key, same team: recorded once (e.g. one alert per expiry window). */
  dedupe_key?: string | null;
}

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
          fanned_out_at: null,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0 ? id : null;
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
