// Scrape-time reads for GET /metrics: one query per family, ordered and capped so label sets stay bounded.
import { engineOf } from '../migrations/engine.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

interface EndpointGaugeRow {
  team: string;
  domain: string;
  endpoint: string;
  endpoint_type: string;
  liveness_enabled: boolean;
  status: string | null;
  response_time_ms: number | null;
  ssl_not_after: string | null;
}

interface DomainGaugeRow {
  team: string;
  domain: string;
  is_verified: boolean;
  health_score: number | null;
  expiry_date: string | null;
}

export function metricsRepo(db: Kysely<DB>) {
  return {
    /** Endpoints with their liveness state and latest certificate; at most `limit` rows. */
    async endpoints(limit: number): Promise<EndpointGaugeRow[]> {
      const rows = await db
        .selectFrom('endpoints as e')
        .innerJoin('domains as d', 'd.id', 'e.domain_id')
        .innerJoin('teams as t', 't.id', 'e.team_id')
        .leftJoin('liveness_configs as lc', 'lc.endpoint_id', 'e.id')
        .leftJoin('liveness_state as ls', 'ls.config_id', 'lc.id')
        .leftJoin('endpoint_certificates as c', 'c.endpoint_id', 'e.id')
        .select([
          't.name as team',
          'd.domain as domain',
          'e.name as endpoint',
          'e.endpoint_type as endpoint_type',
          'lc.is_enabled as lc_enabled',
          'ls.status as status',
          'ls.response_time_ms as response_time_ms',
          'c.not_after as ssl_not_after',
        ])
        .orderBy('t.name')
        .orderBy('d.domain')
        .orderBy('e.name')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        team: r.team,
        domain: r.domain,
        endpoint: r.endpoint,
        endpoint_type: r.endpoint_type,
        liveness_enabled: r.lc_enabled === 1,
        status: r.status,
        response_time_ms: r.response_time_ms,
        ssl_not_after: r.ssl_not_after,
      }));
    },
    /** Domains with verification, health score and expiry (manual override first); at most `limit` rows. */
    async domains(limit: number): Promise<DomainGaugeRow[]> {
      const rows = await db
        .selectFrom('domains as d')
        .innerJoin('teams as t', 't.id', 'd.team_id')
        .leftJoin('domain_registrations as r', 'r.domain_id', 'd.id')
        .select([
          't.name as team',
          'd.domain as domain',
          'd.is_verified as is_verified',
          'd.health_score as health_score',
          'd.expiry_override as override',
          'r.expiry_date as expiry_date',
        ])
        .orderBy('t.name')
        .orderBy('d.domain')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        team: r.team,
        domain: r.domain,
        is_verified: r.is_verified === 1,
        health_score: r.health_score,
        expiry_date: r.override ?? r.expiry_date,
      }));
    },
    /** Rows in the delivery log by channel and status (a gauge: retention shrinks it). */
    async deliveryCounts(): Promise<{ channel: string; status: string; n: number }[]> {
      const rows = await db
        .selectFrom('deliveries')
        .select((e) => ['channel', 'status', e.fn.countAll<number>().as('n')])
        .groupBy(['channel', 'status'])
        .execute();
      return rows.map((r) => ({ channel: r.channel, status: r.status, n: Number(r.n) }));
    },
    async counts(): Promise<{ teams: number; domains: number; endpoints: number; liveness: number }> {
      const one = async (t: 'teams' | 'domains' | 'endpoints' | 'liveness_configs') =>
        Number(
          (
            await db
              .selectFrom(t)
              .select((e) => e.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [teams, domains, endpoints, liveness] = await Promise.all([
        one('teams'),
        one('domains'),
        one('endpoints'),
        one('liveness_configs'),
      ]);
      return { teams, domains, endpoints, liveness };
    },
    /**
     * Scheduled domain checks (registration, security) waiting to run, by kind: `due` (next run in the
     * past: the backlog a large import builds) and `never_checked` (not run once yet).
     */
    async checkBacklog(now: string): Promise<{ kind: string; due: number; never_checked: number }[]> {
      const rows = await db
        .selectFrom('check_schedule')
        .select((e) => [
          'kind',
          e.fn.sum<number>(sql`case when next_run_at <= ${now} then 1 else 0 end`).as('due'),
          e.fn.sum<number>(sql`case when last_run_at is null then 1 else 0 end`).as('never'),
        ])
        .groupBy('kind')
        .execute();
      return rows.map((r) => ({ kind: r.kind, due: Number(r.due ?? 0), never_checked: Number(r.never ?? 0) }));
    },
    /** Database file size as SQLite sees it (pages in use plus free pages). */
    async databaseSize(): Promise<{ bytes: number; freeBytes: number }> {
      if (engineOf(db) === 'postgres') {
        const pg = await sql<{ bytes: number }>`select pg_database_size(current_database()) as bytes`.execute(db);
        return { bytes: Number(pg.rows[0]?.bytes ?? 0), freeBytes: 0 };
      }
      const r = await sql<{ page_count: number; page_size: number; freelist_count: number }>`
        select (select page_count from pragma_page_count()) as page_count,
               (select page_size from pragma_page_size()) as page_size,
               (select freelist_count from pragma_freelist_count()) as freelist_count`.execute(db);
      const row = r.rows[0]!;
      return { bytes: row.page_count * row.page_size, freeBytes: row.freelist_count * row.page_size };
    },
  };
}
