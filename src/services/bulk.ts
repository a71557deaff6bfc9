// Bulk writes (creates of domains, endpoints, liveness; actions on endpoints): what failed is reported
// per item (index, input, error, code) instead of failing the whole request. Domains and endpoints are
// made through their service's createMany (one transaction for the items it accepts); the others commit
// item by item.
import type { BulkResult } from '../domain/types.js';
import { Duplicate, ServiceError, type ErrorMeaning } from '../domain/errors.js';

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

/** One item of a service's createMany: what was made, or the service error that refused it. */
type ManyOutcome<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

/**
 * A bulk create through the service's createMany: the items `parse` accepts are made in one
 * transaction (one statement per table for the lot), each refusal reported at its item, as the
 * single create would refuse it. A unique index that another writer beat it to (PostgreSQL, two
 * requests at once) fails the whole transaction; the items are then made one by one with `create`,
 * which reports that as the item's conflict.
 */
export const bulkCreateMany =
  <I, T>(
    createMany: (teamId: string, inputs: readonly I[]) => Promise<ManyOutcome<T>[]>,
    create: (teamId: string, input: I) => Promise<T>,
  ) =>
  async (teamId: string, items: unknown[], parse: (raw: unknown) => I): Promise<BulkResult<T>> => {
    const parsed: ItemOutcome<I>[] = items.map((raw) => {
      try {
        return { ok: true, value: parse(raw) };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        return { ok: false, error: err.message ?? 'failed', code: err.code, meaning: err.meaning };
      }
    });
    const valid = parsed.flatMap((p, index) => (p.ok ? [{ index, input: p.value }] : []));
    let made: ManyOutcome<T>[];
    try {
      made = valid.length
        ? await createMany(
            teamId,
            valid.map((v) => v.input),
          )
        : [];
    } catch (err) {
      if (!(err instanceof Duplicate)) throw err;
      return bulk(items, (i) => create(teamId, parse(i)));
    }
    const out: BulkResult<T> = { created: [], failed: [] };
    const byIndex = new Map(valid.map((v, k) => [v.index, made[k]!]));
    for (const [index, p] of parsed.entries()) {
      const r = byIndex.get(index);
      if (!p.ok) out.failed.push({ index, input: items[index], error: p.error, code: p.code });
      else if (r?.ok) out.created.push(r.value);
      else if (r)
        out.failed.push({ index, input: items[index], error: r.error.message ?? 'failed', code: r.error.code });
    }
    return out;
  };
