// Bulk creates (domains, endpoints, liveness): each item commits on its own, and what failed is
// reported per item (index, input, error, code) instead of failing the whole request.
import type { BulkResult } from '../domain/types.js';
import { ServiceError } from '../domain/errors.js';

/**
 * Items started together: their transactions join one group commit (store/group-commit.ts), each in
 * its own savepoint, so a window of items shares one COMMIT while a failing item still rolls back
 * only its own writes. Matches the group commit's units per COMMIT.
 */
const WINDOW = 64;

type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: string; code?: string };

async function attempt<I, T>(item: I, one: (item: I) => Promise<T>): Promise<ItemOutcome<T>> {
  try {
    return { ok: true, value: await one(item) };
  } catch (err) {
    // A service error (invalid input, a conflict, a limit) fails this item; anything else fails the request.
    if (!(err instanceof ServiceError)) throw err;
    return { ok: false, error: err.message ?? 'failed', code: err.code };
  }
}

/**
 * Runs `one` per item, each in its own transaction, and reports per item what failed and why, in
 * the items' order. Items of a window run concurrently (their units are serialized by the store in
 * start order, so a later item sees an earlier one's writes: two items for one endpoint still give
 * one create and one conflict); any other failure fails the whole request.
 */
async function bulk<I, T>(items: I[], one: (item: I) => Promise<T>): Promise<BulkResult<T>> {
  const out: BulkResult<T> = { created: [], failed: [] };
  for (let start = 0; start < items.length; start += WINDOW) {
    const window = items.slice(start, start + WINDOW);
    const settled = await Promise.allSettled(window.map((item) => attempt(item, one)));
    for (const [k, s] of settled.entries()) {
      if (s.status === 'rejected') throw s.reason;
      const r = s.value;
      if (r.ok) out.created.push(r.value);
      else out.failed.push({ index: start + k, input: window[k], error: r.error, code: r.code });
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
