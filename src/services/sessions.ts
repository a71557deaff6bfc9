// The web dashboard's server-side sessions (docs/web.md). Signing in with an API token, or with an
// account's e-mail and password (services/accounts.ts; the session then acts in one of the account's
// teams, and may switch to another), makes a session: a random id (32 bytes, base64url) that only the browser's cookie holds; the database keeps
// its SHA-256, the token it came from, when it was last used and when it ends. A session ends at
// sign-out, when idle for `idleMs`, `absoluteMs` after sign-in, and at once when its token is revoked
// or its user removed (the look-up joins the token, so every node sees it). The CSRF token a page
// sends with its writes is an HMAC of the session id under a random key kept in the database (one
// for every node), so it is bound to the session and cannot be computed from anything a browser holds.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AuditActor } from '../domain/audit.js';
import type { Clock } from '../domain/clock.js';
import type { Principal } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { AccessService } from './access.js';

/** Defaults of DOMMON_SESSION_IDLE_HOURS and DOMMON_SESSION_MAX_DAYS. */
const SESSION_DEFAULTS = { idleHours: 12, maxDays: 7 } as const;
/** last_seen is written at most this often per session (not once per request). */
const TOUCH_EVERY_MS = 60_000;
const CSRF_KEY = 'web.csrf_key';
/** 32 random bytes in base64url: 43 characters. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

const hashId = (id: string): string => createHash('sha256').update(id).digest('hex');

/** What the database keys a session by: the SHA-256 of its cookie's id. */
export const sessionHash = hashId;

/** How the audit trail names a session: a prefix of its hash, never its cookie's id. */
const sessionAuditRef = (id: string): string => hashId(id).slice(0, 16);

/**
 * Who makes a request's changes (the audit trail): its token, or its session (`sessionId`, the
 * cookie's id) by a reference that is not the cookie's id.
 */
export function requestActor(principal: Principal, sessionId: string | undefined, requestId: string): AuditActor {
  return {
    user_id: principal.user_id,
    user_email: principal.user_email,
    via: sessionId === undefined ? 'token' : 'session',
    via_id: sessionId === undefined ? principal.token_id : sessionAuditRef(sessionId),
    via_name: principal.token_name,
    request_id: requestId,
  };
}

export interface WebSession {
  principal: Principal;
  /** The CSRF token every write made with this session's cookie must carry. */
  csrf: string;
}

export function createSessionService(deps: {
  store: Pick<Store, 'webSessions' | 'meta' | 'accounts'>;
  clock: Clock;
  access: Pick<AccessService, 'authenticate'>;
  idleMs?: number;
  absoluteMs?: number;
}) {
  const { store, clock, access } = deps;
  const idleMs = deps.idleMs ?? SESSION_DEFAULTS.idleHours * 3_600_000;
  const absoluteMs = deps.absoluteMs ?? SESSION_DEFAULTS.maxDays * 86_400_000;
  let key: Promise<Buffer> | undefined;

  function csrfKey(): Promise<Buffer> {
    // The first node to need it stores a random key; every node then uses that one.
    key ??= store.meta.putIfAbsent(CSRF_KEY, randomBytes(32).toString('base64url')).then(
      (v) => Buffer.from(v, 'base64url'),
      (err: unknown) => {
        key = undefined;
        throw err;
      },
    );
    return key;
  }

  async function csrfFor(id: string): Promise<string> {
    return createHmac('sha256', await csrfKey())
      .update(`dommon-csrf\0${id}`)
      .digest('base64url');
  }

  async function start(
    of: { token_id: string } | { user_id: string },
  ): Promise<{ id: string; principal: Principal; csrf: string } | null> {
    const id = randomBytes(32).toString('base64url');
    const now = clock.now().getTime();
    await store.webSessions.create({ id_hash: hashId(id), now, expires_at: now + absoluteMs, ...of });
    const row = await store.webSessions.byHash(hashId(id));
    return row ? { id, principal: row.principal, csrf: await csrfFor(id) } : null;
  }

  return {
    /** Signs in with an API token: a new session, or null when the token is not valid. */
    async create(token: string): Promise<(WebSession & { id: string }) | null> {
      const principal = await access.authenticate(token);
      if (!principal) return null;
      return start({ token_id: principal.token_id });
    },

    /** Signs in as a member (a password sign-in the caller has checked): a new session in that member's team. */
    createForMember(userId: string): Promise<(WebSession & { id: string }) | null> {
      return start({ user_id: userId });
    },

    /**
     * Moves a password sign-in's session to another team of the same account; the session (and its
     * CSRF token) stays. Null when the session is not a password sign-in's or the account has no
     * membership in that team.
     */
    async switchTeam(id: string, teamName: string): Promise<WebSession | null> {
      if (!SESSION_ID.test(id)) return null;
      const h = hashId(id);
      const row = await store.webSessions.byHash(h);
      const account = row?.principal.account_id;
      if (!account) return null;
      const to = (await store.accounts.memberships(account)).find((m) => m.team_name === teamName);
      if (!to) return null;
      await store.webSessions.switchMembership(h, to.user_id);
      const now = await store.webSessions.byHash(h);
      return now ? { principal: now.principal, csrf: await csrfFor(id) } : null;
    },

    /** The live session of a cookie's id, or null (unknown, ended, expired, or its token revoked). */
    async resolve(id: string): Promise<WebSession | null> {
      if (!SESSION_ID.test(id)) return null;
      const h = hashId(id);
      const row = await store.webSessions.byHash(h);
      if (!row) return null;
      const now = clock.now().getTime();
      const tokenEnd = row.principal.expires_at ? Date.parse(row.principal.expires_at) : Infinity;
      if (now >= row.expires_at || now - row.last_seen >= idleMs || now >= tokenEnd) {
        await store.webSessions.remove(h);
        return null;
      }
      if (now - row.last_seen >= TOUCH_EVERY_MS) await store.webSessions.touch(h, now);
      return { principal: row.principal, csrf: await csrfFor(id) };
    },

    /** Signs out: the session's row is deleted, so its cookie is refused from then on. */
    async end(id: string): Promise<void> {
      if (SESSION_ID.test(id)) await store.webSessions.remove(hashId(id));
    },

    /** Deletes sessions that have expired (the retention job). */
    prune(): Promise<number> {
      const now = clock.now().getTime();
      return store.webSessions.prune(now, now - idleMs);
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
