// The audit trail: every change a person or a token makes is one row, written by the service that
// makes the change in the same transaction (a crash never leaves a change without its row or a row
// without its change). Who acts is set once at the door (the API's auth middleware, the local
// command line, a configuration apply) in an AsyncLocalStorage scope; the services state what
// changed. Outside a scope (the scheduler's results and events) nothing is recorded.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor, AuditChange, AuditEntry, AuditFilter } from '../domain/audit.js';
import { isoNow, type Clock } from '../domain/clock.js';
import { Invalid } from '../domain/errors.js';
import type { Repos, Store } from '../store/index.js';
import { instant } from './events.js';

const MASK = '********';

/** Keys whose values are secrets wherever they appear: sealed blobs and credentials (liveness auth, a new token). */
const CREDENTIAL_KEYS = ['sealed', 'password', 'secret', 'token', 'token_hash', 'api_key'];

/** A copy of `v` with the value of every key in `secret` masked (whatever its depth). */
function maskSecrets(v: unknown, secret: ReadonlySet<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => maskSecrets(x, secret));
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [
      k,
      secret.has(k) && x !== null && x !== undefined && typeof x !== 'boolean' ? MASK : maskSecrets(x, secret),
    ]),
  );
}

/** The filter with its times as ISO instants (the column's form). */
const normal = (f: AuditFilter): AuditFilter => ({
  ...f,
  since: f.since === undefined ? undefined : instant(f.since, 'since'),
  until: f.until === undefined ? undefined : instant(f.until, 'until'),
  object_id: f.object_id?.toLowerCase(),
});

/** Cursor paging: the id of the last entry a page held. */
const CURSOR = /^[0-9a-f-]{36}$/;

/**
 * `secrets`: more keys to mask (every channel's secret settings, from the channel registry: createServices
 * hands them over, so the token and user commands, which change no channel, load no channel code).
 * `fallback`: who acts when no door set anyone (the command line's own commands on the local
 * database: `dommon token create`, `users add`); absent, such changes are not people's (the scheduler).
 */
export function createAuditService({
  store,
  clock,
  secrets = [],
  fallback,
}: {
  store: Pick<Store, 'audit' | 'transaction'>;
  clock: Clock;
  secrets?: readonly string[];
  fallback?: AuditActor;
}) {
  const secret = new Set([...CREDENTIAL_KEYS, ...secrets]);
  // null: nothing is recorded in this scope (a dry run, rolled back whatever it wrote).
  const scope = new AsyncLocalStorage<AuditActor | null>();
  const current = (): AuditActor | undefined => {
    const a = scope.getStore();
    return a === undefined ? fallback : (a ?? undefined);
  };
  return {
    /** Runs `fn` with `actor` making its changes. */
    run<T>(actor: AuditActor, fn: () => Promise<T>): Promise<T> {
      return scope.run(actor, fn);
    },
    /**
     * Runs `fn` with nothing recorded: a dry run, whose transaction is rolled back, would otherwise
     * build and insert an entry per object only to drop them.
     */
    unrecorded<T>(fn: () => Promise<T>): Promise<T> {
      return scope.run(null, fn);
    },
    /** Who makes the changes here (undefined: no person, as for the scheduler). */
    actor: (): AuditActor | undefined => current(),
    /**
     * Writes the rows of `changes` with `tx`: the transaction that makes them. Each object's before and
     * after are stored with their secrets masked.
     */
    async record(tx: Pick<Repos, 'audit'>, teamId: string, ...changes: AuditChange[]): Promise<void> {
      const a = current();
      if (!a || !changes.length) return;
      const at = isoNow(clock);
      await tx.audit.insert(
        changes.map((c) => ({
          team_id: teamId,
          at,
          actor: { user_id: a.user_id, email: a.user_email },
          via: { kind: a.via, id: a.via_id, name: a.via_name },
          action: c.action,
          object: { kind: c.kind, id: c.id, name: c.name ?? null },
          before: maskSecrets(c.before ?? null, secret),
          after: maskSecrets(c.after ?? null, secret),
          request_id: a.request_id,
        })),
      );
    },

    /**
     * Records, in a transaction of its own, an action that changes no object itself (a look-up asked
     * for now, a test message): what it finds is written as the scheduler's results are, unaudited.
     */
    note(teamId: string, change: AuditChange): Promise<void> {
      if (!current()) return Promise.resolve();
      return store.transaction((tx) => this.record(tx, teamId, change));
    },

    /** A page of the team's trail, newest first; `next` continues after its last entry. */
    async list(
      teamId: string,
      f: AuditFilter,
      opts: { cursor?: string; limit: number },
    ): Promise<{ items: AuditEntry[]; next: string | null }> {
      if (opts.cursor !== undefined && !CURSOR.test(opts.cursor))
        throw new Invalid('cursor: not a cursor of this list');
      const items = await store.audit.list(teamId, normal(f), { after: opts.cursor, limit: opts.limit + 1 });
      const more = items.length > opts.limit;
      if (more) items.pop();
      return { items, next: more ? items[items.length - 1]!.id : null };
    },

    /** Every entry matching `f`, newest first, a page at a time (an export). */
    async *each(teamId: string, f: AuditFilter, pageSize = 500): AsyncGenerator<AuditEntry> {
      let after: string | undefined;
      const filter = normal(f);
      for (;;) {
        const items = await store.audit.list(teamId, filter, { after, limit: pageSize });
        yield* items;
        if (items.length < pageSize) return;
        after = items[items.length - 1]!.id;
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
