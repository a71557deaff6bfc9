import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { LivenessConfig, LivenessFilter, Page, PageOf } from '../../domain/types.js';
import { defined, fromBool, newId, probedByKey } from './util.js';
import {
  enabledEndpointOf,
  targetColumns,
  toConfig,
  toTarget,
  type LivenessTarget,
  type TargetRow,
} from './targets.js';
import { PREPARED } from '../prepared.js';
import { livenessDueRepo } from './liveness-due.js';
import { LOCK_CLASS } from '../singletons.js';
import { engineOf } from '../migrations/engine.js';
import { isSealed, SealError, sealedKeyId, type Sealer } from '../sealing.js';

/** The advisory lock that orders liveness config inserts: dommon's class (singletons.ts), far past its jobs' keys. */
const SEQ_LOCK = 1000;

/** Stored as a JSON array; no regions (checked by any one node) as null. */
const encodeRegions = (regions: readonly string[]): string | null => (regions.length ? JSON.stringify(regions) : null);

type RequestFields = Pick<LivenessConfig, 'method' | 'headers' | 'body' | 'follow_redirects' | 'conditions' | 'auth'>;

/** The request's columns of a config (or of the part of one a patch names). */
function encodeRequest(c: Partial<RequestFields>) {
  return {
    method: c.method,
    headers: c.headers === undefined ? undefined : Object.keys(c.headers).length ? JSON.stringify(c.headers) : null,
    body: c.body,
    follow_redirects: c.follow_redirects === undefined ? undefined : fromBool(c.follow_redirects),
    conditions: c.conditions === undefined ? undefined : c.conditions.length ? JSON.stringify(c.conditions) : null,
    ...(c.auth !== undefined && {
      auth_type: c.auth?.type ?? null,
      auth_username: c.auth?.username ?? null,
      auth_secret: c.auth?.sealed ?? null,
    }),
  };
}

/** What a config's sealed credentials hold: the secret and the origin it was given for. */
interface OpenedAuth {
  secret: string;
  origin: string;
}

