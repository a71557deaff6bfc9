import { setImmediate } from 'node:timers/promises';
import type { Kysely, Selectable } from 'kysely';
import type { DB, DomainsTable } from '../schema.js';
import type { Domain, DomainFilter, Page, PageOf } from '../../domain/types.js';
import { containsLiteral, defined, fromBool, newId, parseJson, toBool, type ReusingCompiled } from './util.js';

/** A domain's own columns, in the domain's types (booleans, the selector list): the store encodes them. */
type DomainColumns = Pick<
  Domain,
  | 'team_id'
  | 'domain'
  | 'portfolio_id'
  | 'notes'
  | 'is_verified'
  | 'verified_at'
  | 'verification_token'
  | 'health_score'
  | 'health_grade'
  | 'overall_status'
  | 'exposure_monitoring_enabled'
  | 'expiry_override'
  | 'dkim_selectors'
  | 'created_at'
  | 'updated_at'
>;
/** A new domain; the store makes its id unless one is given (tests, copies). */
type NewDomain = DomainColumns & { id?: string };
/** The columns an update may change (undefined: unchanged). */
type DomainPatch = Partial<Omit<DomainColumns, 'team_id' | 'created_at'>>;

function encodePatch(p: DomainPatch): Partial<Selectable<DomainsTable>> {
  const { is_verified, exposure_monitoring_enabled, dkim_selectors, ...rest } = p;
  return defined({
    ...rest,
    is_verified: is_verified === undefined ? undefined : fromBool(is_verified),
    exposure_monitoring_enabled:
      exposure_monitoring_enabled === undefined ? undefined : fromBool(exposure_monitoring_enabled),
    dkim_selectors: dkim_selectors === undefined ? undefined : JSON.stringify(dkim_selectors),
  });
}

type Row = Selectable<DomainsTable> & {
  registrar: string | null;
  reg_expiry: string | null;
  nameservers: string | null;
  reg_checked_at: string | null;
  reg_state: string | null;
  reg_reason: string | null;
  reg_source: string | null;
};

