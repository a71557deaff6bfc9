// The response-shaping rules, written once: every list, bulk and delete answer is a superset that a
// client of either published variant can read.
import type { BulkResult, PageOf } from '../domain/types.js';

interface Pagination {
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

function pagination(p: PageOf<unknown>): Pagination {
  return { total: p.total, limit: p.limit, offset: p.offset, has_more: p.offset + p.items.length < p.total };
}

/** Variant A (`data` + `pagination`) and variant B (named array + `total`, `limit`, `offset`). */
export function listBody<T, U>(name: string, page: PageOf<T>, map: (t: T) => U, extra: Record<string, unknown> = {}) {
  const data = page.items.map(map);
  return {
    data,
    pagination: pagination(page),
    [name]: data,
    total: page.total,
    limit: page.limit,
    offset: page.offset,
    ...extra,
  };
}

/** Variant A (`data`, `created`, `failed` counts + `errors`) and variant B (`message` + named array of summaries). */
export function bulkBody<T, U, S>(name: string, r: BulkResult<T>, map: (t: T) => U, summary: (t: T) => S) {
  const data = r.created.map(map);
  const message = `${r.created.length} created, ${r.failed.length} failed`;
  return {
    message,
    data,
    created: r.created.length,
    failed: r.failed.length,
    errors: r.failed,
    [name]: r.created.map(summary),
  };
}

export function deleteBody(
  thing: string,
  label: string,
  deleted: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return { message: `${label} deleted`, [`deleted_${thing}`]: deleted, ...extra };
}
