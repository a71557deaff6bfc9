// The limits every request body is held to (docs/input-limits.md), shared by the body parser of the
// HTTP server (middleware/body.ts) and the command line's in-process requests (local.ts).
import { Invalid } from '../domain/errors.js';

/** Deepest nesting of arrays and objects a JSON body may have (the body itself is level 1). */
const MAX_JSON_DEPTH = 64;
/** Request body limit in bytes, after decompression (1 MB, as the body parser's '1mb'). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** A value met while walking a body: its key under its parent (none for the body), kept to name a path. */
interface Frame {
  value: unknown;
  depth: number;
  key: string;
  up: Frame | null;
}

/** The dotted path of a frame's value ("" for the body itself), then `key` under it when given. */
function pathOf(f: Frame, key?: string): string {
  const keys = key === undefined ? [] : [key];
  for (let x: Frame | null = f; x?.up; x = x.up) keys.push(x.key);
  return keys.reverse().join('.');
}

/**
 * Refuses a parsed body nested deeper than MAX_JSON_DEPTH (400 JSON_TOO_DEEP, whatever else it holds)
 * or holding the NUL character (U+0000, which JSON may escape) in any string or key (400
 * VALIDATION_ERROR, naming the first in the document): no field takes one, and PostgreSQL's text cannot
 * store it. One walk, without recursion; a path is spelled only for a NUL found.
 */
export function checkJsonBody(body: unknown): void {
  let nul: string | null = null;
  const stack: Frame[] = [{ value: body, depth: 1, key: '', up: null }];
  while (stack.length) {
    const f = stack.pop()!;
    const v = f.value;
    if (typeof v === 'string') {
      if (nul === null && v.includes('\u0000')) nul = pathOf(f);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (f.depth > MAX_JSON_DEPTH)
      throw new Invalid(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 'JSON_TOO_DEEP');
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x: unknown, i) => [String(i), x])
      : Object.entries(v as Record<string, unknown>);
    if (nul === null) for (const [k] of entries) if (k.includes('\u0000')) nul ??= pathOf(f, k);
    // Pushed last to first, so the values are met in the document's order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      stack.push({ value, depth: f.depth + 1, key, up: f });
    }
  }
  if (nul !== null) throw nulRefused(nul || 'body');
}

/** The 400 for a NUL character at `field` (a body's, or a query parameter's: validation.ts). */
export const nulRefused = (field: string) =>
  new Invalid(`${field}: must not contain the NUL character (U+0000)`, 'VALIDATION_ERROR', {
    errors: [{ field, message: 'must not contain the NUL character (U+0000)' }],
  });
