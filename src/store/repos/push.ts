// Heartbeat (`push`) endpoints: their ping keys and schedules, and their pings (one insert each).
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { HeartbeatPings, PingKind, PushCheck, PushPing, PushPingRecord } from '../../domain/push.js';
import { newId } from './util.js';

const toCheck = (r: DB['push_checks']): PushCheck => ({
  endpoint_id: r.endpoint_id,
  team_id: r.team_id,
  ping_key: r.ping_key,
  created_at: Number(r.created_at),
});

export function pushRepo(db: Kysely<DB>) {
  /** The last ping of one of `kinds` (the index on endpoint_id, kind, at). */
  async function last(endpointId: string, kinds: readonly PingKind[]): Promise<PushPing | null> {
    const r = await db
      .selectFrom('push_pings')
      .select(['kind', 'at', 'exit_status', 'duration_ms'])
      .where('endpoint_id', '=', endpointId)
      .where('kind', 'in', kinds)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r
      ? {
          kind: r.kind as PingKind,
          at: Number(r.at),
          exit_status: r.exit_status,
          duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
        }
      : null;
  }
  async function byEndpoint(endpointId: string): Promise<PushCheck | undefined> {
    const r = await db.selectFrom('push_checks').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
    return r && toCheck(r);
  }
  return {
    async insert(c: PushCheck): Promise<void> {
      await db.insertInto('push_checks').values(c).execute();
    },
    byEndpoint,
    /** The checks of these endpoints, by endpoint id (one query). */
    async ofEndpoints(endpointIds: readonly string[]): Promise<Map<string, PushCheck>> {
      if (!endpointIds.length) return new Map();
      const rows = await db.selectFrom('push_checks').selectAll().where('endpoint_id', 'in', endpointIds).execute();
      return new Map(rows.map((r) => [r.endpoint_id, toCheck(r)]));
    },
    /** Gives a push endpoint's check another ping key (a configuration file's `ping_key`). */
    async setKey(endpointId: string, key: string): Promise<void> {
      await db.updateTable('push_checks').set({ ping_key: key }).where('endpoint_id', '=', endpointId).execute();
    },
    async byKey(key: string): Promise<PushCheck | undefined> {
      const r = await db.selectFrom('push_checks').selectAll().where('ping_key', '=', key).executeTakeFirst();
      return r && toCheck(r);
    },
    lastStart: (endpointId: string) => last(endpointId, ['start']),
    lastFinish: (endpointId: string) => last(endpointId, ['success', 'fail']),
    /** What the liveness check reads: the last start and the last finish. */
    async heartbeat(endpointId: string): Promise<Omit<HeartbeatPings, 'now'> | undefined> {
      const [check, lastStart, lastFinish] = await Promise.all([
        byEndpoint(endpointId),
        last(endpointId, ['start']),
        last(endpointId, ['success', 'fail']),
      ]);
      if (!check) return undefined;
      return { created_at: check.created_at, lastStart, lastFinish };
    },
    /** One ping: one insert. */
    async addPing(endpointId: string, p: PushPingRecord): Promise<void> {
      await db
        .insertInto('push_pings')
        .values({ id: newId(), endpoint_id: endpointId, ...p })
        .execute();
    },
    /** The latest pings, newest first. */
    async pings(endpointId: string, limit: number): Promise<PushPingRecord[]> {
      const rows = await db
        .selectFrom('push_pings')
        .select(['kind', 'at', 'exit_status', 'duration_ms', 'body', 'body_bytes'])
        .where('endpoint_id', '=', endpointId)
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        kind: r.kind as PingKind,
        at: Number(r.at),
        exit_status: r.exit_status,
        duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
        body: r.body,
        body_bytes: r.body_bytes,
      }));
    },
  };
}