/** `sealer` seals the credentials written and opens them for the probe (none: written plain, sealed ones unreadable). */
export function livenessRepo(db: Kysely<DB>, opts: { dueQueue: boolean; sealer?: Sealer }) {
  const { sealer } = opts;
  const sealAuth = (a: OpenedAuth): string => (sealer ? sealer.seal(JSON.stringify(a)) : JSON.stringify(a));
  /** The secret and its origin; a SealError when no key of this node opens it. */
  const openAuth = (stored: string): OpenedAuth => {
    if (!isSealed(stored)) return JSON.parse(stored) as OpenedAuth;
    if (!sealer) throw new SealError('the credentials are sealed and no secret key was given');
    return JSON.parse(sealer.unseal(stored)) as OpenedAuth;
  };
  const base = () =>
    db.selectFrom('liveness_configs as l').innerJoin('endpoints as e', 'e.id', 'l.endpoint_id').selectAll('l');
  const filtered = <Q extends { where: (...a: any[]) => Q }>(q: Q, teamId: string, f: LivenessFilter): Q => {
    let out = q.where('l.team_id', '=', teamId);
    if (f.endpoint_id) out = out.where('l.endpoint_id', '=', f.endpoint_id);
    if (f.domain_id) out = out.where('e.domain_id', '=', f.domain_id);
    if (f.is_enabled !== undefined) out = out.where('l.is_enabled', '=', f.is_enabled ? 1 : 0);
    return out;
  };
  /**
   * Inserts the configs (as insert does each), a few hundred rows per statement, with consecutive
   * seqs after the largest; returns their ids in order.
   */
  async function insertMany(
    configs: readonly (Omit<LivenessConfig, 'id' | 'seq' | keyof RequestFields> & Partial<RequestFields>)[],
  ): Promise<string[]> {
    if (!configs.length) return [];
    // Several nodes on one PostgreSQL database: two creates must not both read the same max(seq)
    // (the loser's unique violation would read as "already exists"). A transaction-level advisory
    // lock orders them; the next max(seq) reads the other's committed row. SQLite has one writer.
    if (opts.dueQueue) await sql`select pg_advisory_xact_lock(${LOCK_CLASS}, ${SEQ_LOCK})`.execute(db);
    const rows = configs.map((config) => {
      const { method, headers, body, follow_redirects, conditions, auth, ...plain } = config;
      return {
        ...plain,
        ...encodeRequest({ headers: headers ?? {}, conditions: conditions ?? [], auth: auth ?? null }),
        method: method ?? 'GET',
        body: body ?? null,
        follow_redirects: fromBool(follow_redirects ?? false),
        id: newId(),
        is_enabled: fromBool(config.is_enabled),
        regions: encodeRegions(config.regions),
      } as const;
    });
    const { n } = await db
      .selectFrom('liveness_configs')
      .select((e) => e.fn.max('seq').as('n'))
      .executeTakeFirstOrThrow();
    const first = Number(n ?? 0) + 1;
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('liveness_configs')
        .values(rows.slice(i, i + 500).map((row, j) => ({ ...row, seq: first + i + j })))
        .execute();
    // Due at once (a claiming node spreads a batch of new ones over a second: scheduler/liveness.ts).
    if (opts.dueQueue)
      for (const [i, row] of rows.entries())
        await livenessDueRepo(db).add(row.id, Date.parse(row.created_at), configs[i]!.regions);
    return rows.map((r) => r.id);
  }
  return {
    sealAuth,
    openAuth,
    async get(teamId: string, id: string): Promise<LivenessConfig | undefined> {
      const r = await base().where('l.team_id', '=', teamId).where('l.id', '=', id).executeTakeFirst();
      return r && toConfig(r);
    },
    async byId(id: string): Promise<LivenessConfig | undefined> {
      const r = await base().where('l.id', '=', id).executeTakeFirst();
      return r && toConfig(r);
    },
    /** Which of `ids` still exist (a batch of results skips configs deleted while probing). */
    async existing(ids: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await db
          .selectFrom('liveness_configs')
          .select('id')
          .where('id', 'in', ids.slice(i, i + 500))
          .execute();
        rows.forEach((r) => out.add(r.id));
      }
      return out;
    },
    async byEndpoint(endpointId: string): Promise<LivenessConfig | undefined> {
      const r = await base().where('l.endpoint_id', '=', endpointId).executeTakeFirst();
      return r && toConfig(r);
    },
    /** The configurations of these endpoints (one per endpoint at most). */
    async forEndpoints(endpointIds: string[]): Promise<LivenessConfig[]> {
      const out: LivenessConfig[] = [];
      for (let i = 0; i < endpointIds.length; i += 500) {
        const rows = await base()
          .where('l.endpoint_id', 'in', endpointIds.slice(i, i + 500))
          .execute();
        out.push(...rows.map(toConfig));
      }
      return out;
    },
    async list(teamId: string, f: LivenessFilter, page: Page): Promise<PageOf<LivenessConfig>> {
      const { total } = await filtered(
        db.selectFrom('liveness_configs as l').innerJoin('endpoints as e', 'e.id', 'l.endpoint_id'),
        teamId,
        f,
      )
        .select((e) => e.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow();
      const rows = await filtered(base(), teamId, f)
        .orderBy('l.created_at')
        .orderBy('l.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toConfig), total: Number(total), ...page };
    },
    /**
     * The enabled configs among `ids` (a claim round's) whose endpoints are enabled, each with its
     * endpoint: one statement (prepared on PostgreSQL, its result columns named). On PostgreSQL each
     * config and endpoint is found by one primary-key probe (a join or an `in` list makes its planner
     * hash a whole table once the fleet is large), the domain's name by another.
     */
    async enabledTargetsByIds(ids: readonly string[]): Promise<LivenessTarget[]> {
      if (!ids.length) return [];
      const rows: TargetRow[] = [];
      if (engineOf(db) === 'postgres')
        rows.push(
          ...(
            await sql<TargetRow>`select ${targetColumns('l', 'e')}
              from ${probedByKey('liveness_configs', ids, 'l')} cross join ${enabledEndpointOf('l', 'e')}
              where l.is_enabled = 1 ${PREPARED}`.execute(db)
          ).rows,
        );
      else
        for (let i = 0; i < ids.length; i += 500)
          rows.push(
            ...(
              await sql<TargetRow>`select ${targetColumns('l', 'e')}
                from liveness_configs l join endpoints e on e.id = l.endpoint_id
                where l.id in (${sql.join(ids.slice(i, i + 500))}) and l.is_enabled = 1 and e.is_enabled = 1`.execute(
                db,
              )
            ).rows,
          );
      return rows.flatMap((r) => toTarget(r) ?? []);
    },
    /**
     * Enabled configs of enabled endpoints (the scheduler's working set) in one scope: one config, one
     * endpoint's, one domain's, or a page of all of them by id (`after`, `limit`: keyset paging).
     */
    async enabledTargets(scope: {
      id?: string;
      endpoint_id?: string;
      domain_id?: string;
      after?: string;
      limit?: number;
    }): Promise<LivenessConfig[]> {
      let q = base().where('l.is_enabled', '=', 1).where('e.is_enabled', '=', 1);
      if (scope.id !== undefined) q = q.where('l.id', '=', scope.id);
      if (scope.endpoint_id !== undefined) q = q.where('l.endpoint_id', '=', scope.endpoint_id);
      if (scope.domain_id !== undefined) q = q.where('e.domain_id', '=', scope.domain_id);
      if (scope.after !== undefined) q = q.where('l.id', '>', scope.after);
      if (scope.limit !== undefined) q = q.orderBy('l.id').limit(scope.limit);
      return (await q.execute()).map(toConfig);
    },
    /** Inserts with a new id and the next integer `seq` (call inside a transaction); returns the id. The request fields default to a plain GET. */
    async insert(
      config: Omit<LivenessConfig, 'id' | 'seq' | keyof RequestFields> & Partial<RequestFields>,
    ): Promise<string> {
      return (await insertMany([config]))[0]!;
    },
    insertMany,
    /** These configs of a team, by id (those that exist). */
    async getMany(teamId: string, ids: readonly string[]): Promise<Map<string, LivenessConfig>> {
      const out = new Map<string, LivenessConfig>();
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await base()
          .where('l.team_id', '=', teamId)
          .where('l.id', 'in', ids.slice(i, i + 500))
          .execute();
        for (const r of rows) out.set(r.id, toConfig(r));
      }
      return out;
    },
    async update(
      teamId: string,
      id: string,
      patch: Partial<Omit<LivenessConfig, 'id' | 'seq' | 'team_id' | 'endpoint_id' | 'created_at'>>,
    ): Promise<void> {
      const { is_enabled, regions, method, headers, body, follow_redirects, conditions, auth, ...rest } = patch;
      await db
        .updateTable('liveness_configs')
        .set(
          defined({
            ...rest,
            ...encodeRequest({ method, headers, body, follow_redirects, conditions, auth }),
            is_enabled: is_enabled === undefined ? undefined : fromBool(is_enabled),
            // null (no regions) is a value here: defined() keeps it.
            regions: regions === undefined ? undefined : encodeRegions(regions),
          }),
        )
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
      // New regions get their rows in the due-queue (due now), dropped ones lose theirs.
      if (opts.dueQueue && regions !== undefined)
        await livenessDueRepo(db).setRegions(id, regions, Date.parse(patch.updated_at ?? new Date().toISOString()));
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('liveness_configs').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
    /**
     * Every credential sealed again under the sealer's first key (in the transaction of `dommon
     * secrets rotate-key`). One no key opens stops it (SealError): rotation never drops a secret.
     */
    async resealAll(): Promise<number> {
      if (!sealer) throw new SealError('no secret key to seal with');
      const rows = await db
        .selectFrom('liveness_configs')
        .select(['id', 'auth_secret'])
        .where('auth_secret', 'is not', null)
        .execute();
      for (const r of rows) {
        let opened: OpenedAuth;
        try {
          opened = openAuth(r.auth_secret!);
        } catch (err) {
          throw new SealError(`liveness configuration ${r.id}: ${(err as Error).message}`);
        }
        await db
          .updateTable('liveness_configs')
          .set({ auth_secret: sealAuth(opened) })
          .where('id', '=', r.id)
          .execute();
      }
      return rows.length;
    },
    /** How many credentials are stored under each key id (`plain`: not sealed). */
    async sealedKeyIds(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('liveness_configs')
        .select('auth_secret')
        .where('auth_secret', 'is not', null)
        .execute();
      const out: Record<string, number> = {};
      for (const r of rows) {
        const id = sealedKeyId(r.auth_secret!) ?? 'plain';
        out[id] = (out[id] ?? 0) + 1;
      }
      return out;
    },
  };
}
