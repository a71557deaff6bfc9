// The reads behind the dashboard's home and an endpoint's "why is it down" views: every domain of a
// team with its registration, DNS score and portfolio in one query, the last checks of a page of
// liveness configurations, an endpoint's outage and recovery events with the deliveries sent for
// them, and a cheap fingerprint of what a team's home shows (the live feed compares it).
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import { toBool } from './util.js';

interface HomeDomainRow {
  id: string;
  domain: string;
  portfolio_id: string | null;
  portfolio: string | null;
  health_grade: string | null;
  health_score: number | null;
  overall_status: string | null;
  expiry_override: string | null;
  registry_expiry_date: string | null;
  registration_state: string | null;
  security_score: number | null;
  created_at: string;
}

interface RecentCheck {
  ts: number;
  ok: boolean;
  ms: number;
  status: number | null;
  error: string | null;
}

interface OutageEventRow {
  id: string;
  category: string | null;
  created_at: string;
  message: string;
  details: string;
}

interface IncidentDelivery {
  event_id: string;
  channel: string;
  recipient: string | null;
  status: string;
  sent_at: string | null;
  error_message: string | null;
}

const DOWN = 'endpoint_down';
const RECOVERED = 'endpoint_recovered';
/** Ids per `in (...)` list. */
const CHUNK = 500;

export function dashboardRepo(db: Kysely<DB>) {
  return {
    /** Every domain of the team with what the home shows of it. */
    async domainRows(teamId: string): Promise<HomeDomainRow[]> {
      return db
        .selectFrom('domains as d')
        .leftJoin('portfolios as p', 'p.id', 'd.portfolio_id')
        .leftJoin('domain_registrations as r', 'r.domain_id', 'd.id')
        .leftJoin('domain_security as s', 's.domain_id', 'd.id')
        .where('d.team_id', '=', teamId)
        .select([
          'd.id',
          'd.domain',
          'd.portfolio_id',
          'p.name as portfolio',
          'd.health_grade',
          'd.health_score',
          'd.overall_status',
          'd.expiry_override',
          'r.expiry_date as registry_expiry_date',
          'r.state as registration_state',
          's.security_score',
          'd.created_at',
        ])
        .execute();
    },

    /** The last `n` checks of each configuration (by seq), oldest first: one indexed read per configuration. */
    async recentChecks(cfgs: readonly number[], n: number): Promise<Map<number, RecentCheck[]>> {
      const out = new Map<number, RecentCheck[]>();
      await Promise.all(
        cfgs.map(async (cfg) => {
          const rows = await db
            .selectFrom('liveness_results')
            .select(['ts', 'ok', 'ms', 'status', 'error'])
            .where('cfg', '=', cfg)
            .orderBy('ts', 'desc')
            .limit(n)
            .execute();
          out.set(
            cfg,
            rows
              .reverse()
              .map((r) => ({ ts: Number(r.ts), ok: toBool(r.ok), ms: r.ms, status: r.status, error: r.error })),
          );
        }),
      );
      return out;
    },

    /** A page of an endpoint's outages (its down events), newest first, with their total. */
    async outages(
      teamId: string,
      endpointId: string,
      limit: number,
      offset: number,
    ): Promise<{ items: OutageEventRow[]; total: number }> {
      const base = db
        .selectFrom('events')
        .where('team_id', '=', teamId)
        .where('endpoint_id', '=', endpointId)
        .where('category', '=', DOWN);
      const { n } = await base.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const items = await base
        .select(['id', 'category', 'created_at', 'message', 'details'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return { items, total: Number(n) };
    },

    /** An endpoint's down and recovered events from `since` on, oldest first (pairs outages with recoveries). */
    async transitionsSince(teamId: string, endpointId: string, since: string): Promise<OutageEventRow[]> {
      return db
        .selectFrom('events')
        .where('team_id', '=', teamId)
        .where('endpoint_id', '=', endpointId)
        .where('category', 'in', [DOWN, RECOVERED])
        .where('created_at', '>=', since)
        .select(['id', 'category', 'created_at', 'message', 'details'])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** The notifications made for these events (test sends excluded), oldest first. */
    async deliveriesFor(teamId: string, eventIds: readonly string[]): Promise<IncidentDelivery[]> {
      const out: IncidentDelivery[] = [];
      for (let i = 0; i < eventIds.length; i += CHUNK) {
        const rows = await db
          .selectFrom('deliveries')
          .where('team_id', '=', teamId)
          .where('event_id', 'in', eventIds.slice(i, i + CHUNK))
          .select(['event_id', 'channel', 'recipient', 'status', 'sent_at', 'error_message', 'created_at'])
          .orderBy('created_at')
          .execute();
        for (const r of rows)
          out.push({
            event_id: r.event_id!,
            channel: r.channel,
            recipient: r.recipient,
            status: r.status,
            sent_at: r.sent_at,
            error_message: r.error_message,
          });
      }
      return out;
    },

    /**
     * What the team's home shows, fingerprinted: its domains, endpoints, configurations and events
     * (counts and latest changes) and its configurations' latest check and state. Equal fingerprints:
     * nothing on the home moved.
     */
    async fingerprint(teamId: string): Promise<string> {
      const [d, e, c, ev, s] = await Promise.all([
        db
          .selectFrom('domains')
          .where('team_id', '=', teamId)
          .select((x) => [x.fn.countAll<number>().as('n'), x.fn.max('updated_at').as('m')])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('endpoints')
          .where('team_id', '=', teamId)
          .select((x) => [x.fn.countAll<number>().as('n'), x.fn.max('updated_at').as('m')])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('liveness_configs')
          .where('team_id', '=', teamId)
          .select((x) => [x.fn.countAll<number>().as('n'), x.fn.max('updated_at').as('m')])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('events')
          .where('team_id', '=', teamId)
          .select((x) => [x.fn.countAll<number>().as('n'), x.fn.max('created_at').as('m')])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('liveness_state as s')
          .innerJoin('liveness_configs as c', 'c.id', 's.config_id')
          .where('c.team_id', '=', teamId)
          .select((x) => [x.fn.max('s.last_check').as('m'), x.fn.sum<number>('s.consecutive_failures').as('n')])
          .executeTakeFirstOrThrow(),
      ]);
      return [d, e, c, ev, s].map((r) => `${String(r.n ?? 0)}@${String(r.m ?? '')}`).join('|');
    },
  };
}
