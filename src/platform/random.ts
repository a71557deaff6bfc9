// Outside src/domain/ (which imports no node: modules; src/domain/README.md): it reads the OS CSPRNG.
// Random bytes for row ids and verification tokens, drawn from a 4 KiB pool that the OS CSPRNG
// (crypto.randomFillSync) refills: one call into OpenSSL per 256 draws of 16 bytes instead of one per
// draw. A domain create made two such calls (its id and its verification token), a visible share of
// its CPU in the server profile (docs/benchmarks.md). Node's own crypto.randomUUID() pools the same way.
import { randomFillSync } from 'node:crypto';

const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

/** `n` (1-4096) random bytes: a view into the pool, to be read before the next draw. */
export function randomBytesPooled(n: number): Buffer {
  if (n < 1 || n > pool.length) throw new RangeError(`randomBytesPooled: ${n} bytes`);
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const view = pool.subarray(used, used + n);
  used += n;
  return view;
}
