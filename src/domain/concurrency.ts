// Bounded parallelism without a dependency: map over items with at most `n` calls in flight, results in order.
export async function mapLimit<T, R>(items: readonly T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * Runs `fn` over items with at most `n` calls in flight, in order of start; once `stop()` answers true
 * no further item starts (the ones in flight finish). Returns how many items were started.
 */
export async function eachLimit<T>(
  items: readonly T[],
  n: number,
  fn: (t: T) => Promise<unknown>,
  stop: () => boolean = () => false,
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length && !stop()) await fn(items[next++]!);
    }),
  );
  return next;
}
