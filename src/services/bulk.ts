// Bulk creates (domains, endpoints, liveness): each item commits on its own, and what failed is
// reported per item (index, input, error, code) instead of failing the whole request.
import type { BulkResult } from '../domain/types.js';

/** Runs `one` per item, each in its own transaction, and reports per item what failed and why. */
async function bulk<I, T>(items: I[], one: (item: I) => Promise<T>): Promise<BulkResult<T>> {
  const out: BulkResult<T> = { created: [], failed: [] };
  for (const [index, item] of items.entries()) {
    try {
      out.created.push(await one(item));
    } catch (err) {
      const e = err as { message?: string; code?: string; status?: number };
      if (!e || typeof e.status !== 'number' || e.status >= 500) throw err;
      out.failed.push({ index, input: item, error: e.message ?? 'failed', code: e.code });
    }
  }
  return out;
}

/**
 * A service's bulk create from its single create: `parse` validates one raw item (throwing Invalid,
 * which fails that item only), then the item is created as a single create would be.
 */
export const bulkCreate =
  <I, T>(create: (teamId: string, input: I) => Promise<T>) =>
  (teamId: string, items: unknown[], parse: (raw: unknown) => I): Promise<BulkResult<T>> =>
    bulk(items, (i) => create(teamId, parse(i)));
