import { Conflict, NotFound } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import type { Page, PageOf, Portfolio, PortfolioFilter } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';

export interface PortfolioInput {
  name: string;
  description?: string | null;
}

export function createPortfolioService({ store, clock }: ServiceDeps) {
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
      const id = await store.portfolios.insert({
        team_id: teamId,
        name: input.name.trim(),
        description: input.description ?? null,
        created_at: now,
        updated_at: now,
      });
      return get(teamId, id);
    },
    async update(teamId: string, id: string, input: Partial<PortfolioInput>): Promise<Portfolio> {
      await get(teamId, id);
      await store.portfolios.update(teamId, id, {
        name: input.name?.trim(),
        description: input.description,
        updated_at: isoNow(clock),
      });
      return get(teamId, id);
    },
    async remove(teamId: string, id: string): Promise<Portfolio> {
      return store.transaction(async (tx) => {
        const p = await tx.portfolios.get(teamId, id);
        if (!p) throw new NotFound('Portfolio');
        const n = await tx.domains.countInPortfolio(teamId, id);
        if (n > 0)
          throw new Conflict(`portfolio still holds ${n} domain(s); move or delete them first`, 'PORTFOLIO_NOT_EMPTY');
        await tx.portfolios.remove(teamId, id);
        return p;
      });
    },
  };
}
