// Teams, users and API tokens: the token is shown once, only its SHA-256 hash is stored, and
// lookups are cached in memory (cleared when any process revokes a token, via the meta epoch).
import { createHash, randomBytes } from 'node:crypto';
import ms from 'ms';
import { Conflict, Forbidden, Invalid, NotFound } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { foldEmail, isEmail } from '../domain/email.js';
import type { ApiToken, Principal, Team, User } from '../domain/types.js';
import { isRole, roleAllows, ROLES, type Role } from '../domain/roles.js';
import type { ServiceDeps } from './deps.js';
import { checkPassword, createPasswords } from './passwords.js';

const TOKEN_PREFIX = 'dmn_';
const EPOCH_KEY = 'tokens_epoch';

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A role named on the command line or in a request, or Invalid naming the three. */
export function parseRole(v: string): Role {
  const r = v.trim().toLowerCase();
  if (!isRole(r)) throw new Invalid(`"${v}" is not a role: one of ${[...ROLES].reverse().join(', ')}`, 'INVALID_ROLE');
  return r;
}

/**
 * When a token made at `now` stops being accepted, from a duration (`90d`, `12h`, `2w`, `1y`: the `ms`
 * package's syntax, a unit required) or a date or date-time (ISO 8601; a date alone is its midnight UTC).
 * Invalid (INVALID_EXPIRY) unless it is in the future.
 */
export function parseExpiry(text: string, now: Date): string {
  const v = text.trim();
  let at: number;
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) at = Date.parse(v);
  else if (/^\d+(\.\d+)?\s*[a-z]+$/i.test(v)) {
    const span = ms(v as ms.StringValue) as number | undefined;
    at = span === undefined ? NaN : now.getTime() + span;
  } else at = NaN;
  if (Number.isNaN(at))
    throw new Invalid(
      `"${text}" is neither a duration (such as 90d, 12h, 2w, 1y) nor a date (such as 2027-01-31 or 2027-01-31T12:00:00Z)`,
      'INVALID_EXPIRY',
    );
  if (at <= now.getTime()) throw new Invalid(`the expiry ${text} is not in the future`, 'INVALID_EXPIRY');
  return new Date(at).toISOString();
}

/** True when a token that ends at `expiresAt` (null: never) is no longer accepted at `now`. */
const tokenExpired = (expiresAt: string | null | undefined, now: Date): boolean =>
  !!expiresAt && Date.parse(expiresAt) <= now.getTime();

interface CreatedToken {
  token: string;
  id: string;
  team_id: string;
  team: string;
  user_id: string;
  user: string;
  token_name: string;
  /** The token may only read (docs/security.md). */
  read_only: boolean;
  /** An operator token: it may read node details (docs/scale-out.md). */
  operator: boolean;
  /** The token's own role (null: its member's role). */
  role: Role | null;
  /** When the token stops being accepted (null: never). */
  expires_at: string | null;
}

/** What a person asks for a token of their own (account settings; docs/accounts.md). */
export interface OwnTokenInput {
  name?: string;
  /** Only reads: the spec's read-only flag (the token is a viewer). */
  read_only?: boolean;
  /** A role no higher than the caller's (absent: the member's role, whatever it is at the time). */
  role?: Role;
  /** When the token stops being accepted: in the future (absent: never). */
  expires_at?: string;
}

type Tx = Parameters<Parameters<ServiceDeps['store']['transaction']>[0]>[0];

