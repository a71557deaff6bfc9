// Status pages (owner side: team-scoped CRUD) and the one read behind a public page (by slug).
import type { Kysely } from 'kysely';
import type { DB, StatusPageEndpointsTable, StatusPagesTable } from '../schema.js';
import type { Page, PageOf } from '../../domain/types.js';
import { publicEndpointName, type StatusPage, type StatusPageEndpoint } from '../../domain/status-page.js';
import { defined, fromBool, newId, toBool } from './util.js';

/** One shown endpoint as the public page's read finds it (ids stay inside the service). */
interface PublicSourceEndpoint {
  endpoint_id: string;
  name: string;
  enabled: boolean;
  config_id: string | null;
  seq: number | null;
  config_enabled: boolean;
  status: string | null;
  /** Of the last check (badges only; the page itself does not show it). */
  response_time_ms: number | null;
  not_after: string | null;
}

interface PublicSource {
  team_id: string;
  title: string;
  description: string | null;
  show_certificates: boolean;
  endpoints: PublicSourceEndpoint[];
}

/** A status page's own columns, in the domain's types: the store encodes them. */
type StatusPageColumns = Omit<StatusPage, 'id' | 'endpoints'>;
/** The columns an update may change (undefined: unchanged). */
type StatusPagePatch = Partial<Omit<StatusPageColumns, 'team_id' | 'created_at'>>;

function encodePatch(p: StatusPagePatch): Partial<StatusPagesTable> {
  const { show_certificates, enabled, ...rest } = p;
  return defined({
    ...rest,
    show_certificates: show_certificates === undefined ? undefined : fromBool(show_certificates),
    is_enabled: enabled === undefined ? undefined : fromBool(enabled),
  });
}

const CHUNK = 500;

