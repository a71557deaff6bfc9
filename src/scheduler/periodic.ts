// A periodic job that never overlaps itself, logs failures instead of crashing, and stops cleanly.
import type { Logger } from 'pino';

export interface Worker {
  name: string;
  start(): Promise<void> | void;
  stop(): Promise<void>;
}

export function periodic(
  name: string,
  intervalMs: number,
  fn: () => Promise<unknown>,
  log: Logger,
  opts: { runAtStart?: boolean } = {},
): Omit<Worker, 'start'> & { start(): void; runNow: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = true;
  const once = (): Promise<void> => {
    if (current) return current;
    current = fn()
      .then(() => undefined)
      .catch((err) =>
        log.error(
          { worker: name, err: { message: (err as Error).message, stack: (err as Error).stack } },
          'worker cycle failed',
        ),
      )
      .finally(() => {
        current = undefined;
      });
    return current;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void once().then(schedule), intervalMs);
    timer.unref();
  };
  return {
    name,
    start() {
      stopped = false;
      if (opts.runAtStart ?? true) void once().then(schedule);
      else schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
    runNow: once,
  };
}
