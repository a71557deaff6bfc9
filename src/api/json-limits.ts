// The limits every request body is held to (docs/input-limits.md), shared by the body parser of the
// HTTP server (middleware/body.ts) and the command line's in-process requests (local.ts).
import { Invalid } from '../domain/errors.js';

/** Deepest nesting of arrays and objects a JSON body may have (the body itself is level 1). */
const MAX_JSON_DEPTH = 64;
/** Request body limit in bytes, after decompression (1 MB, as the body parser's '1mb'). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The depth of a parsed JSON value (0 for a scalar), without recursion, stopping once past `cap`. */
function jsonDepth(value: unknown, cap = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) {
      max = d;
      if (max > cap) return max;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
  return max;
}

/** Where a parsed value holds U+0000 in a string or a key (a dotted path, "" for the whole), or null. */
function nulAt(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return at;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    // Pushed last to first, so the first one in the document is the one named.
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x: unknown, i) => [String(i), x])
      : Object.entries(v as Record<string, unknown>);
    for (const [k] of entries) if (k.includes('\u0000')) return at ? `${at}.${k}` : k;
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      stack.push([x, at ? `${at}.${k}` : k]);
    }
  }
  return null;
}

/**
 * Refuses a parsed body nested deeper than MAX_JSON_DEPTH (400 JSON_TOO_DEEP) or holding the NUL
 * character (U+0000, which JSON may escape) in any string or key (400 VALIDATION_ERROR): no field takes
 * one, and PostgreSQL's text cannot store it.
 */
export function checkJsonBody(body: unknown): void {
  if (jsonDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new Invalid(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 'JSON_TOO_DEEP');
  const at = nulAt(body);
  if (at !== null) throw nulRefused(at || 'body');
}

/** The 400 for a NUL character at `field` (a body's, or a query parameter's: validation.ts). */
export const nulRefused = (field: string) =>
  new Invalid(`${field}: must not contain the NUL character (U+0000)`, 'VALIDATION_ERROR', {
    errors: [{ field, message: 'must not contain the NUL character (U+0000)' }],
  });
