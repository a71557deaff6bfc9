import { sql, type Expression, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { DB, EndpointsTable } from '../schema.js';
import type { EndpointSettings, Health } from '../../domain/endpoint.js';
import type {
  CertificateSummary,
  Endpoint,
  EndpointFilter,
  EndpointType,
  Page,
  PageOf,
  StatusFilter,
} from '../../domain/types.js';
import { defined, fromBool, newId, probedByKey, toBool } from './util.js';
import { engineOf } from '../migrations/engine.js';

/** An endpoint's own columns, in the domain's types: the store encodes them. */
type EndpointColumns = Omit<Endpoint, 'id' | 'domain'>;
/** A new endpoint; the store makes its id unless one is given (tests, copies), settings default to none. */
type NewEndpoint = Omit<EndpointColumns, 'settings'> & { id?: string; settings?: EndpointSettings };
/** The columns an update may change (undefined: unchanged). */
type EndpointPatch = Partial<Omit<EndpointColumns, 'team_id' | 'domain_id' | 'created_at'>>;

/** Rows per multi-row insert: well under both engines' limits on bound parameters (SQLite 32,766, PostgreSQL 65,535). */
const INSERT_CHUNK = 500;

/** An endpoint's row with its domain's name. */
export type EndpointRow = Selectable<EndpointsTable> & { domain: string };
type Row = EndpointRow;

/** An endpoint with its status inputs: certificate summary and liveness configuration (when there is one). */
interface StatusRow {
  endpoint: Endpoint;
  certificate: CertificateSummary | undefined;
  liveness: { id: string; seq: number; is_enabled: boolean } | undefined;
}

/** ok/total*100 as uptimePercent (domain/liveness.ts) computes it before rounding: null without checks (x/0 and x/null are null in SQLite). */
export function uptimeSql(ok: Expression<number | null>, total: Expression<number | null>): RawBuilder<number | null> {
  return sql<number | null>`((${ok} * 1.0 / ${total}) * 100)`;
}

/**
 * endpointHealth (domain/endpoint.ts) as an SQL expression, for lists that filter and count by
 * health in the database. Inputs as there: `ssl` the certificate status (null: none), `liveness`
 * 'up' | 'down' | 'unknown' or null (no enabled configuration), `uptime` as uptimeSql gives it.
 * endpointHealth warns when uptimePercent's two-decimal rounding of it is under 99, i.e. when
 * uptime*100 is under 9899.5 (Math.round's halfway point), in the same double arithmetic.
 * test/store/endpoint-health-sql.test.ts checks both agree over every input combination.
 */
export function healthSql(
  ssl: Expression<string | null>,
  liveness: Expression<string | null>,
  uptime: Expression<number | null>,
): RawBuilder<Health> {
  return sql<Health>`(case
    when ${liveness} = 'down' or ${ssl} in ('expired', 'invalid', 'error') then 'critical'
    when ${ssl} = 'expiring_soon' or ${uptime} * 100 < 9899.5 then 'warning'
    when coalesce(${ssl}, 'unknown') = 'unknown' and coalesce(${liveness}, 'unknown') = 'unknown' then 'unknown'
    else 'healthy' end)`;
}

export function toEndpoint(r: Row): Endpoint {
  return {
    id: r.id,
    team_id: r.team_id,
    domain_id: r.domain_id,
    domain: r.domain,
    name: r.name,
    endpoint_type: r.endpoint_type as EndpointType,
    subdomain: r.subdomain,
    path: r.path,
    port: r.port,
    is_enabled: toBool(r.is_enabled),
    timeout_seconds: r.timeout_seconds,
    notes: r.notes,
    settings: JSON.parse(r.settings) as EndpointSettings,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function endpointsRepo(db: Kysely<DB>) {
  const base = () =>
    db.selectFrom('endpoints as e').innerJoin('domains as d', 'd.id', 'e.domain_id').selectAll('e').select('d.domain');
  const filtered = <Q extends { where: (...a: any[]) => Q }>(q: Q, teamId: string, f: EndpointFilter): Q => {
    let out = q.where('e.team_id', '=', teamId);
    if (f.domain_id) out = out.where('e.domain_id', '=', f.domain_id);
    if (f.endpoint_type) out = out.where('e.endpoint_type', '=', f.endpoint_type);
    if (f.is_enabled !== undefined) out = out.where('e.is_enabled', '=', f.is_enabled ? 1 : 0);
    return out;
  };
  // Each endpoint with its certificate, liveness configuration and state (at most one of each).
  const withStatus = () =>
    db
      .selectFrom('endpoints as e')
      .leftJoin('endpoint_certificates as c', 'c.endpoint_id', 'e.id')
      .leftJoin('liveness_configs as l', 'l.endpoint_id', 'e.id')
      .leftJoin('liveness_state as s', 's.config_id', 'l.id');
  // Health from those joins, with the 24 h uptime of hourly buckets from `fromHour` on (one index range per endpoint).
  const health = (fromHour: number) =>
    healthSql(
      sql.ref('c.ssl_status'),
      sql`(case when l.is_enabled = 1 then coalesce(s.status, 'unknown') end)`,
      sql`(select ${uptimeSql(sql`sum(h.ok)`, sql`sum(h.total)`)} from liveness_hourly h where h.cfg = l.seq and h.bucket >= ${fromHour})`,
    );
  return {
    async get(teamId: string, id: string): Promise<Endpoint | undefined> {
      const r = await base().where('e.team_id', '=', teamId).where('e.id', '=', id).executeTakeFirst();
      return r && toEndpoint(r);
    },
    /** By id regardless of team (workers only). */
    async byId(id: string): Promise<Endpoint | undefined> {
      const r = await base().where('e.id', '=', id).executeTakeFirst();
      return r && toEndpoint(r);
    },
    /**
     * These endpoints regardless of team (workers only), in no particular order: a claim round's. On
     * PostgreSQL each is found by one primary-key probe (probedByKey), its domain's name by another
     * (a join would hash the whole domain table).
     */
    async byIds(ids: readonly string[]): Promise<Endpoint[]> {
      if (!ids.length) return [];
      if (engineOf(db) === 'postgres') {
        const r = await sql<Selectable<EndpointsTable> & { domain: string }>`select e.*,
            (select d.domain from domains d where d.id = e.domain_id) as domain
          from ${probedByKey('endpoints', ids, 'e')}`.execute(db);
        return r.rows.map(toEndpoint);
      }
      const out: Endpoint[] = [];
      for (let i = 0; i < ids.length; i += 500)
        out.push(
          ...(
            await base()
              .where('e.id', 'in', ids.slice(i, i + 500))
              .execute()
          ).map(toEndpoint),
        );
      return out;
    },
    async byName(domainId: string, name: string): Promise<Endpoint | undefined> {
      const r = await base().where('e.domain_id', '=', domainId).where('e.name', '=', name).executeTakeFirst();
      return r && toEndpoint(r);
    },
    async list(teamId: string, f: EndpointFilter, page: Page): Promise<PageOf<Endpoint>> {
      const { total } = await filtered(db.selectFrom('endpoints as e'), teamId, f)
        .select((e) => e.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow();
      const rows = await filtered(base(), teamId, f)
        .orderBy('e.created_at')
        .orderBy('e.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toEndpoint), total: Number(total), ...page };
    },
    /**
     * Endpoints of a team (or one of its domains) with their status inputs, in list order (created_at,
     * id), one query; `health` keeps those whose health, with the 24 h uptime from `fromHour`, is that.
     */
    async statusRows(teamId: string, f: StatusFilter, fromHour: number, page?: Page): Promise<StatusRow[]> {
      let q = filtered(withStatus().innerJoin('domains as d', 'd.id', 'e.domain_id'), teamId, {
        domain_id: f.domain_id,
      })
        .selectAll('e')
        .select([
          'd.domain',
          'c.ssl_status',
          'c.not_after',
          'c.issuer',
          'c.subject',
          'c.checked_at',
          'l.id as liveness_id',
          'l.seq as liveness_seq',
          'l.is_enabled as liveness_enabled',
        ])
        .orderBy('e.created_at')
        .orderBy('e.id');
      if (f.health) q = q.where(health(fromHour), '=', f.health);
      if (page) q = q.limit(page.limit).offset(page.offset);
      const rows = await q.execute();
      return rows.map((r) => ({
        endpoint: toEndpoint(r),
        certificate:
          r.ssl_status === null
            ? undefined
            : {
                ssl_status: r.ssl_status,
                not_after: r.not_after,
                issuer: r.issuer,
                subject: r.subject,
                checked_at: r.checked_at,
              },
        liveness:
          r.liveness_id === null || r.liveness_seq === null
            ? undefined
            : { id: r.liveness_id, seq: r.liveness_seq, is_enabled: toBool(r.liveness_enabled) },
      }));
    },
    /** How many endpoints of a team (or one of its domains) have each health, with the 24 h uptime from `fromHour`: one aggregate. */
    async healthCounts(
      teamId: string,
      f: Pick<StatusFilter, 'domain_id'>,
      fromHour: number,
    ): Promise<Record<Health, number>> {
      const rows = await filtered(withStatus(), teamId, f)
        .select((e) => [health(fromHour).as('health'), e.fn.countAll<number>().as('n')])
        .groupBy(sql.ref('health'))
        .execute();
      const out: Record<Health, number> = { healthy: 0, warning: 0, critical: 0, unknown: 0 };
      for (const r of rows) out[r.health] = Number(r.n);
      return out;
    },
    async forDomain(teamId: string, domainId: string): Promise<Endpoint[]> {
      const rows = await base()
        .where('e.team_id', '=', teamId)
        .where('e.domain_id', '=', domainId)
        .orderBy('e.created_at')
        .orderBy('e.id')
        .execute();
      return rows.map(toEndpoint);
    },
    /** Latest TLS inspection summary, or undefined before the first check. */
    async certificate(endpointId: string) {
      return db
        .selectFrom('endpoint_certificates')
        .select(['ssl_status', 'not_after', 'issuer', 'subject', 'checked_at', 'error'])
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirst();
    },
    async count(teamId: string): Promise<number> {
      const r = await db
        .selectFrom('endpoints')
        .where('team_id', '=', teamId)
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** Inserts the endpoint; returns its id. */
    async insert(e: NewEndpoint): Promise<string> {
      const id = e.id ?? newId();
      await db
        .insertInto('endpoints')
        .values({ ...e, id, is_enabled: fromBool(e.is_enabled), settings: JSON.stringify(e.settings ?? {}) })
        .execute();
      return id;
    },
    /** Inserts the endpoints, a few hundred rows per statement; returns their ids in order. */
    async insertMany(rows: readonly NewEndpoint[]): Promise<string[]> {
      const ids = rows.map((e) => e.id ?? newId());
      for (let i = 0; i < rows.length; i += INSERT_CHUNK)
        await db
          .insertInto('endpoints')
          .values(
            rows.slice(i, i + INSERT_CHUNK).map((e, j) => ({
              ...e,
              id: ids[i + j]!,
              is_enabled: fromBool(e.is_enabled),
              settings: JSON.stringify(e.settings ?? {}),
            })),
          )
          .execute();
      return ids;
    },
    /** The names of the endpoints of these domains, as `<domain id>/<name>`. */
    async namesIn(domainIds: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < domainIds.length; i += 500) {
        const rows = await db
          .selectFrom('endpoints')
          .select(['domain_id', 'name'])
          .where('domain_id', 'in', domainIds.slice(i, i + 500))
          .execute();
        for (const r of rows) out.add(`${r.domain_id}/${r.name}`);
      }
      return out;
    },
    async update(teamId: string, id: string, patch: EndpointPatch): Promise<void> {
      const { is_enabled, settings, ...rest } = patch;
      await db
        .updateTable('endpoints')
        .set(
          defined({
            ...rest,
            is_enabled: is_enabled === undefined ? undefined : fromBool(is_enabled),
            settings: settings === undefined ? undefined : JSON.stringify(settings),
          }),
        )
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('endpoints').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
  };
}
