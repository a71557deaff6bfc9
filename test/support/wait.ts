// Polls a condition on the real system until it holds (no fixed sleeps in assertions).
export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 5000,
  stepMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads `a` between two reads of `b` until `b`'s answer held still around it, and returns that pair of
 * answers: a new domain's first background look-ups (registration, nameserver watch) may land between
 * two reads, and two reads that should be alike are then compared across the change.
 */
export async function readAlike<A, B>(a: () => Promise<A>, b: () => Promise<B>, timeoutMs = 5000): Promise<[A, B]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const before = JSON.stringify(await b());
    const mine = await a();
    const after = await b();
    if (JSON.stringify(after) === before || Date.now() > until) return [mine, after];
    await sleep(100);
  }
}
