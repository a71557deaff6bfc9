// Bulk writes (creates of domains, endpoints, liveness; actions on endpoints): each item commits on
// its own, and what failed is reported per item (index, input, error, code) instead of failing the
// whole request.
import type { BulkResult } from '../domain/types.js';
import { ServiceError, type ErrorMeaning } from '../domain/errors.js';

/**
 * Items started together: their transactions join one group commit (store/group-commit.ts), each in
 * its own savepoint, so a window of items shares one COMMIT while a failing item still rolls back
 * only its own writes. Matches the group commit's units per COMMIT.
 */
const WINDOW = 64;

type ItemOutcome<T> = { ok: true; value: T } | { ok: false; error: string; code?: string; meaning: ErrorMeaning };

async function attempt<I, T>(item: I, one: (item: I) => Promise<T>): Promise<ItemOutcome<T>> {
  try {
    return { ok: true, value: await one(item) };
  } catch (err) {
    // A service error (invalid input, a conflict, a limit) fails this item; anything else fails the request.
    if (!(err instanceof ServiceError)) throw err;
    return { ok: false, error: err.message ?? 'failed', code: err.code, meaning: err.meaning };
  }
}

/**
 * Runs `one` per item, each in its own transaction, and gives each item's outcome in the items'
 * order. Items of a window run concurrently (their units are serialized by the store in start
 * order, so a later item sees an earlier one's writes: two items for one endpoint still give one
 * create and one conflict); a failure that is not a service error fails the whole request.
 */
export async function eachItem<I, T>(items: readonly I[], one: (item: I) => Promise<T>): Promise<ItemOutcome<T>[]> {
  const out: ItemOutcome<T>[] = [];
  for (let start = 0; start < items.length; start += WINDOW) {
    const settled = await Promise.allSettled(items.slice(start, start + WINDOW).map((item) => attempt(item, one)));
    for (const s of settled) {
      if (s.status === 'rejected') throw s.reason;
      out.push(s.value);
    }
  }
  return out;
}

/** Runs `one` per item (eachItem) and reports what was created, and per item what failed and why. */
async function bulk<I, T>(items: I[], one: (item: I) => Promise<T>): Promise<BulkResult<T>> {
  const out: BulkResult<T> = { created: [], failed: [] };
  for (const [index, r] of (await eachItem(items, one)).entries()) {
    if (r.ok) out.created.push(r.value);
    else out.failed.push({ index, input: items[index], error: r.error, code: r.code });
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
