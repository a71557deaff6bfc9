import { managedGuard } from './managed.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import type { Page, PageOf, Portfolio, PortfolioFilter } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';

export interface PortfolioInput {
  name: string;
  description?: string | null;
}

export function createPortfolioService({ store, clock, audit, asConfigFile }: ServiceDeps) {
  const guard = managedGuard(asConfigFile);
  async function get(teamId: string, id: string): Promise<Portfolio> {
    const p = await store.portfolios.get(teamId, id);
    if (!p) throw new NotFound('Portfolio');
    return p;
  }
  return {
    get,
    list: (teamId: string, f: PortfolioFilter, page: Page): Promise<PageOf<Portfolio>> =>
      store.portfolios.list(teamId, f, page),
    async create(teamId: string, input: PortfolioInput): Promise<Portfolio> {
      const now = isoNow(clock);
      return store.transaction(async (tx) => {
        const id = await tx.portfolios.insert({
          team_id: teamId,
          name: input.name.trim(),
          description: input.description ?? null,
          created_at: now,
          updated_at: now,
        });
        const p = (await tx.portfolios.get(teamId, id))!;
        await audit?.record(tx, teamId, { action: 'create', kind: 'portfolio', id, name: p.name, after: p });
        return p;
      });
    },
    async update(teamId: string, id: string, input: Partial<PortfolioInput>): Promise<Portfolio> {
      return store.transaction(async (tx) => {
        const before = await tx.portfolios.get(teamId, id);
        if (!before) throw new NotFound('Portfolio');
        await guard(tx, 'portfolio', id);
        await tx.portfolios.update(teamId, id, {
          name: input.name?.trim(),
          description: input.description,
          updated_at: isoNow(clock),
        });
        const after = (await tx.portfolios.get(teamId, id))!;
        await audit?.record(tx, teamId, { action: 'update', kind: 'portfolio', id, name: after.name, before, after });
        return after;
      });
    },
    async remove(teamId: string, id: string): Promise<Portfolio> {
      return store.transaction(async (tx) => {
        const p = await tx.portfolios.get(teamId, id);
        if (!p) throw new NotFound('Portfolio');
        await guard(tx, 'portfolio', id);
        const n = await tx.domains.countInPortfolio(teamId, id);
        if (n > 0)
          throw new Conflict(`portfolio still holds ${n} domain(s); move or delete them first`, 'PORTFOLIO_NOT_EMPTY');
        await tx.portfolios.remove(teamId, id);
        await audit?.record(tx, teamId, { action: 'delete', kind: 'portfolio', id, name: p.name, before: p });
        return p;
      });
    },
  };
}
