// The audit trail's rows (services/audit.ts writes them in the transaction of each change): written
// once, read newest first per team with a cursor (ids are UUIDv7, so id order is time order), and
// pruned by age by the retention job.
import type { Kysely } from 'kysely';
import type { AuditLogTable, DB } from '../schema.js';
import type { AuditEntry, AuditFilter, AuditVia } from '../../domain/audit.js';
import { newId, parseJson } from './util.js';

type AuditRow = Omit<AuditEntry, 'id'>;

const toEntry = (r: AuditLogTable): AuditEntry => ({
  id: r.id,
  team_id: r.team_id,
  at: r.at,
  actor: { user_id: r.actor_user_id, email: r.actor_email },
  via: { kind: r.via as AuditVia, id: r.via_id, name: r.via_name },
  action: r.action,
  object: { kind: r.object_kind, id: r.object_id, name: r.object_name },
  before: parseJson<unknown>(r.before, null),
  after: parseJson<unknown>(r.after, null),
  request_id: r.request_id,
});

const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

export function auditRepo(db: Kysely<DB>) {
  return {
    /** Writes the rows in order, a few hundred per statement (under both engines' limits on bound parameters). */
    async insert(rows: readonly AuditRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 500)
        await db
          .insertInto('audit_log')
          .values(
            rows.slice(i, i + 500).map((r) => ({
              id: newId(),
              team_id: r.team_id,
              at: r.at,
              actor_user_id: r.actor.user_id,
              actor_email: r.actor.email,
              via: r.via.kind,
              via_id: r.via.id,
              via_name: r.via.name,
              action: r.action,
              object_kind: r.object.kind,
              object_id: r.object.id,
              object_name: r.object.name,
              before: json(r.before),
              after: json(r.after),
              request_id: r.request_id,
            })),
          )
          .execute();
    },

    /** Up to `limit` entries of a team, newest first, older than the entry `after` (a cursor) when given. */
    async list(teamId: string, f: AuditFilter, opts: { after?: string; limit: number }): Promise<AuditEntry[]> {
      let q = db.selectFrom('audit_log').selectAll().where('team_id', '=', teamId);
      if (opts.after) q = q.where('id', '<', opts.after);
      if (f.since) q = q.where('at', '>=', f.since);
      if (f.until) q = q.where('at', '<', f.until);
      if (f.actor) {
        const a = f.actor;
        q = q.where((w) => w.or([w('actor_user_id', '=', a), w('actor_email', '=', a.toLowerCase())]));
      }
      if (f.object_kind) q = q.where('object_kind', '=', f.object_kind);
      if (f.object_id) q = q.where('object_id', '=', f.object_id);
      if (f.action) q = q.where('action', '=', f.action);
      const rows = await q.orderBy('id', 'desc').limit(opts.limit).execute();
      return rows.map(toEntry);
    },

    /** Deletes up to `limit` entries older than `before` (ISO time); the number deleted. */
    async prune(before: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('audit_log')
        .where('id', 'in', (q) => q.selectFrom('audit_log').select('id').where('at', '<', before).limit(limit))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
