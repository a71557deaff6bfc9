// Teams, their users and API tokens (stored only as SHA-256 hashes).
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { ApiToken, Principal, Team, User } from '../../domain/types.js';
import { isRole, type Role } from '../../domain/roles.js';
import { fromBool, newId, toBool } from './util.js';
import { PRINCIPAL_COLUMNS, principalOf } from './principal.js';

export function teamsRepo(db: Kysely<DB>) {
  return {
    async byName(name: string): Promise<Team | undefined> {
      return db.selectFrom('teams').select(['id', 'name', 'created_at']).where('name', '=', name).executeTakeFirst();
    },
    async byId(id: string): Promise<Team | undefined> {
      return db.selectFrom('teams').select(['id', 'name', 'created_at']).where('id', '=', id).executeTakeFirst();
    },
    async list(): Promise<Team[]> {
      return db
        .selectFrom('teams')
        .select(['id', 'name', 'created_at'])
        .orderBy('created_at')
        .orderBy('name')
        .execute();
    },
    async create(name: string, now: string): Promise<Team> {
      const team = { id: newId(), name, created_at: now };
      await db
        .insertInto('teams')
        .values({ ...team, timezone: 'UTC' })
        .execute();
      return team;
    },
  };
}

export function usersRepo(db: Kysely<DB>, engine: 'sqlite' | 'postgres') {
  const cols = ['id', 'team_id', 'email', 'created_at', 'role'] as const;
  const user = (r: { id: string; team_id: string; email: string; created_at: string; role: string }): User => ({
    ...r,
    role: isRole(r.role) ? r.role : 'viewer',
  });
  return {
    async byEmail(teamId: string, email: string): Promise<User | undefined> {
      const r = await db
        .selectFrom('users')
        .select(cols)
        .where('team_id', '=', teamId)
        .where('email', '=', email)
        .executeTakeFirst();
      return r && user(r);
    },
    async byId(id: string): Promise<User | undefined> {
      const r = await db.selectFrom('users').select(cols).where('id', '=', id).executeTakeFirst();
      return r && user(r);
    },
    async list(teamId: string): Promise<User[]> {
      const rows = await db
        .selectFrom('users')
        .select(cols)
        .where('team_id', '=', teamId)
        .orderBy('created_at')
        .orderBy('email')
        .execute();
      return rows.map(user);
    },
    /** A new member; an owner unless a role is given (what every member was before roles). */
    async create(teamId: string, email: string, now: string, role: Role = 'owner', origin?: 'sso'): Promise<User> {
      const u = { id: newId(), team_id: teamId, email, created_at: now, role };
      await db
        .insertInto('users')
        .values({ ...u, origin: origin ?? null })
        .execute();
      return u;
    },
    /** The memberships of an account that a single sign-on made (origin `sso`), with their team's name. */
    async ssoMemberships(accountId: string): Promise<(User & { team_name: string })[]> {
      const rows = await db
        .selectFrom('users as u')
        .innerJoin('teams as tm', 'tm.id', 'u.team_id')
        .select(['u.id', 'u.team_id', 'u.email', 'u.created_at', 'u.role', 'tm.name as team_name'])
        .where('u.account_id', '=', accountId)
        .where('u.origin', '=', 'sso')
        .execute();
      return rows.map((r) => ({ ...user(r), team_name: r.team_name }));
    },
    /**
     * The ids of the team's owners, read to decide whether a change would leave it without one. On
     * PostgreSQL the rows are locked (FOR UPDATE) until the transaction ends, so two changes at once
     * (on any nodes) are decided one after the other and cannot both take one of the last two owners;
     * SQLite runs one write transaction at a time.
     */
    async ownerIdsForUpdate(teamId: string): Promise<string[]> {
      const q = db.selectFrom('users').select('id').where('team_id', '=', teamId).where('role', '=', 'owner');
      const rows = await (engine === 'postgres' ? q.forUpdate() : q).execute();
      return rows.map((r) => r.id);
    },
    async setRole(id: string, role: Role): Promise<void> {
      await db.updateTable('users').set({ role }).where('id', '=', id).execute();
    },
    async remove(id: string): Promise<void> {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },
  };
}