export function createAccessService({
  store,
  clock,
  audit,
  passwordCost,
}: Pick<ServiceDeps, 'store' | 'clock' | 'audit' | 'passwordCost'>) {
  const passwords = createPasswords(passwordCost);
  const cache = new Map<string, Principal | null>();
  const touched = new Set<string>();
  let epoch: string | undefined;
  /** store.stamp() when the cache was last known current: it moves when another process commits. */
  let seen: string | undefined;

  async function ensureTeam(name: string): Promise<Team> {
    const clean = name.trim();
    if (!clean || clean.length > 100) throw new Invalid('team name must be 1-100 characters');
    return (await store.teams.byName(clean)) ?? store.teams.create(clean, isoNow(clock));
  }

  async function requireTeam(name?: string): Promise<Team> {
    if (name) {
      const t = await store.teams.byName(name);
      if (!t) throw new NotFound(`Team "${name}"`);
      return t;
    }
    const all = await store.teams.list();
    if (all.length === 1) return all[0]!;
    if (all.length === 0) throw new NotFound('Team (create one with `dommon token create --team NAME`)');
    throw new Invalid(
      `several teams exist (${all.map((t) => t.name).join(', ')}): choose one with --team`,
      'TEAM_REQUIRED',
    );
  }

  /** Drops the cache when another process revoked a token (also called on a timer by the daemon). */
  async function syncRevocations(): Promise<void> {
    const now = await store.meta.get(EPOCH_KEY);
    if (now !== epoch) {
      epoch = now;
      cache.clear();
    }
  }

  async function bumpEpoch(): Promise<void> {
    await store.meta.set(EPOCH_KEY, randomBytes(16).toString('hex'));
    cache.clear();
  }

  /** The member `userId` of `team`, read inside a change's transaction after the owners are locked. */
  async function memberIn(tx: Tx, team: Pick<Team, 'id'>, userId: string, label: string): Promise<User> {
    const u = await tx.users.byId(userId);
    if (!u || u.team_id !== team.id) throw new NotFound(label);
    return u;
  }

  /** 409 LAST_OWNER: the change would leave the team without an owner. */
  const lastOwner = (u: User, team: Pick<Team, 'name'>) =>
    new Conflict(
      `${u.email} is the last owner of team "${team.name}": make another member an owner first`,
      'LAST_OWNER',
    );

  /**
   * Sets a member's role, refusing to demote the team's last owner (the owners are locked for the
   * transaction); every node's token cache is dropped, and sessions read the role at each request.
   */
  async function applyRole(team: Pick<Team, 'id' | 'name'>, userId: string, label: string, role: Role): Promise<User> {
    const user = await store.transaction(async (tx) => {
      const owners = await tx.users.ownerIdsForUpdate(team.id);
      const u = await memberIn(tx, team, userId, label);
      if (role !== 'owner' && owners.length === 1 && owners[0] === u.id) throw lastOwner(u, team);
      await tx.users.setRole(u.id, role);
      await audit?.record(tx, team.id, {
        action: 'update',
        kind: 'user',
        id: u.id,
        name: u.email,
        before: u,
        after: { ...u, role },
      });
      return u;
    });
    await bumpEpoch();
    return { ...user, role };
  }

  /**
   * Removes a member, refusing to remove the team's last owner: their tokens are revoked and every
   * session of theirs ends (token-made and password sign-ins), on every node at once.
   */
  async function applyRemove(
    team: Pick<Team, 'id' | 'name'>,
    userId: string,
    label: string,
  ): Promise<{ user: User; revoked_tokens: number }> {
    const r = await store.transaction(async (tx) => {
      const owners = await tx.users.ownerIdsForUpdate(team.id);
      const u = await memberIn(tx, team, userId, label);
      if (owners.length === 1 && owners[0] === u.id) throw lastOwner(u, team);
      await tx.webSessions.removeForTokens(await tx.tokens.liveIdsForUser(u.id));
      await tx.webSessions.removeForUsers([u.id]);
      const n = await tx.tokens.revokeForUser(u.id, isoNow(clock));
      await tx.users.remove(u.id);
      await audit?.record(tx, team.id, {
        action: 'delete',
        kind: 'user',
        id: u.id,
        name: u.email,
        before: { ...u, revoked_tokens: n },
      });
      return { user: u, revoked_tokens: n };
    });
    await bumpEpoch();
    return r;
  }

  return {
    ensureTeam,
    requireTeam,
    listTeams: () => store.teams.list(),

    async createToken(opts: {
      team: string;
      user?: string;
      name?: string;
      readOnly?: boolean;
      operator?: boolean;
      role?: Role | null;
      expiresAt?: string | null;
    }): Promise<CreatedToken> {
      if (opts.user !== undefined && !isEmail(opts.user)) throw new Invalid(`"${opts.user}" is not an e-mail address`);
      return store.transaction(async (tx) => {
        const now = isoNow(clock);
        const team = (await tx.teams.byName(opts.team.trim())) ?? (await tx.teams.create(opts.team.trim(), now));
        let user: User | undefined;
        if (opts.user)
          user =
            (await tx.users.byEmail(team.id, opts.user.toLowerCase())) ??
            (await tx.users.create(team.id, opts.user.toLowerCase(), now));
        else user = (await tx.users.list(team.id))[0] ?? (await tx.users.create(team.id, 'admin@localhost', now));
        if (opts.role && !roleAllows(user.role, opts.role))
          throw new Forbidden(
            `a token's role cannot be higher than its user's: ${user.email} is ${user.role} in team "${team.name}", not ${opts.role}`,
            'FORBIDDEN_ROLE',
          );
        const secret = randomBytes(32).toString('base64url');
        const token = `${TOKEN_PREFIX}${secret}`;
        const { id, name } = await tx.tokens.create({
          team_id: team.id,
          user_id: user.id,
          name: opts.name?.trim() || null,
          prefix: token.slice(0, 10),
          token_hash: hashToken(token),
          created_at: now,
          read_only: opts.readOnly === true,
          operator: opts.operator === true,
          role: opts.role ?? null,
          expires_at: opts.expiresAt ?? null,
        });
        await audit?.record(tx, team.id, {
          action: 'create',
          kind: 'token',
          id,
          name,
          after: {
            id,
            name,
            user_id: user.id,
            user: user.email,
            read_only: opts.readOnly === true,
            operator: opts.operator === true,
            role: opts.role ?? null,
            expires_at: opts.expiresAt ?? null,
          },
        });
        return {
          token,
          id,
          team_id: team.id,
          team: team.name,
          user_id: user.id,
          user: user.email,
          token_name: name,
          read_only: opts.readOnly === true,
          operator: opts.operator === true,
          role: opts.role ?? null,
          expires_at: opts.expiresAt ?? null,
        };
      });
    },

    /**
     * Who a configuration file given to `serve --config` applies as: the team named (made if missing),
     * else the only team, else a new team `default`; its first user (made as admin@localhost if none).
     */
    async configPrincipal(teamName?: string): Promise<Principal> {
      return store.transaction(async (tx) => {
        const now = isoNow(clock);
        let team: Team | undefined;
        if (teamName) team = (await tx.teams.byName(teamName.trim())) ?? (await tx.teams.create(teamName.trim(), now));
        else {
          const all = await tx.teams.list();
          if (all.length > 1)
            throw new Invalid(
              `several teams exist (${all.map((t) => t.name).join(', ')}): choose the configuration file's with --team`,
              'TEAM_REQUIRED',
            );
          team = all[0] ?? (await tx.teams.create('default', now));
        }
        const user = (await tx.users.list(team.id))[0] ?? (await tx.users.create(team.id, 'admin@localhost', now));
        return {
          token_id: 'config',
          token_name: 'configuration file',
          team_id: team.id,
          team_name: team.name,
          user_id: user.id,
          user_email: user.email,
          read_only: false,
          // The file is the team's setup, as its owner would write it.
          role: 'owner',
        };
      });
    },

    async listTokens(teamName?: string): Promise<(ApiToken & { team: string; user: string })[]> {
      const team = teamName ? await requireTeam(teamName) : undefined;
      return store.tokens.list(team?.id);
    },

    async revokeToken(id: string): Promise<ApiToken> {
      const tok = await store.tokens.byId(id);
      if (!tok) throw new NotFound('Token');
      if (tok.revoked_at) throw new Conflict('token is already revoked', 'TOKEN_REVOKED');
      await store.transaction(async (tx) => {
        await tx.tokens.revoke(id, isoNow(clock));
        // Its dashboard sessions end with it (the session look-up also refuses a revoked token's).
        await tx.webSessions.removeForTokens([id]);
        await audit?.record(tx, tok.team_id, { action: 'revoke', kind: 'token', id, name: tok.name, before: tok });
      });
      await bumpEpoch();
      return { ...tok, revoked_at: isoNow(clock) };
    },

    /** The caller's own live tokens in the team (account settings). */
    ownTokens: (p: Principal) => store.tokens.liveForTeam(p.team_id, p.user_id),

    /** Every live token of the caller's team (an owner's view). */
    teamTokens: (p: Principal) => store.tokens.liveForTeam(p.team_id),

    /** A new token of the caller's own, scoped to no more than the caller may do; shown once. */
    async createOwnToken(p: Principal, input: OwnTokenInput): Promise<ApiToken & { user: string; token: string }> {
      if (input.role && !roleAllows(p.role, input.role))
        throw new Forbidden(
          `a token's role cannot be higher than your own: you are ${p.role}, not ${input.role}`,
          'FORBIDDEN_ROLE',
        );
      const now = clock.now();
      if (input.expires_at !== undefined && !(Date.parse(input.expires_at) > now.getTime()))
        throw new Invalid('expires_at must be in the future', 'INVALID_EXPIRY');
      return store.transaction(async (tx) => {
        const user = await tx.users.byId(p.user_id);
        if (!user || user.team_id !== p.team_id) throw new NotFound('User');
        const secret = randomBytes(32).toString('base64url');
        const token = `${TOKEN_PREFIX}${secret}`;
        const row = {
          team_id: p.team_id,
          user_id: user.id,
          prefix: token.slice(0, 10),
          created_at: now.toISOString(),
          read_only: input.read_only === true,
          operator: false,
          role: input.role ?? null,
          expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
        };
        const { id, name } = await tx.tokens.create({
          ...row,
          name: input.name?.trim() || null,
          token_hash: hashToken(token),
        });
        await audit?.record(tx, p.team_id, {
          action: 'create',
          kind: 'token',
          id,
          name,
          after: { id, name, ...row, user: user.email },
        });
        return { ...row, id, name, last_used_at: null, revoked_at: null, user: user.email, token };
      });
    },

    /**
     * Revokes a token of the caller's team: with `own`, only one of the caller's own (another's is
     * not found, as another team's is). Its sessions end and every node's cache drops it.
     */
    async revokeTeamToken(p: Principal, id: string, own: boolean): Promise<ApiToken & { user: string }> {
      const tok = (await store.tokens.liveForTeam(p.team_id, own ? p.user_id : undefined)).find((x) => x.id === id);
      if (!tok) throw new NotFound('Token');
      const now = isoNow(clock);
      await store.transaction(async (tx) => {
        await tx.tokens.revoke(id, now);
        await tx.webSessions.removeForTokens([id]);
        await audit?.record(tx, p.team_id, { action: 'revoke', kind: 'token', id, name: tok.name, before: tok });
      });
      await bumpEpoch();
      return { ...tok, revoked_at: now };
    },

    async listUsers(teamName?: string): Promise<User[]> {
      return store.users.list((await requireTeam(teamName)).id);
    },

    /**
     * Adds a member (`dommon users add`), making the team when `teamName` names none yet. A team this
     * makes gets its first member as its owner whatever `role` says, so that every team the command
     * line makes has an owner (who manages members and tokens, and whom LAST_OWNER keeps);
     * `team_created` tells the caller, which says so. A team that exists keeps the role asked, even
     * one without an owner (single sign-on may make such a team: the administrator adds the owner).
     */
    async addUser(
      teamName: string | undefined,
      email: string,
      role: Role = 'owner',
    ): Promise<User & { team_created: boolean }> {
      if (!isEmail(email)) throw new Invalid(`"${email}" is not an e-mail address`);
      const found = teamName ? await store.teams.byName(teamName.trim()) : await requireTeam();
      const team = found ?? (await ensureTeam(teamName!));
      const created = !found;
      if (await store.users.byEmail(team.id, email.toLowerCase()))
        throw new Conflict(`user ${email} already exists`, 'USER_EXISTS');
      return store.transaction(async (tx) => {
        const user = await tx.users.create(team.id, email.toLowerCase(), isoNow(clock), created ? 'owner' : role);
        await audit?.record(tx, team.id, {
          action: 'create',
          kind: 'user',
          id: user.id,
          name: user.email,
          after: user,
        });
        return { ...user, team_created: created };
      });
    },

    /** Changes a member's role; every node's token cache is dropped so the new role applies at once. */
    async setRole(teamName: string | undefined, email: string, role: Role): Promise<User> {
      const team = await requireTeam(teamName);
      const user = await store.users.byEmail(team.id, email.toLowerCase());
      if (!user) throw new NotFound(`User ${email}`);
      return applyRole(team, user.id, `User ${email}`, role);
    },
    /**
     * A single sign-on (docs/sso.md): the person's account (made when there is none) and, in each
     * team the provider's claims map to, a membership with the role they map to (made, or its role
     * set: roles follow the claims at each sign-in), linked to the account. A membership a single
     * sign-on made in a team the claims no longer map to is removed; others (the command line, an
     * invitation) are left as they are, and a team's last owner stays an owner and a member. The
     * membership to sign in to (the first team by name), or null
     * when the claims map to no team (its single sign-on memberships then end) or the account is disabled.
     */
    async signInSso(email: string, grants: { team: string; role: Role }[]): Promise<{ user_id: string } | null> {
      if (!isEmail(email)) return null;
      const folded = foldEmail(email);
      // The person signing in makes these changes, through the sign-in (no token, no session yet).
      const actor = {
        user_id: null,
        user_email: folded,
        via: 'session',
        via_id: null,
        via_name: 'single sign-on',
        request_id: null,
      } as const;
      const work = () =>
        store.transaction(async (tx) => {
          const now = isoNow(clock);
          // Claims that map to no team make no account; an existing one still loses what single
          // sign-on gave it (below).
          const known = await tx.accounts.byEmail(folded);
          if (!known && grants.length === 0) return { first: null, changed: false };
          const account = known ?? (await tx.accounts.create(folded, now));
          if (account.disabled) return { first: null, changed: false };
          let first: string | null = null;
          let changed = false;
          for (const g of grants) {
            const team = (await tx.teams.byName(g.team)) ?? (await tx.teams.create(g.team, now));
            let user = await tx.users.byEmail(team.id, folded);
            if (!user) {
              user = await tx.users.create(team.id, folded, now, g.role, 'sso');
              await audit?.record(tx, team.id, {
                action: 'create',
                kind: 'user',
                id: user.id,
                name: user.email,
                after: user,
              });
            } else if (
              user.role !== g.role &&
              // A team keeps an owner: its last one stays an owner whatever the claims say now.
              !(user.role === 'owner' && (await tx.users.ownerIdsForUpdate(team.id)).every((id) => id === user!.id))
            ) {
              await tx.users.setRole(user.id, g.role);
              await audit?.record(tx, team.id, {
                action: 'update',
                kind: 'user',
                id: user.id,
                name: user.email,
                before: user,
                after: { ...user, role: g.role },
              });
              changed = true;
            }
            await tx.accounts.link(user.id, account.id);
            first ??= user.id;
          }
          // A membership single sign-on made whose team the claims no longer give ends, as a removal
          // by an owner does (its tokens revoked, its sessions ended); one made otherwise (the command
          // line, an invitation) is left, and a team's last owner stays.
          const granted = new Set(grants.map((g) => g.team));
          for (const m of await tx.users.ssoMemberships(account.id)) {
            if (granted.has(m.team_name)) continue;
            const owners = await tx.users.ownerIdsForUpdate(m.team_id);
            if (owners.length === 1 && owners[0] === m.id) continue;
            await tx.webSessions.removeForTokens(await tx.tokens.liveIdsForUser(m.id));
            await tx.webSessions.removeForUsers([m.id]);
            const revoked = await tx.tokens.revokeForUser(m.id, now);
            await tx.users.remove(m.id);
            const { team_name: _, ...before } = m;
            await audit?.record(tx, m.team_id, {
              action: 'delete',
              kind: 'user',
              id: m.id,
              name: m.email,
              before: {
                ...before,
                revoked_tokens: revoked,
                via: 'single sign-on: the claims no longer map to this team',
              },
            });
            changed = true;
          }
          return { first, changed };
        });
      const { first, changed } = await (audit ? audit.run(actor, work) : work());
      // A role lowered at sign-in applies at once to the member's tokens on every node.
      if (changed) await bumpEpoch();
      return first === null ? null : { user_id: first };
    },

    /**
     * Gives a member a dashboard password: the person's account (made when there is none) is linked to
     * the membership and its password set (docs/accounts.md). The password itself is never recorded.
     */
    async setPassword(
      teamName: string | undefined,
      email: string,
      password: string,
    ): Promise<{ user_id: string; account_id: string; email: string; team: string; ended_sessions: number }> {
      const team = await requireTeam(teamName);
      const user = await store.users.byEmail(team.id, email.toLowerCase());
      if (!user) throw new NotFound(`User ${email}`);
      checkPassword(password);
      const hash = await passwords.hash(password);
      const account = await store.transaction(async (tx) => {
        const found = await tx.accounts.byEmail(foldEmail(user.email));
        const id = found ? found.id : (await tx.accounts.create(foldEmail(user.email), isoNow(clock))).id;
        await tx.accounts.setPassword(id, hash);
        await tx.accounts.link(user.id, id);
        // Whoever signed in with the old password, in any of the person's teams, is signed out on every
        // node (sessions are the database's); sessions made from the person's tokens stay.
        const ended = await tx.webSessions.removeForAccount(id);
        await audit?.record(tx, team.id, {
          action: 'update',
          kind: 'user',
          id: user.id,
          name: user.email,
          before: { ...user, password: found?.password_hash ? 'set' : 'none' },
          after: { ...user, password: 'set', ended_sessions: ended },
        });
        return { id, ended };
      });
      return {
        user_id: user.id,
        account_id: account.id,
        email: user.email,
        team: team.name,
        ended_sessions: account.ended,
      };
    },

    async removeUser(teamName: string | undefined, email: string): Promise<{ user: User; revoked_tokens: number }> {
      const team = await requireTeam(teamName);
      const user = await store.users.byEmail(team.id, email.toLowerCase());
      if (!user) throw new NotFound(`User ${email}`);
      return applyRemove(team, user.id, `User ${email}`);
    },

    /** The caller's team's members (an owner's view). */
    listMembers: (p: Principal) => store.users.list(p.team_id),

    /** Changes the role of a member of the caller's team (another team's is not found). */
    setMemberRole: (p: Principal, id: string, role: Role) =>
      applyRole({ id: p.team_id, name: p.team_name }, id, 'Member', role),

    /** Removes a member of the caller's team: their tokens are revoked and their sessions end. */
    removeMember: (p: Principal, id: string) => applyRemove({ id: p.team_id, name: p.team_name }, id, 'Member'),

    /** The caller behind a raw token, or null. Cached: no database round trip per request. */
    async authenticate(token: string | undefined): Promise<Principal | null> {
      if (!token || !token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
      // One pragma (no query) tells whether another process (`dommon token revoke`) committed since
      // the last look; only then is the revocation epoch read again.
      const stamp = store.readStamp('tokens');
      if (stamp !== seen) {
        await syncRevocations();
        seen = stamp;
      }
      const hash = hashToken(token);
      let p = cache.get(hash);
      if (p === undefined) {
        p = (await store.tokens.principalByHash(hash)) ?? null;
        if (cache.size > 10_000) cache.clear();
        cache.set(hash, p);
      }
      // An expired token is refused like a revoked one (the cache keeps it: its expiry is checked each time).
      if (p && tokenExpired(p.expires_at, clock.now())) return null;
      if (p) touched.add(p.token_id);
      return p;
    },

    syncRevocations,

    /** Writes last_used_at for tokens used since the previous flush (batched, off the hot path). */
    async flushUsage(): Promise<void> {
      if (!touched.size) return;
      const ids = [...touched];
      touched.clear();
      await store.tokens.touch(ids, isoNow(clock));
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
