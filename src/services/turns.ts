// better-sqlite3 runs every query synchronously on the one event loop, and a query awaited through
// Kysely hands back through microtasks only, never letting I/O in: requests that arrive together
// would run all their reads back to back before the loop reads another socket.

// An immediate queued while the immediates run waits for the next loop iteration, so the second of
// two nested immediates runs after the loop has polled for I/O at least once.
const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));
const afterPoll = (fn: () => void) => setImmediate(() => setImmediate(fn));

/**
 * Turns for reads over a whole team (tens of ms of SQLite work at thousands of endpoints). A key's
 * (a team's) reads run one at a time, back to back until they have taken `budgetMs`; its next read
 * then waits until the loop has polled for I/O, which answers the requests that arrived meanwhile.
 * So between two polls one team's reads take at most the budget plus one read, however many of its
 * lists are in flight, and a small team's quick reads never wait.
 */
export function takeTurns(budgetMs = 10): <T>(key: string, read: () => Promise<T>) => Promise<T> {
  const spent = new Map<string, number>();
  const queues = new Map<string, Promise<unknown>>();
  const over = (key: string) => (spent.get(key) ?? -1) >= budgetMs;

  async function take<T>(key: string, read: () => Promise<T>): Promise<T> {
    while (over(key)) await nextImmediate();
    const start = performance.now();
    try {
      return await read();
    } finally {
      const before = spent.get(key);
      spent.set(key, (before ?? 0) + performance.now() - start);
      // The key's first read since its spending was last forgotten: forget it again after the next poll.
      if (before === undefined) afterPoll(() => spent.delete(key));
    }
  }

  return (key, read) => {
    const run = (queues.get(key) ?? Promise.resolve()).then(() => take(key, read));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };
}
