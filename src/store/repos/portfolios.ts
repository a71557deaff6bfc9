import type { Kysely } from 'kysely';
import type { DB, PortfoliosTable } from '../schema.js';
import type { Page, PageOf, Portfolio, PortfolioFilter } from '../../domain/types.js';
import { containsLiteral, defined, newId } from './util.js';

export function portfoliosRepo(db: Kysely<DB>) {
  const base = (teamId: string) =>
    db
      .selectFrom('portfolios as p')
      .where('p.team_id', '=', teamId)
      .select((eb) => [
        'p.id',
        'p.team_id',
        'p.name',
        'p.description',
        'p.created_at',
        'p.updated_at',
        eb
          .selectFrom('domains as d')
          .whereRef('d.portfolio_id', '=', 'p.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('domain_count'),
      ]);
  const map = (r: Omit<Portfolio, 'domain_count'> & { domain_count: number | null }): Portfolio => ({
    ...r,
    domain_count: Number(r.domain_count ?? 0),
  });
  return {
    async get(teamId: string, id: string): Promise<Portfolio | undefined> {
      const r = await base(teamId).where('p.id', '=', id).executeTakeFirst();
      return r && map(r);
    },
    async list(teamId: string, f: PortfolioFilter, page: Page): Promise<PageOf<Portfolio>> {
      let q = db.selectFrom('portfolios as p').where('p.team_id', '=', teamId);
      if (f.name) q = q.where(containsLiteral('p.name', f.name));
      const { total } = await q.select((e) => e.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
      let lq = base(teamId);
      if (f.name) lq = lq.where(containsLiteral('p.name', f.name));
      const rows = await lq.orderBy('p.created_at').orderBy('p.id').limit(page.limit).offset(page.offset).execute();
      return { items: rows.map(map), total: Number(total), ...page };
    },
    /** Inserts the portfolio; returns its id, made by the store unless given. */
    async insert(p: Omit<PortfoliosTable, 'id'> & { id?: string }): Promise<string> {
      const id = p.id ?? newId();
      await db
        .insertInto('portfolios')
        .values({ ...p, id })
        .execute();
      return id;
    },
    async update(
      teamId: string,
      id: string,
      patch: Partial<Pick<PortfoliosTable, 'name' | 'description' | 'updated_at'>>,
    ): Promise<void> {
      await db
        .updateTable('portfolios')
        .set(defined(patch))
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    },
    async remove(teamId: string, id: string): Promise<void> {
      await db.deleteFrom('portfolios').where('team_id', '=', teamId).where('id', '=', id).execute();
    },
  };
}
