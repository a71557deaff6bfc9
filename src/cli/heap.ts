// The daemon's heap policy. V8 lets a busy process's heap grow up to about four times what is live
// before a full collection; a monitor probing tens of thousands of endpoints allocates steadily and
// is never idle, so its RSS settles near that ceiling (535 MB at 50,000 configs, 137 MB live). Growing
// by at most half of what is live keeps it near 350 MB for about the same CPU (bench/fleet.ts).
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** Applies the policy unless the operator chose their own heap flags (NODE_OPTIONS or node's arguments). */
export function tuneHeap(): boolean {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) =>
    /--(heap-growing-percent|max-old-space-size|max-semi-space-size)/.test(a),
  );
  if (chosen) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
