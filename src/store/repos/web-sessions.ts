// The web dashboard's sessions (services/sessions.ts): looked up by the SHA-256 of the cookie's id,
// always together with the token they came from, so a revoked token or a removed user (whose tokens
// are revoked) ends them on every node at once.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { Principal } from '../../domain/types.js';
import { PRINCIPAL_COLUMNS, principalOf } from './principal.js';

interface SessionRow {
  principal: Principal;
  created_at: number;
  last_seen: number;
  expires_at: number;
}

export function webSessionsRepo(db: Kysely<DB>) {
  return {
    async create(s: { id_hash: string; token_id: string; now: number; expires_at: number }): Promise<void> {
      await db
        .insertInto('web_sessions')
        .values({
          id_hash: s.id_hash,
          token_id: s.token_id,
          created_at: s.now,
          last_seen: s.now,
          expires_at: s.expires_at,
        })
        .execute();
    },
    /** The session and the caller behind it, if the session exists and its token is not revoked. */
    async byHash(idHash: string): Promise<SessionRow | undefined> {
      const row = await db
        .selectFrom('web_sessions as s')
        .innerJoin('api_tokens as t', 't.id', 's.token_id')
        .innerJoin('teams as tm', 'tm.id', 't.team_id')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select(['s.created_at', 's.last_seen', 's.expires_at', ...PRINCIPAL_COLUMNS])
        .where('s.id_hash', '=', idHash)
        .where('t.revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        principal: principalOf(row),
        created_at: Number(row.created_at),
        last_seen: Number(row.last_seen),
        expires_at: Number(row.expires_at),
      };
    },
    async touch(idHash: string, now: number): Promise<void> {
      await db.updateTable('web_sessions').set({ last_seen: now }).where('id_hash', '=', idHash).execute();
    },
    async remove(idHash: string): Promise<void> {
      await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
    },
    /** Ends every session made from one of `tokenIds`; returns how many. */
    async removeForTokens(tokenIds: readonly string[]): Promise<number> {
      if (!tokenIds.length) return 0;
      const r = await db.deleteFrom('web_sessions').where('token_id', 'in', tokenIds).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Removes sessions idle since before `idleBefore` or past their absolute end at `now` (epoch ms). */
    async prune(now: number, idleBefore: number): Promise<number> {
      const r = await db
        .deleteFrom('web_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
