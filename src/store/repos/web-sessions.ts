// The web dashboard's sessions (services/sessions.ts): looked up by the SHA-256 of the cookie's id,
// always together with the token they came from, so a revoked token or a removed user (whose tokens
// are revoked) ends them on every node at once; a password sign-in's session together with its
// membership and account, so a removed member or a disabled account ends them the same way.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { Principal } from '../../domain/types.js';
import { PRINCIPAL_COLUMNS, principalOf } from './principal.js';
import { effectiveRole } from '../../domain/roles.js';

interface SessionRow {
  principal: Principal;
  created_at: number;
  last_seen: number;
  expires_at: number;
}

export function webSessionsRepo(db: Kysely<DB>) {
  /** A password sign-in's caller: the membership's team and e-mail, while its account is enabled. */
  async function memberSession(
    idHash: string,
    userId: string,
    s: { created_at: number; last_seen: number; expires_at: number },
  ): Promise<SessionRow | undefined> {
    const row = await db
      .selectFrom('users as u')
      .innerJoin('teams as tm', 'tm.id', 'u.team_id')
      .innerJoin('accounts as a', 'a.id', 'u.account_id')
      .select([
        'u.id as user_id',
        'u.email as user_email',
        'u.role as member_role',
        'u.team_id',
        'tm.name as team_name',
        'a.id as account_id',
      ])
      .where('u.id', '=', userId)
      .where('a.disabled', '=', 0)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      principal: {
        // No token: the session itself is the credential, named by the start of its id's hash (never the id).
        token_id: `session:${idHash.slice(0, 12)}`,
        token_name: 'password sign-in',
        team_id: row.team_id,
        team_name: row.team_name,
        user_id: row.user_id,
        user_email: row.user_email,
        read_only: false,
        operator: false,
        // The member's role as it is now: a change applies at the session's next request.
        role: effectiveRole(row.member_role, null, false),
        account_id: row.account_id,
      },
      created_at: Number(s.created_at),
      last_seen: Number(s.last_seen),
      expires_at: Number(s.expires_at),
    };
  }

  return {
    /** A session made from a token (`token_id`) or by a password sign-in (`user_id`: the membership). */
    async create(
      s: { id_hash: string; now: number; expires_at: number } & (
        { token_id: string; user_id?: undefined } | { user_id: string; token_id?: undefined }
      ),
    ): Promise<void> {
      await db
        .insertInto('web_sessions')
        .values({
          id_hash: s.id_hash,
          token_id: s.token_id ?? null,
          user_id: s.user_id ?? null,
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
      if (row)
        return {
          principal: principalOf(row),
          created_at: Number(row.created_at),
          last_seen: Number(row.last_seen),
          expires_at: Number(row.expires_at),
        };
      // Not a live token's session: a password sign-in's, if it is one.
      const s = await db
        .selectFrom('web_sessions')
        .select(['user_id', 'created_at', 'last_seen', 'expires_at'])
        .where('id_hash', '=', idHash)
        .where('token_id', 'is', null)
        .executeTakeFirst();
      return s?.user_id ? memberSession(idHash, s.user_id, s) : undefined;
    },
    /** Moves a password sign-in's session to another membership of the same account (another team). */
    async switchMembership(idHash: string, userId: string): Promise<void> {
      await db
        .updateTable('web_sessions')
        .set({ user_id: userId })
        .where('id_hash', '=', idHash)
        .where('token_id', 'is', null)
        .execute();
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
    /**
     * Ends every password sign-in session of an account (in any of its teams) but the one keyed `keep`,
     * when given; returns how many.
     */
    async removeForAccount(accountId: string, keep?: string): Promise<number> {
      let q = db
        .deleteFrom('web_sessions')
        .where('user_id', 'in', db.selectFrom('users').select('id').where('account_id', '=', accountId));
      if (keep !== undefined) q = q.where('id_hash', '!=', keep);
      const r = await q.executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Ends every password sign-in's session of one of the memberships `userIds`; returns how many. */
    async removeForUsers(userIds: readonly string[]): Promise<number> {
      if (!userIds.length) return 0;
      const r = await db.deleteFrom('web_sessions').where('user_id', 'in', userIds).executeTakeFirst();
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