export function statusPagesRepo(db: Kysely<DB>) {
  async function endpointsOf(pageIds: readonly string[]): Promise<Map<string, StatusPageEndpoint[]>> {
    const out = new Map<string, StatusPageEndpoint[]>();
    for (let i = 0; i < pageIds.length; i += CHUNK) {
      const rows = await db
        .selectFrom('status_page_endpoints as sp')
        .innerJoin('endpoints as e', 'e.id', 'sp.endpoint_id')
        .select(['sp.status_page_id', 'sp.endpoint_id', 'sp.display_name', 'e.name'])
        .where('sp.status_page_id', 'in', pageIds.slice(i, i + CHUNK))
        .orderBy('sp.status_page_id')
        .orderBy('sp.position')
        .execute();
      for (const r of rows) {
        const list = out.get(r.status_page_id) ?? [];
        list.push({ endpoint_id: r.endpoint_id, display_name: r.display_name, name: r.name });
        out.set(r.status_page_id, list);
      }
    }
    return out;
  }
  const withEndpoints = async (rows: StatusPagesTable[]): Promise<StatusPage[]> => {
    const eps = await endpointsOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      team_id: r.team_id,
      portfolio_id: r.portfolio_id,
      slug: r.slug,
      title: r.title,
      description: r.description,
      show_certificates: toBool(r.show_certificates),
      enabled: toBool(r.is_enabled),
      endpoints: eps.get(r.id) ?? [],
      created_at: r.created_at,
      updated_at: r.updated_at,
    }));
  };

  async function bucketRows(table: 'liveness_daily' | 'liveness_hourly', seqs: readonly number[], from: number) {
    const out: { cfg: number; bucket: number; total: number; ok: number }[] = [];
    for (let i = 0; i < seqs.length; i += CHUNK) {
      const rows = await db
        .selectFrom(table)
        .select(['cfg', 'bucket', 'total', 'ok'])
        .where('cfg', 'in', seqs.slice(i, i + CHUNK))
        .where('bucket', '>=', from)
        .execute();
      out.push(...rows.map((r) => ({ cfg: r.cfg, bucket: Number(r.bucket), total: r.total, ok: r.ok })));
    }
    return out;
  }

  return {
    async get(teamId: string, id: string): Promise<StatusPage | undefined> {
      const r = await db
        .selectFrom('status_pages')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && (await withEndpoints([r]))[0];
    },
    async list(teamId: string, f: { portfolio_id?: string }, page: Page): Promise<PageOf<StatusPage>> {
      let q = db.selectFrom('status_pages').where('team_id', '=', teamId);
      if (f.portfolio_id) q = q.where('portfolio_id', '=', f.portfolio_id);
      const { total } = await q.select((e) => e.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
      const rows = await q
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: await withEndpoints(rows), total: Number(total), ...page };
    },
    /** Inserts the page (its endpoints: setEndpoints); returns its id, made by the store unless given. */
    async insert(p: StatusPageColumns & { id?: string }): Promise<string> {
      const id = p.id ?? newId();
      await db
        .insertInto('status_pages')
        .values({
          id,
          team_id: p.team_id,
          portfolio_id: p.portfolio_id,
          slug: p.slug,
          title: p.title,
          description: p.description,
          show_certificates: fromBool(p.show_certificates),
          is_enabled: fromBool(p.enabled),
          created_at: p.created_at,
          updated_at: p.updated_at,
        })
        .execute();
      return id;
    },
    /** The id of the page (of any team) whose address is `slug`, if one is. */
    async idOfSlug(slug: string): Promise<string | undefined> {
      const r = await db.selectFrom('status_pages').select('id').where('slug', '=', slug).executeTakeFirst();
      return r?.id;
    },
    async update(teamId: string, id: string, patch: StatusPagePatch): Promise<void> {
      await db
        .updateTable('status_pages')
        .set(encodePatch(patch))
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },
    /** Replaces the page's endpoint list (the caller checked each endpoint). */
    async setEndpoints(pageId: string, rows: Omit<StatusPageEndpointsTable, 'status_page_id'>[]): Promise<void> {
      await db.deleteFrom('status_page_endpoints').where('status_page_id', '=', pageId).execute();
      if (rows.length)
        await db
          .insertInto('status_page_endpoints')
          .values(rows.map((r) => ({ ...r, status_page_id: pageId })))
          .execute();
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('status_pages').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
    /** Of `ids`, the endpoints of the team's domains in `portfolioId` (id -> name). */
    async endpointsInPortfolio(teamId: string, portfolioId: string, ids: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await db
          .selectFrom('endpoints as e')
          .innerJoin('domains as d', 'd.id', 'e.domain_id')
          .select('e.id')
          .where('e.team_id', '=', teamId)
          .where('d.portfolio_id', '=', portfolioId)
          .where('e.id', 'in', ids.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) out.add(r.id);
      }
      return out;
    },

    /**
     * The enabled page at `slug` and its shown endpoints (in order) with what the page needs of each:
     * current liveness status and certificate expiry. An endpoint whose domain left the page's
     * portfolio is not shown. Undefined for an unknown or disabled slug.
     */
    async publicSource(slug: string): Promise<PublicSource | undefined> {
      const p = await db
        .selectFrom('status_pages')
        .select(['id', 'team_id', 'portfolio_id', 'title', 'description', 'show_certificates'])
        .where('slug', '=', slug)
        .where('is_enabled', '=', 1)
        .executeTakeFirst();
      if (!p) return undefined;
      const rows = await db
        .selectFrom('status_page_endpoints as sp')
        .innerJoin('endpoints as e', 'e.id', 'sp.endpoint_id')
        .innerJoin('domains as d', 'd.id', 'e.domain_id')
        .leftJoin('liveness_configs as c', 'c.endpoint_id', 'e.id')
        .leftJoin('liveness_state as s', 's.config_id', 'c.id')
        .leftJoin('endpoint_certificates as ec', 'ec.endpoint_id', 'e.id')
        .select([
          'sp.endpoint_id',
          'sp.display_name',
          'sp.position',
          'e.is_enabled',
          'c.id as config_id',
          'c.seq',
          'c.is_enabled as config_enabled',
          's.status',
          's.response_time_ms',
          'ec.not_after',
        ])
        .where('sp.status_page_id', '=', p.id)
        .where('e.team_id', '=', p.team_id)
        .where('d.portfolio_id', '=', p.portfolio_id)
        .orderBy('sp.position')
        .execute();
      return {
        team_id: p.team_id,
        title: p.title,
        description: p.description,
        show_certificates: toBool(p.show_certificates),
        // The endpoint's own name is not even read: the public name is the display name or "Service N"
        // (N its place in the page's list, as the owner's API shows it, also when one is hidden).
        endpoints: rows.map((r) => ({
          endpoint_id: r.endpoint_id,
          name: publicEndpointName(r.display_name, r.position),
          enabled: toBool(r.is_enabled),
          config_id: r.config_id,
          seq: r.seq,
          config_enabled: toBool(r.config_enabled),
          status: r.status,
          response_time_ms: r.response_time_ms,
          not_after: r.not_after,
        })),
      };
    },

    /** Daily liveness sums of `seqs` from day `fromDay` on. */
    dailyRows: (seqs: readonly number[], fromDay: number) => bucketRows('liveness_daily', seqs, fromDay),

    /** Hourly liveness sums of `seqs` from hour `fromHour` on (the badges' last 24 hours). */
    hourlyRows: (seqs: readonly number[], fromHour: number) => bucketRows('liveness_hourly', seqs, fromHour),

    /** Down and recovery events of the team's `endpointIds` since `since` (ISO), oldest first, at most `limit`. */
    async transitions(teamId: string, endpointIds: readonly string[], since: string, limit: number) {
      if (!endpointIds.length) return [];
      return db
        .selectFrom('events')
        .select(['endpoint_id', 'category', 'created_at'])
        .where('team_id', '=', teamId)
        .where('endpoint_id', 'in', endpointIds.slice(0, CHUNK))
        .where('event_type', '=', 'liveness')
        .where('category', 'in', ['endpoint_down', 'endpoint_recovered'])
        .where('created_at', '>=', since)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute();
    },
  };
}
