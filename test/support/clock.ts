// A clock the test moves by hand (inject it instead of sleeping).
import type { Clock } from '../../src/domain/clock.js';

interface ManualClock extends Clock {
  advance(ms: number): void;
  set(d: Date | string): void;
}

export function manualClock(start: Date | string = '2026-01-01T00:00:00Z'): ManualClock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    set(d) {
      t = new Date(d).getTime();
    },
  };
}

/** A clock that runs with real time, shifted by `offsetMs` (for workers that wait on it) and moved on by advance(). */
export function runningClock(offsetMs = 0): Clock & { advance(ms: number): void } {
  let offset = offsetMs;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/**
 * A running clock set 1 s past the start of a fixed window of `windowMs` (the rate limits' minute, which
 * starts on the minute): a test that counts requests up to a limit has the whole window before the count
 * starts again, however slowly a loaded machine sends them. Up to one window ahead of real time.
 */
export function freshWindowClock(windowMs = 60_000): Clock & { advance(ms: number): void } {
  return runningClock(windowMs - (Date.now() % windowMs) + 1000);
}
