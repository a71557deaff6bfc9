// Outside src/domain/ (which imports no node: modules; src/domain/README.md): it reads the OS CSPRNG.
// Random bytes for row ids and verification tokens, drawn from a 4 KiB pool that the OS CSPRNG
// (crypto.randomFillSync) refills: one call into OpenSSL per 256 draws of 16 bytes instead of one per
// draw. Each call costs a few µs here, and a domain create made two (its id and its verification
// token): about 16 µs of its 340 in the server profile. Node's own crypto.randomUUID() pools the same way.
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
