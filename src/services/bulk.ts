// Bulk creates (domains, endpoints, liveness): each item commits on its own, and what failed is
// reported per item (index, input, error, code) instead of failing the whole request.
import type { BulkResult } from '../domain/types.js';
import { ServiceError } from '../domain/errors.js';

/** Runs `one` per item, each in its own transaction, and reports per item what failed and why. */
export async function bulk<I, T>(items: I[], one: (item: I) => Promise<T>): Promise<BulkResult<T>> {
  const out: BulkResult<T> = { created: [], failed: [] };
  for (const [index, item] of items.entries()) {
    try {
      out.created.push(await one(item));
    } catch (err) {
      // A service error (invalid input, a conflict, a limit) fails this item; anything else fails the request.
      if (!(err instanceof ServiceError)) throw err;
      out.failed.push({ index, input: item, error: err.message ?? 'failed', code: err.code });
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
