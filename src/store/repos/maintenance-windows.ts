// Maintenance windows: the team's CRUD, and every enabled window with the portfolios of the domains
// they may cover (what the coverage cache of services/maintenance-windows.ts reads).
import type { Kysely } from 'kysely';
import type { DB, MaintenanceWindowsTable } from '../schema.js';
import type { Page, PageOf } from '../../domain/types.js';
import type { Covered, MaintenanceWindow } from '../../domain/maintenance.js';
import { defined, fromBool, newId, parseJson, toBool } from './util.js';

type Columns = Omit<MaintenanceWindow, 'id'>;
type Patch = Partial<Omit<Columns, 'team_id' | 'created_at'>>;

const toWindow = (r: MaintenanceWindowsTable): MaintenanceWindow => ({
  id: r.id,
  team_id: r.team_id,
  name: r.name,
  starts_at: r.starts_at,
  ends_at: r.ends_at,
  cron: r.cron,
  duration_minutes: r.duration_minutes === null ? null : Number(r.duration_minutes),
  timezone: r.timezone,
  endpoint_ids: parseJson<string[]>(r.endpoint_ids, []),
  domain_ids: parseJson<string[]>(r.domain_ids, []),
  portfolio_ids: parseJson<string[]>(r.portfolio_ids, []),
  is_enabled: toBool(r.is_enabled),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const list = (v: string[] | undefined) => (v === undefined ? undefined : JSON.stringify(v));

export function maintenanceWindowsRepo(db: Kysely<DB>) {
  return {
    async get(teamId: string, id: string): Promise<MaintenanceWindow | undefined> {
      const r = await db
        .selectFrom('maintenance_windows')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toWindow(r);
    },
    async list(teamId: string, page: Page): Promise<PageOf<MaintenanceWindow>> {
      const q = db.selectFrom('maintenance_windows').where('team_id', '=', teamId);
      const { total } = await q.select((e) => e.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
      const rows = await q
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toWindow), total: Number(total), ...page };
    },
    /** Every enabled window of every team (a small table: the coverage cache holds it whole). */
    async enabled(): Promise<MaintenanceWindow[]> {
      const rows = await db.selectFrom('maintenance_windows').selectAll().where('is_enabled', '=', 1).execute();
      return rows.map(toWindow);
    },
    /**
     * The endpoints of `teamId` that are named, or whose domain is named, or whose domain is in a named
     * portfolio, each with its domain and that domain's portfolio.
     */
    async candidates(
      teamId: string,
      ids: { endpoints: readonly string[]; domains: readonly string[]; portfolios: readonly string[] },
    ): Promise<Covered[]> {
      if (!ids.endpoints.length && !ids.domains.length && !ids.portfolios.length) return [];
      return db
        .selectFrom('endpoints as e')
        .innerJoin('domains as d', 'd.id', 'e.domain_id')
        .select(['e.id as endpoint_id', 'e.domain_id', 'd.portfolio_id'])
        .where('e.team_id', '=', teamId)
        .where((w) =>
          w.or([
            ...(ids.endpoints.length ? [w('e.id', 'in', ids.endpoints)] : []),
            ...(ids.domains.length ? [w('e.domain_id', 'in', ids.domains)] : []),
            ...(ids.portfolios.length ? [w('d.portfolio_id', 'in', ids.portfolios)] : []),
          ]),
        )
        .execute();
    },
    async insert(w: Columns): Promise<string> {
      const id = newId();
      await db
        .insertInto('maintenance_windows')
        .values({
          id,
          team_id: w.team_id,
          name: w.name,
          starts_at: w.starts_at,
          ends_at: w.ends_at,
          cron: w.cron,
          duration_minutes: w.duration_minutes,
          timezone: w.timezone,
          endpoint_ids: JSON.stringify(w.endpoint_ids),
          domain_ids: JSON.stringify(w.domain_ids),
          portfolio_ids: JSON.stringify(w.portfolio_ids),
          is_enabled: fromBool(w.is_enabled),
          created_at: w.created_at,
          updated_at: w.updated_at,
        })
        .execute();
      return id;
    },
    async update(teamId: string, id: string, p: Patch): Promise<void> {
      const { endpoint_ids, domain_ids, portfolio_ids, is_enabled, ...rest } = p;
      await db
        .updateTable('maintenance_windows')
        .set(
          defined({
            ...rest,
            endpoint_ids: list(endpoint_ids),
            domain_ids: list(domain_ids),
            portfolio_ids: list(portfolio_ids),
            is_enabled: is_enabled === undefined ? undefined : fromBool(is_enabled),
          }),
        )
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('maintenance_windows').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
  };
}