export function tokensRepo(db: Kysely<DB>) {
  const cols = [
    'id',
    'team_id',
    'user_id',
    'name',
    'prefix',
    'created_at',
    'last_used_at',
    'revoked_at',
    'read_only',
    'operator',
    'role',
    'expires_at',
  ] as const;
  const token = <T extends { read_only: number; operator: number; role: string | null }>(
    r: T,
  ): Omit<T, 'read_only' | 'operator' | 'role'> & { read_only: boolean; operator: boolean; role: Role | null } => ({
    ...r,
    read_only: toBool(r.read_only),
    operator: toBool(r.operator),
    role: r.role === null ? null : isRole(r.role) ? r.role : 'viewer',
  });
  return {
    /**
     * Stores a new token; returns its id (the store's) and name: without one given it is called
     * `token-` and the first 8 characters of its id.
     */
    async create(
      t: Omit<ApiToken, 'id' | 'name' | 'last_used_at' | 'revoked_at'> & { name: string | null; token_hash: string },
    ): Promise<{ id: string; name: string }> {
      const id = newId();
      const name = t.name ?? `token-${id.slice(0, 8)}`;
      await db
        .insertInto('api_tokens')
        .values({
          ...t,
          id,
          name,
          read_only: fromBool(t.read_only),
          operator: fromBool(t.operator),
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      return { id, name };
    },
    /** The live token's caller; an expired one is returned too (with its expires_at): the caller decides. */
    async principalByHash(hash: string): Promise<Principal | undefined> {
      const row = await db
        .selectFrom('api_tokens as t')
        .innerJoin('teams as tm', 'tm.id', 't.team_id')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select([...PRINCIPAL_COLUMNS])
        .where('t.token_hash', '=', hash)
        .where('t.revoked_at', 'is', null)
        .executeTakeFirst();
      return row && principalOf(row);
    },
    async list(teamId?: string): Promise<(ApiToken & { team: string; user: string })[]> {
      let q = db
        .selectFrom('api_tokens as t')
        .innerJoin('teams as tm', 'tm.id', 't.team_id')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select(cols.map((c) => `t.${c}` as const))
        .select(['tm.name as team', 'u.email as user']);
      if (teamId) q = q.where('t.team_id', '=', teamId);
      return (await q.orderBy('t.created_at').execute()).map(token);
    },
    /** A team's tokens not revoked (one member's with `userId`), oldest first, with their member's e-mail. */
    async liveForTeam(teamId: string, userId?: string): Promise<(ApiToken & { user: string })[]> {
      let q = db
        .selectFrom('api_tokens as t')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .select(cols.map((c) => `t.${c}` as const))
        .select('u.email as user')
        .where('t.team_id', '=', teamId)
        .where('t.revoked_at', 'is', null);
      if (userId) q = q.where('t.user_id', '=', userId);
      return (await q.orderBy('t.created_at').orderBy('t.id').execute()).map(token);
    },
    async byId(id: string): Promise<ApiToken | undefined> {
      const r = await db.selectFrom('api_tokens').select(cols).where('id', '=', id).executeTakeFirst();
      return r && token(r);
    },
    async revoke(id: string, now: string): Promise<number> {
      const r = await db
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Ids of a member's live tokens (their sessions end with them). */
    async liveIdsForUser(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .execute();
      return rows.map((r) => r.id);
    },
    async revokeForUser(userId: string, now: string): Promise<number> {
      const r = await db
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async touch(ids: string[], now: string): Promise<void> {
      if (ids.length) await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', 'in', ids).execute();
    },
  };
}

export function metaRepo(db: Kysely<DB>) {
  return {
    async get(key: string): Promise<string | undefined> {
      const r = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
      return r?.value;
    },
    async set(key: string, value: string): Promise<void> {
      await db
        .insertInto('meta')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
    },
    /** Stores `value` unless the key holds one already; returns the value stored (the first writer's on every node). */
    async putIfAbsent(key: string, value: string): Promise<string> {
      await db
        .insertInto('meta')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const r = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirstOrThrow();
      return r.value;
    },
  };
}
