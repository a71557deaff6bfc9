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