function toDomain(r: Row): Domain {
  return {
    id: r.id,
    team_id: r.team_id,
    domain: r.domain,
    portfolio_id: r.portfolio_id,
    notes: r.notes,
    is_verified: toBool(r.is_verified),
    verified_at: r.verified_at,
    verification_token: r.verification_token,
    health_score: r.health_score,
    health_grade: r.health_grade,
    overall_status: r.overall_status,
    exposure_monitoring_enabled: toBool(r.exposure_monitoring_enabled),
    expiry_override: r.expiry_override,
    dkim_selectors: parseJson<string[]>(r.dkim_selectors, []),
    registrar: r.registrar,
    registry_expiry_date: r.reg_expiry,
    nameservers: parseJson<string[]>(r.nameservers, []),
    registration_checked_at: r.reg_checked_at,
    registration_state: r.reg_state ?? 'unknown',
    registration_reason: r.reg_reason,
    registration_source: r.reg_source,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function domainsRepo(db: Kysely<DB>, reuse: ReusingCompiled, engine: 'sqlite' | 'postgres') {
  const base = () =>
    db
      .selectFrom('domains as d')
      .leftJoin('domain_registrations as r', 'r.domain_id', 'd.id')
      .selectAll('d')
      .select([
        'r.registrar',
        'r.expiry_date as reg_expiry',
        'r.nameservers',
        'r.checked_at as reg_checked_at',
        'r.state as reg_state',
        'r.reason as reg_reason',
        'r.source as reg_source',
      ]);
  const filtered = <Q extends { where: (...a: any[]) => Q }>(q: Q, teamId: string, f: DomainFilter): Q => {
    let out = q.where('d.team_id', '=', teamId);
    if (f.domain) out = out.where(containsLiteral('d.domain', f.domain));
    if (f.portfolio_id) out = out.where('d.portfolio_id', '=', f.portfolio_id);
    if (f.ids) out = out.where('d.id', 'in', f.ids.length ? f.ids : ['']);
    return out;
  };
  return {
    async get(teamId: string, id: string): Promise<Domain | undefined> {
      const r = await base().where('d.team_id', '=', teamId).where('d.id', '=', id).executeTakeFirst();
      return r && toDomain(r);
    },
    /** By id regardless of team (workers only). */
    async byId(id: string): Promise<Domain | undefined> {
      const r = await base().where('d.id', '=', id).executeTakeFirst();
      return r && toDomain(r);
    },
    /** Several by id regardless of team (workers only), at most 500 ids (one statement); gone ones are left out. */
    async byIds(ids: readonly string[]): Promise<Domain[]> {
      if (!ids.length) return [];
      return (await base().where('d.id', 'in', ids).execute()).map(toDomain);
    },
    /**
     * Locks these domains' rows for a health write, inside a transaction, and returns the ids it holds
     * (every one that exists), in id order so that two lockers never wait on each other in a cycle.
     * `skipLocked`: rows another transaction holds are left out instead of waited for. On SQLite the
     * transaction already excludes every other writer: every id is returned, gone ones included.
     */
    async lockForHealth(ids: readonly string[], opts: { skipLocked?: boolean } = {}): Promise<string[]> {
      if (engine !== 'postgres' || !ids.length) return [...ids];
      const q = db.selectFrom('domains').select('id').where('id', 'in', ids).orderBy('id').forUpdate();
      return (await (opts.skipLocked ? q.skipLocked() : q).execute()).map((r) => r.id);
    },
    async byName(teamId: string, name: string): Promise<Domain | undefined> {
      const r = await base().where('d.team_id', '=', teamId).where('d.domain', '=', name).executeTakeFirst();
      return r && toDomain(r);
    },
    /** Which of these (normalized) names the team's domains have. */
    async namesIn(teamId: string, names: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < names.length; i += 500) {
        const rows = await db
          .selectFrom('domains')
          .select('domain')
          .where('team_id', '=', teamId)
          .where('domain', 'in', names.slice(i, i + 500))
          .execute();
        for (const r of rows) out.add(r.domain);
      }
      return out;
    },
    /** `knownTotal`: the caller's still-current count for this filter (skips the count query). */
    async list(teamId: string, f: DomainFilter, page: Page, knownTotal?: number): Promise<PageOf<Domain>> {
      const total =
        knownTotal ??
        (
          await filtered(db.selectFrom('domains as d'), teamId, f)
            .select((e) => e.fn.countAll<number>().as('total'))
            .executeTakeFirstOrThrow()
        ).total;
      const rows = await filtered(base(), teamId, f)
        .orderBy('d.created_at')
        .orderBy('d.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toDomain), total: Number(total), ...page };
    },
    /**
     * Every domain of every team (or only the unverified, or only those with exposure scanning on), `size`
     * at a time in index order, each chunk read in a later turn of the event loop: a worker walking 10,000
     * domains holds the loop for a short slice at a time instead of one long read (figures: docs/benchmarks.md).
     */
    async *chunks(size: number, only?: 'unverified' | 'exposure'): AsyncGenerator<Domain[]> {
      let after: [string, string, string] | undefined;
      for (;;) {
        let q = base();
        if (only === 'unverified') q = q.where('d.is_verified', '=', 0);
        if (only === 'exposure') q = q.where('d.is_verified', '=', 1).where('d.exposure_monitoring_enabled', '=', 1);
        if (after) {
          const [team, created, id] = after;
          q = q.where((eb) => eb(eb.refTuple('d.team_id', 'd.created_at', 'd.id'), '>', eb.tuple(team, created, id)));
        }
        const rows = await q.orderBy('d.team_id').orderBy('d.created_at').orderBy('d.id').limit(size).execute();
        if (rows.length) yield rows.map(toDomain);
        if (rows.length < size) return;
        const last = rows[rows.length - 1]!;
        after = [last.team_id, last.created_at, last.id];
        await setImmediate();
      }
    },
    async count(teamId: string): Promise<number> {
      const r = await db
        .selectFrom('domains')
        .where('team_id', '=', teamId)
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** Inserts and returns the new domain as `get` would read it (no registration lookup yet). */
    async insert(d: NewDomain): Promise<Domain> {
      const row: Selectable<DomainsTable> = {
        id: d.id ?? newId(),
        team_id: d.team_id,
        domain: d.domain,
        portfolio_id: d.portfolio_id,
        notes: d.notes,
        is_verified: fromBool(d.is_verified),
        verified_at: d.verified_at,
        verification_token: d.verification_token,
        health_score: d.health_score,
        health_grade: d.health_grade,
        overall_status: d.overall_status,
        exposure_monitoring_enabled: fromBool(d.exposure_monitoring_enabled),
        expiry_override: d.expiry_override,
        dkim_selectors: JSON.stringify(d.dkim_selectors),
        created_at: d.created_at,
        updated_at: d.updated_at,
      };
      // Every create inserts the same columns: the compiled insert is reused (see reusingCompiled).
      const columns = Object.keys(row) as (keyof typeof row)[];
      await reuse(
        db,
        `domains.insert ${columns.join(',')}`,
        columns.map((c) => row[c]),
        () => db.insertInto('domains').values(row),
      );
      return toDomain({
        ...row,
        registrar: null,
        reg_expiry: null,
        nameservers: null,
        reg_checked_at: null,
        reg_state: null,
        reg_reason: null,
        reg_source: null,
      });
    },
    async update(teamId: string, id: string, patch: DomainPatch): Promise<void> {
      await db
        .updateTable('domains')
        .set(encodePatch(patch))
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('domains').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
    async countInPortfolio(teamId: string, portfolioId: string): Promise<number> {
      const r = await db
        .selectFrom('domains')
        .where('team_id', '=', teamId)
        .where('portfolio_id', '=', portfolioId)
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}
