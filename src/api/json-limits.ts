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

/** Refuses a parsed body nested deeper than MAX_JSON_DEPTH (400 JSON_TOO_DEEP). */
export function checkJsonDepth(body: unknown): void {
  if (jsonDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new Invalid(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 'JSON_TOO_DEEP');
}
